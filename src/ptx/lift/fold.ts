// Warps → roles. Warps whose collective operations (waits, wgmma, named barriers, fences,
// generic accesses) are identical, at the same PTX lines, run the same code in lockstep and
// fold into one role of that many warps. Their single-issuer operations (done by an elected
// thread) are merged gap by gap, a gap being the stretch between two collective operations:
// operations equal in several warps are aligned (a common-subsequence merge) and combined
// (arrive counts and expect/complete bytes add up; bulk commit/wait and TMA stores happen
// once), the others are kept in warp order.
//
// Folding would hide a race when one warp's elected signal (arrive, TMA issue, …) follows
// generic reads/writes of the other warps with no named barrier between (bug class M14), and a
// wait on a barrier not yet initialised when one warp's init is followed by the other warps' use
// of that barrier with no named barrier between (ThunderKittens' linear attention), and two
// arrivals in one generation of a named barrier when the warps arrive on it and then arrive on it
// again (FlashInfer's prefill epilogue): such warps stay separate roles and the checker explores
// their interleavings.
import type { Loc, Op, Role, Stmt } from '../../ir/program.ts';
import { roleName } from './names.ts';
import { mergeRanges } from './footprint.ts';
import type { WarpOp } from './warp-ops.ts';

interface Merged {
  op: Op;
  readonly loc: Loc;
  readonly key: string;
  readonly warps: Set<number>;
}

const ADDITIVE = new Set(['arrive', 'expect_tx', 'complete_tx']);
const IDEMPOTENT = new Set(['bulk.commit', 'bulk.wait', 'tma.store']);
const SIGNALS = new Set(['arrive', 'arrive.expect_tx', 'expect_tx', 'complete_tx', 'tma.load', 'tma.store']);
const MAX_ALIGN = 400;

function opKey(o: WarpOp): string {
  return `${o.loc.line}:${o.loc.col}:${JSON.stringify(o.op)}`;
}

/** Key used to align single-issuer ops across warps (counts and bytes may differ for additive ops). */
function alignKey(o: WarpOp): string | undefined {
  const k = o.op.kind;
  if (IDEMPOTENT.has(k)) return opKey(o);
  if (ADDITIVE.has(k) && 'target' in o.op) return `${o.loc.line}:${o.loc.col}:${k}:${JSON.stringify(o.op.target)}`;
  return undefined;
}

function combine(a: Op, b: Op): Op {
  if (a.kind === 'arrive' && b.kind === 'arrive' && a.count.kind === 'num' && b.count.kind === 'num') {
    return { ...a, count: { kind: 'num', value: a.count.value + b.count.value } };
  }
  if ((a.kind === 'expect_tx' || a.kind === 'complete_tx') && b.kind === a.kind && a.bytes.kind === 'num' && b.bytes.kind === 'num') {
    return { ...a, bytes: { kind: 'num', value: a.bytes.value + b.bytes.value } };
  }
  return a;
}

/** Merge one more warp's gap into the merged gap (LCS on alignable ops); undefined when too large. */
function mergeGap(merged: Merged[], next: readonly WarpOp[], warp: number): Merged[] | undefined {
  if (merged.length === 0) return next.map((o) => ({ op: o.op, loc: o.loc, key: alignKey(o) ?? `#${warp}:${opKey(o)}`, warps: new Set([warp]) }));
  if (next.length === 0) return merged;
  if (merged.length > MAX_ALIGN || next.length > MAX_ALIGN) return undefined;
  const keysB = next.map((o) => alignKey(o));
  const n = merged.length;
  const m = next.length;
  const dp: Int32Array[] = [];
  for (let i = 0; i <= n; i++) dp.push(new Int32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = dp[i] as Int32Array;
    const below = dp[i + 1] as Int32Array;
    for (let j = m - 1; j >= 0; j--) {
      const kb = keysB[j];
      const same = kb !== undefined && merged[i]?.key === kb;
      row[j] = same ? (below[j + 1] ?? 0) + 1 : Math.max(below[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const out: Merged[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    const a = merged[i];
    const b = next[j];
    const kb = keysB[j];
    if (a && b && kb !== undefined && a.key === kb) {
      a.warps.add(warp);
      if (ADDITIVE.has(a.op.kind)) a.op = combine(a.op, b.op);
      out.push(a);
      i++;
      j++;
    } else if (a && (!b || (dp[i + 1]?.[j] ?? 0) >= (dp[i]?.[j + 1] ?? 0))) {
      out.push(a);
      i++;
    } else if (b) {
      out.push({ op: b.op, loc: b.loc, key: kb ?? `#${warp}:${opKey(b)}`, warps: new Set([warp]) });
      j++;
    }
  }
  return out;
}

/**
 * A unit of the collective skeleton: one collective op, or a run of generic accesses with
 * nothing between them (its order does not matter; warps of one role may touch different
 * slots there, and the folded role touches them all).
 */
type Unit = { readonly kind: 'op'; readonly op: WarpOp } | { readonly kind: 'access'; readonly ops: readonly WarpOp[] };

function isAccess(o: WarpOp): boolean {
  return o.op.kind === 'read' || o.op.kind === 'write' || o.op.kind === 'atomic';
}

/** Split a warp's ops into its skeleton units and the single-issuer gaps before each (and after the last). */
function split(ops: readonly WarpOp[]): { units: Unit[]; gaps: WarpOp[][] } {
  const units: Unit[] = [];
  const gaps: WarpOp[][] = [[]];
  for (const o of ops) {
    if (!o.collective) {
      gaps[gaps.length - 1]?.push(o);
      continue;
    }
    const last = units[units.length - 1];
    const gap = gaps[gaps.length - 1] ?? [];
    if (isAccess(o) && last?.kind === 'access' && gap.length === 0) {
      units[units.length - 1] = { kind: 'access', ops: [...last.ops, o] };
      continue;
    }
    units.push(isAccess(o) ? { kind: 'access', ops: [o] } : { kind: 'op', op: o });
    gaps.push([]);
  }
  return { units, gaps };
}

function unitKey(u: Unit): string {
  if (u.kind === 'op') return opKey(u.op);
  return `access:${[...new Set(u.ops.map((o) => `${o.op.kind}@${o.loc.line}:${o.loc.col}`))].sort().join(',')}`;
}

function linesOf(stmts: readonly Stmt[]): number[] {
  return stmts.flatMap((s) => (s.loc ? [s.loc.line] : []));
}

function toStmts(items: readonly { op: Op; loc: Loc }[]): Stmt[] {
  return items.map((x) => ({ kind: 'op', op: x.op, loc: x.loc }));
}

/** A lag role under construction: its first named barrier id (it uses `lagPool` + 1 from there) and its ops. */
interface LagRole {
  readonly base: number;
  readonly ops: { op: Op; loc: Loc }[];
}

/**
 * Fold a group of warps with equal skeletons, or undefined when that would hide a race. With
 * `windows` (`lagWindows`) the role is built with its lag role (`lag`): before each window's wait
 * the role arrives on a named barrier that the lag role syncs on before making the wait again, so
 * the lag role knows what the role knew there, and never makes the wait sooner; before each
 * window's end both sync on one more named barrier, so the role goes on only once the lag role has
 * made its waits. A window's barrier is used again once the lag role is past its end.
 */
function foldGroup(group: readonly { warp: number; ops: readonly WarpOp[] }[], windows?: readonly LagWindow[], lag?: LagRole): Stmt[] | undefined {
  const parts = group.map((g) => ({ warp: g.warp, ...split(g.ops) }));
  const first = parts[0];
  if (!first) return [];
  const threads = 32 * group.length;
  if (group.length > 1 && arrivesAgainUnsynced(first.units, threads)) return undefined;
  const oneWarpgroup = new Set(group.map(warpgroupOf)).size === 1;
  const body: { op: Op; loc: Loc }[] = [];
  const starts = new Map((windows ?? []).map((w, k) => [w.wait, k] as const));
  const ends = new Set((windows ?? []).map((w) => w.end));
  const pool = lagPool(windows ?? []);
  const named = (kind: 'bar.sync' | 'bar.arrive', id: number, loc: Loc): { op: Op; loc: Loc } => ({ op: { kind, id: { kind: 'num', value: id }, threads: { kind: 'num', value: threads + 32 } }, loc });
  for (let gi = 0; gi < first.gaps.length; gi++) {
    let merged: Merged[] | undefined = [];
    for (const p of parts) {
      merged = mergeGap(merged, p.gaps[gi] ?? [], p.warp);
      if (!merged) return undefined;
    }
    for (const x of merged) {
      if (x.warps.size < group.length && SIGNALS.has(x.op.kind) && unsyncedAccessBefore(parts, gi, threads, oneWarpgroup)) return undefined;
      if (x.warps.size < group.length && (x.op.kind === 'init' || x.op.kind === 'inval') && othersUseBeforeSync(parts, gi, x, threads)) return undefined;
      body.push({ op: x.op, loc: x.loc });
    }
    const u = first.units[gi];
    if (lag && ends.has(gi)) {
      const at = u?.kind === 'op' ? u.op.loc : (body.at(-1)?.loc ?? { line: 0, col: 0 });
      body.push(named('bar.sync', lag.base, at));
      lag.ops.push(named('bar.sync', lag.base, at));
    }
    const k = starts.get(gi);
    if (lag && k !== undefined && u?.kind === 'op') {
      body.push(named('bar.arrive', lag.base + 1 + (k % pool), u.op.loc));
      lag.ops.push(named('bar.sync', lag.base + 1 + (k % pool), u.op.loc), { op: u.op.op, loc: u.op.loc });
    }
    if (u?.kind === 'op') body.push({ op: u.op.op, loc: u.op.loc });
    else if (u) {
      // warps touching each other's bytes with no barrier between race: they stay separate roles
      if (accessesOverlap(parts.map((p) => p.units[gi]))) return undefined;
      body.push(...unionOfAccesses(parts.map((p) => p.units[gi]).map((u) => (u?.kind === 'access' ? u.ops : []))));
    }
  }
  return toStmts(body);
}

interface Touch {
  readonly cta: number;
  readonly runs: readonly (readonly [number, number])[];
  readonly write: boolean;
  readonly data?: string;
}

/** What a warp's access unit touched, one entry per PTX access. */
function touches(u: Unit | undefined): Touch[] {
  if (u?.kind !== 'access') return [];
  return u.ops.flatMap((o) => (o.bytes ?? []).map((b) => ({ ...b, write: o.op.kind !== 'read' })));
}

function intersect(a: readonly (readonly [number, number])[], b: readonly (readonly [number, number])[]): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x[0] < y[1] && y[0] < x[1]) return true;
    if (x[1] <= y[1]) i++;
    else j++;
  }
  return false;
}

const sortedRuns = (ts: readonly Touch[]): [number, number][] => mergeRanges(ts.flatMap((t) => t.runs.map(([lo, hi]) => [lo, hi] as [number, number])));

/** Two accesses of different warps race: one writes bytes the other touches, unless both store the same known data. */
function conflict(a: Touch, b: Touch): boolean {
  if (a.cta !== b.cta || (!a.write && !b.write)) return false;
  if (a.write && b.write && a.data !== undefined && a.data === b.data) return false;
  return intersect(a.runs, b.runs);
}

/** Does one warp, in these (parallel) access units, write bytes another warp touches? */
function accessesOverlap(units: readonly (Unit | undefined)[]): boolean {
  const per = units.map(touches);
  // each warp's union of bytes per CTA, written and touched, made once (not once per pair of warps)
  const unions = (keep: (t: Touch) => boolean): Map<number, [number, number][]>[] =>
    per.map((ts) => {
      const byCta = new Map<number, Touch[]>();
      for (const t of ts) {
        if (!keep(t)) continue;
        const list = byCta.get(t.cta);
        if (list) list.push(t);
        else byCta.set(t.cta, [t]);
      }
      return new Map([...byCta].map(([cta, list]) => [cta, sortedRuns(list)] as const));
    });
  const written = unions((t) => t.write);
  const touched = unions(() => true);
  for (let p = 0; p < per.length; p++) {
    const mine = per[p] ?? [];
    for (const [cta, w] of written[p] ?? []) {
      for (let q = 0; q < per.length; q++) {
        const theirs = per[q] ?? [];
        // cheap test on the unions first; the access-by-access test only where they meet
        if (q === p || !intersect(w, touched[q]?.get(cta) ?? [])) continue;
        if (mine.some((a) => theirs.some((b) => conflict(a, b)))) return true;
      }
    }
  }
  return false;
}

/**
 * Is there a generic access in the skeleton before gap `gi` that the group's signals there are not
 * ordered after? A `bar.sync` of the group orders every access before it. For the warps of one
 * warpgroup (`oneWarpgroup`), so does a `wgmma.wait_group` for the reads before a commit it
 * retires, when each warp had every load of its own over at that commit (`settled`: it read the
 * value, load-waits.ts): the group retires only once each warp has committed it (measured,
 * traces/gpu/wgmma-coupling-h200), so the read is over before any warp is past the wait. CUTLASS's
 * sparse GEMM: each warp loads the stage's metadata for its own wgmma, and one warp per CTA
 * releases the stage after `wgmma.wait_group 0`. Writes are not ordered so (a store may still be
 * in flight).
 */
function unsyncedAccessBefore(parts: readonly { readonly units: readonly Unit[] }[], gi: number, threads: number, oneWarpgroup: boolean): boolean {
  const units = parts[0]?.units ?? [];
  // reads before this unit are over before the gap
  let readsOver = -1;
  for (let i = gi - 1; i >= 0; i--) {
    const u = units[i];
    if (!u) continue;
    if (u.kind === 'access') {
      if (i < readsOver && u.ops.every((o) => o.op.kind === 'read')) continue;
      return true;
    }
    const op = u.op.op;
    if (groupSync(op, threads)) return false;
    if (oneWarpgroup && op.kind === 'wgmma.wait' && op.pending.kind === 'num') readsOver = Math.max(readsOver, settledCommitRetired(parts, i, op.pending.value));
  }
  return false;
}

/**
 * Does a warp that did not make the init (or inval) `x` of gap `gi` use its barrier after it —
 * a wait of the skeleton, or an op of its own — before a `bar.sync` of the whole group? Folded,
 * the role would make the init first; the warps that skip it (`if (threadIdx.x == 0)`) may reach
 * their wait before the warp that makes it.
 */
function othersUseBeforeSync(parts: readonly { readonly warp: number; readonly units: readonly Unit[]; readonly gaps: readonly (readonly WarpOp[])[] }[], gi: number, x: Merged, threads: number): boolean {
  if (!('target' in x.op)) return false;
  const target = JSON.stringify(x.op.target);
  const onTarget = (o: WarpOp): boolean => 'target' in o.op && JSON.stringify(o.op.target) === target;
  const others = parts.filter((p) => !x.warps.has(p.warp));
  const units = parts[0]?.units ?? [];
  for (let j = gi; j <= units.length; j++) {
    if (others.some((p) => (p.gaps[j] ?? []).some(onTarget))) return true;
    const u = units[j];
    if (u?.kind !== 'op') continue;
    const op = u.op.op;
    if (groupSync(op, threads)) return false;
    if (onTarget(u.op)) return true;
  }
  return false;
}

/**
 * Does the skeleton arrive on a named barrier (`bar.arrive`, which does not block) for no more
 * threads than the group has, and later arrive on it again (`bar.arrive` or `bar.sync`) with no
 * `bar.sync` of the whole group on another barrier between? Folded, the role's warps arrive
 * together each time, so the two arrivals fall in two generations; unfolded, a warp that runs
 * ahead makes both before a slower one makes its first, and a generation completes with the
 * arrivals of some warps twice and of others not at all. Where the count is larger than the
 * group, other roles arrive too, and a folded role's two arrivals overrunning a generation's count
 * shows the same thing (a `protocol` violation): FlashInfer's Hopper prefill epilogue, whose
 * warpgroups each `arrive` and then `sync` on EpilogueBarrier with a count of 256, both of them.
 * Kept folded there, it is found in 576 states; split warp by warp, only as a race, past 7 million.
 */
function arrivesAgainUnsynced(units: readonly Unit[], threads: number): boolean {
  // the barriers arrived on since the last bar.sync of the whole group
  const open = new Set<number>();
  for (const u of units) {
    if (u?.kind !== 'op') continue;
    const op = u.op.op;
    if ((op.kind !== 'bar.arrive' && op.kind !== 'bar.sync') || op.id.kind !== 'num') continue;
    const id = op.id.value;
    if (open.has(id)) return true;
    if (groupSync(op, threads)) open.clear();
    else if (op.kind === 'bar.arrive' && op.threads.kind === 'num' && op.threads.value <= threads) open.add(id);
  }
  return false;
}

/** A `bar.sync` of at least `threads` threads: every warp of a group that many is past the ops before it once one is past it. */
const groupSync = (op: Op, threads: number): boolean => op.kind === 'bar.sync' && op.threads.kind === 'num' && op.threads.value >= threads;

/** The last commit before the `wgmma.wait_group pending` at unit `wi` that it retires, of a group with a wgmma in it, at which every warp's loads were over; -1 when none. */
function settledCommitRetired(parts: readonly { readonly units: readonly Unit[] }[], wi: number, pending: number): number {
  const units = parts[0]?.units ?? [];
  const isCommit = (u: Unit | undefined): boolean => u?.kind === 'op' && u.op.op.kind === 'wgmma.commit';
  let later = 0;
  for (let c = wi - 1; c >= 0; c--) {
    if (!isCommit(units[c])) continue;
    // the wait leaves the `pending` latest groups in flight
    if (later++ < pending) continue;
    const settled = parts.every((p) => {
      const u = p.units[c];
      return u?.kind === 'op' && u.op.settled === true;
    });
    let issued = false;
    for (let j = c - 1; j >= 0 && !isCommit(units[j]); j--) {
      const u = units[j];
      if (u?.kind === 'op' && u.op.op.kind === 'wgmma.issue') issued = true;
    }
    if (settled && issued) return c;
  }
  return -1;
}

/** Warps a CTA holds (1024 threads). */
const MAX_CTA_WARPS = 32;

/**
 * The first skeleton unit after unit `wi` (a wait) that every warp of the group reaches only once
 * all of them are past that wait: a `bar.sync` of at least `threads` threads, or — for warps of
 * one warpgroup (`oneWarpgroup`) — a `wgmma.wait_group N` that retires a group committed after the
 * wait (more than N commits between them). A warpgroup's wgmma group retires only once each of its
 * 4 warps has committed into it (measured on an H200: traces/gpu/wgmma-coupling-h200), and each
 * warp commits it after its own wait. The number of units when none comes.
 */
function syncAfter(units: readonly Unit[], wi: number, threads: number, oneWarpgroup: boolean): number {
  let commits = 0;
  for (let j = wi + 1; j < units.length; j++) {
    const u = units[j];
    if (u?.kind !== 'op') continue;
    const op = u.op.op;
    if (groupSync(op, threads)) return j;
    if (op.kind === 'wgmma.commit') commits++;
    if (oneWarpgroup && op.kind === 'wgmma.wait' && op.pending.kind === 'num' && commits > op.pending.value) return j;
  }
  return units.length;
}

const isWait = (u: Unit | undefined): boolean => u?.kind === 'op' && (u.op.op.kind === 'wait' || u.op.op.kind === 'wait.token');

/** Whether every warp of the group is past the last wait before gap `gi` (or no wait comes before it) by the time one of them reaches the gap. */
function syncedSinceWait(units: readonly Unit[], gi: number, threads: number, oneWarpgroup: boolean): boolean {
  for (let wi = gi - 1; wi >= 0; wi--) if (isWait(units[wi])) return syncAfter(units, wi, threads, oneWarpgroup) < gi;
  return true;
}

/**
 * How many windows may be open at once, so how many named barriers the role arrives on before its
 * waits: a window's barrier is free again once the lag role met the role at the window's end.
 */
function lagPool(windows: readonly LagWindow[]): number {
  return 1 + Math.max(0, ...windows.map((w) => windows.filter((x) => x.wait > w.wait && x.wait < w.end).length));
}

/** Past this many windows open at once (warps that never synchronize: a barrier per wait), the signal classes fold apart instead. */
const MAX_LAG_POOL = 8;

/** A wait of a folded role (its skeleton unit) and the unit by which every warp is past it (or the number of units: the end). */
interface LagWindow {
  readonly wait: number;
  readonly end: number;
}

/** Whether the warps signal differently in a gap after unit `wi` up to unit `end` (before it). */
function stretchDiffers(wi: number, end: number, differs: (gi: number) => boolean): boolean {
  for (let gi = wi + 1; gi <= end; gi++) if (differs(gi)) return true;
  return false;
}

/**
 * The waits a folded role makes again for its lagging warps. Between a wait and the next unit
 * that needs every warp past it (`syncAfter`, or the end), one warp may still be before the wait
 * while another goes on; where the warps signal differently in that stretch (`differs`, by gap),
 * the role makes each signal at the leading warp's time and its lag role makes the wait again at
 * any moment of the stretch, knowing what the role knew before the wait. Phases only advance, so a
 * barrier that completed twice since is found there, as the missed phase of a lagging warp
 * (ThunderKittens' lcsf producers, gpu/lcsf/lag.cu); an earlier signal only lets barriers complete
 * sooner. Token waits are not made again (bySignalPlaces splits such warps instead).
 */
function lagWindows(units: readonly Unit[], differs: (gi: number) => boolean, threads: number, oneWarpgroup: boolean): LagWindow[] {
  const out: LagWindow[] = [];
  for (let wi = 0; wi < units.length; wi++) {
    const u = units[wi];
    if (u?.kind !== 'op' || u.op.op.kind !== 'wait') continue;
    const end = syncAfter(units, wi, threads, oneWarpgroup);
    if (stretchDiffers(wi, end, differs)) out.push({ wait: wi, end });
  }
  return out;
}

/** How a role is named: from its warps and the PTX lines of its operations. */
export type RoleNamer = (warps: readonly number[], lines: readonly number[]) => string;

const defaultNamer: RoleNamer = (warps) => roleName(warps);

/** A role and the warps folded into it. */
export interface FoldedRole {
  readonly role: Role;
  readonly warps: readonly number[];
  /**
   * A lag role (no warps of its own): it stands for a lagging warp of the role before it and makes
   * the waits at these PTX lines again (`lagWindows`)
   */
  readonly rechecked?: readonly number[];
  /** a lag role's main role: its index in the list */
  readonly lagOf?: number;
  /** how many named barriers a lag role adds, numbered from foldWarps' `namedBase` on */
  readonly namedBarriers?: number;
}

/**
 * How many of a warp's first ops are generic accesses that a `bar.sync` right after them orders
 * (DeepGEMM's warps 1 and 2 stage the scales before the consumers' first barrier): 0 when anything
 * else comes first.
 */
function leadingAccesses(ops: readonly WarpOp[]): number {
  for (let i = 0; i < ops.length; i++) {
    const o = ops[i]!;
    if (!o.collective) return 0;
    if (isAccess(o)) continue;
    return o.op.kind === 'bar.sync' ? i : 0;
  }
  return 0;
}

/**
 * The body of warps that differ only in generic accesses before a first `bar.sync` of all of
 * them: those accesses (each once), then the folded rest. Undefined when the barrier does not
 * cover the group or one warp's early accesses touch another's (they stay roles of their own).
 */
function foldWithPrefixes(group: readonly { warp: number; ops: readonly WarpOp[]; prefix: readonly WarpOp[] }[]): Stmt[] | undefined {
  const first = group[0]?.ops[0]?.op;
  if (first?.kind !== 'bar.sync' || first.threads.kind !== 'num' || first.threads.value < 32 * group.length) return undefined;
  if (accessesOverlap(group.map((g) => (g.prefix.length > 0 ? { kind: 'access' as const, ops: g.prefix } : undefined)))) return undefined;
  const rest = foldGroup(group);
  if (!rest) return undefined;
  return [...toStmts(unionOfAccesses(group.map((g) => g.prefix))), ...rest];
}

/** The union of several warps' accesses, each one once (the folded role touches them all). */
function unionOfAccesses(perWarp: readonly (readonly WarpOp[])[]): { op: Op; loc: Loc }[] {
  const seen = new Set<string>();
  const out: { op: Op; loc: Loc }[] = [];
  for (const ops of perWarp) {
    for (const o of ops) {
      const key = JSON.stringify(o.op);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ op: o.op, loc: o.loc });
    }
  }
  return out;
}

/** A warp's warpgroup: four consecutive warps (CTAs hold multiples of 4 warps wherever wgmma is issued). */
const warpgroupOf = (g: { readonly warp: number }): number => Math.floor(g.warp / 4);

/** A warp to fold: its ops after any early accesses (`prefix`), and all of them. */
interface Grouped {
  readonly warp: number;
  readonly ops: readonly WarpOp[];
  readonly prefix: readonly WarpOp[];
  readonly all: readonly WarpOp[];
}

/**
 * Warps of a group that could not fold, by the single-issuer signals they make (PTX line and
 * target): the elected warp of a warpgroup that releases a stage after the others' epilogue writes
 * stays a role of its own, and the warps that signal nothing still fold (FlashAttention-3's
 * consumers after a first tile: two roles per warpgroup instead of four).
 */
function bySignals(group: readonly Grouped[]): Grouped[][] {
  const classes = new Map<string, Grouped[]>();
  for (const g of group) {
    const key = g.all.filter((o) => !o.collective && SIGNALS.has(o.op.kind)).map((o) => alignKey(o) ?? opKey(o)).join('\n');
    classes.set(key, [...(classes.get(key) ?? []), g]);
  }
  return [...classes.values()];
}

/**
 * Warps of a group by the single-issuer signals they make and where: the signals of each gap
 * between collective operations (PTX line, kind and target; counts aside). A folded role is one
 * agent, its warps in lockstep: a warp that lags behind another is not explored. Warps that signal
 * at different places are not in lockstep in any way the model could rely on — ThunderKittens'
 * lcsf producers all wait on every input stage and take turns to load it, and one that lags the
 * loader waits with a parity whose phase has passed: a hang on an H200 (gpu/lcsf/lag.cu), which a
 * role of both warps could not show. So they stay apart.
 */
function bySignalPlaces(group: readonly Grouped[]): Folding[] {
  if (group.length < 2) return [{ warps: [...group] }];
  const places = new Map(group.map((g) => [g, signalPlaces(g)] as const));
  if (inStep(group, places)) return [{ warps: [...group] }];
  // a role keeps to one warpgroup: the roles of a warpgroup are declared one (its wgmma groups
  // start and retire together, docs/semantics.md), which roles of two warpgroups cannot be
  // (fast.cu M7: warps 4 and 8 release for their warpgroups, 5-7 and 9-11 do not)
  const byWarpgroup = new Map<number, Grouped[]>();
  for (const g of group) byWarpgroup.set(warpgroupOf(g), [...(byWarpgroup.get(warpgroupOf(g)) ?? []), g]);
  return [...byWarpgroup.values()].flatMap((wg): Folding[] => {
    if (inStep(wg, places)) return [{ warps: wg }];
    // warps that lag each other: one role beside a lag role that repeats its waits (lagWindows),
    // unless early accesses shift their skeletons or too many windows are open at once; then the
    // warps of each signal class fold
    const first = places.get(wg[0] as Grouped) ?? [];
    const differs = (gi: number): boolean => wg.some((g) => places.get(g)?.[gi] !== first[gi]);
    const units = split(wg[0]?.ops ?? []).units;
    const windows = lagWindows(units, differs, 32 * wg.length, true);
    // a token wait is not made again: a lag past one, where the warps signal differently, splits them
    const tokenLags = units.some((u, wi) => u.kind === 'op' && u.op.op.kind === 'wait.token' && stretchDiffers(wi, syncAfter(units, wi, 32 * wg.length, true), differs));
    if (wg.length > 1 && wg.every((g) => g.prefix.length === 0) && windows.length > 0 && !tokenLags && lagPool(windows) <= MAX_LAG_POOL) return [{ warps: wg, windows }];
    const classes = new Map<string, Grouped[]>();
    for (const g of wg) {
      const key = (places.get(g) ?? []).join('|');
      classes.set(key, [...(classes.get(key) ?? []), g]);
    }
    return [...classes.values()].map((warps) => ({ warps }));
  });
}

/** Warps to fold into one role, and the waits its lag role repeats for its lagging warps (`lagWindows`). */
interface Folding {
  readonly warps: readonly Grouped[];
  readonly windows?: readonly LagWindow[];
}

/**
 * A warp's single-issuer signals, gap by gap between its collective operations (PTX line, kind and
 * target), after its early accesses (which hold no signal; warps of a group have equal skeletons there).
 */
function signalPlaces(g: Grouped): string[] {
  return split(g.ops).gaps.map((gap) => gap.filter((o) => SIGNALS.has(o.op.kind)).map((o) => alignKey(o) ?? opKey(o)).join(','));
}

/**
 * Whether warps stay in step wherever their signals differ: each such gap is reached only once
 * every warp is past the last wait before it (`syncedSinceWait`), so no warp can lag past a wait
 * while another signals. A named barrier of the whole group does it (a consumer warpgroup whose
 * first warp releases the stage after `bar.sync 1, 128`); within one warpgroup so does a
 * `wgmma.wait_group` that retires a group committed after the wait (CUTLASS's consumers on a
 * cluster, each warp releasing the stage of another CTA).
 */
function inStep(group: readonly Grouped[], places: ReadonlyMap<Grouped, readonly string[]>): boolean {
  const first = places.get(group[0] as Grouped) ?? [];
  const units = split(group[0]?.ops ?? []).units;
  const oneWarpgroup = new Set(group.map(warpgroupOf)).size === 1;
  for (let gi = 0; gi < first.length; gi++) {
    const differs = group.some((g) => places.get(g)?.[gi] !== first[gi]);
    if (differs && !syncedSinceWait(units, gi, 32 * group.length, oneWarpgroup)) return false;
  }
  return group.every((g) => places.get(g)?.length === first.length);
}

/**
 * Skeleton groups, with those that issue wgmma split by warpgroup where a warpgroup's warps lie in
 * several groups (CUTLASS's ptr-array kernels: the first warp of each consumer warpgroup also
 * updates a tensor map). Such a warpgroup's roles are declared one, their wgmma groups retiring
 * together (warpgroups.ts), only if none of them holds warps of another warpgroup; a role of
 * warps 1-3 and 5-7 would retire its groups alone, and the release after warp 0's wgmma.wait
 * would race with them.
 */
function splitSpreadWarpgroups(groups: ReadonlyMap<string, Grouped[]>): Map<string, Grouped[]> {
  const spread = new Map<number, Set<string>>();
  for (const [key, g] of groups) for (const x of g) spread.set(warpgroupOf(x), (spread.get(warpgroupOf(x)) ?? new Set()).add(key));
  const out = new Map<string, Grouped[]>();
  for (const [key, g] of groups) {
    const issues = g.some((x) => x.all.some((o) => o.op.kind === 'wgmma.issue'));
    const split = issues && new Set(g.map(warpgroupOf)).size > 1 && g.some((x) => (spread.get(warpgroupOf(x))?.size ?? 1) > 1);
    for (const x of g) {
      const k = split ? `${key}\nwarpgroup ${warpgroupOf(x)}` : key;
      out.set(k, [...(out.get(k) ?? []), x]);
    }
  }
  return out;
}

/**
 * Fold warps into roles; only warps of the same CTA (`ctaOf`) fold together. Lag roles' named
 * barriers get ids from `namedBase` on (the first the kernel's own leave free).
 */
export function foldWarps(warps: readonly { warp: number; ops: readonly WarpOp[] }[], namer: RoleNamer = defaultNamer, ctaOf: (warp: number) => number = () => 0, namedBase = 16): FoldedRole[] {
  // warps are grouped by their skeleton after any early accesses a first bar.sync orders
  const groups = new Map<string, Grouped[]>();
  for (const w of warps) {
    if (w.ops.length === 0) continue;
    const n = leadingAccesses(w.ops);
    const ops = w.ops.slice(n);
    const key = `cta ${ctaOf(w.warp)}\n${split(ops).units.map(unitKey).join('\n')}`;
    const g = groups.get(key) ?? [];
    g.push({ warp: w.warp, ops, prefix: w.ops.slice(0, n), all: w.ops });
    groups.set(key, g);
  }
  const roles: { first: number; role: Role; warps: number[]; rechecked?: number[]; lagOf?: number; namedBarriers?: number }[] = [];
  const folding = [...splitSpreadWarpgroups(groups).values()].flatMap(bySignalPlaces);
  let lagIds = 0;
  const warpsOf = new Map<number, number>();
  for (const w of warps) warpsOf.set(ctaOf(w.warp), (warpsOf.get(ctaOf(w.warp)) ?? 0) + 1);
  const lagsOf = new Map<number, number>();
  const place = (g: readonly Grouped[], body: Stmt[] | undefined): void => {
    if (body) {
      const ws = g.map((x) => x.warp);
      roles.push({ first: Math.min(...ws), role: { name: namer(ws, linesOf(body)), warps: g.length, body }, warps: ws });
    } else {
      for (const w of g) roles.push({ first: w.warp, role: { name: namer([w.warp], w.all.map((o) => o.loc.line)), warps: 1, body: toStmts(w.all) }, warps: [w.warp] });
    }
  };
  for (const { warps: g, windows } of folding) {
    const early = g.length > 1 && g.some((x) => x.prefix.length > 0) ? foldWithPrefixes(g) : undefined;
    if (early) {
      place(g, early);
      continue;
    }
    // as before: warps with equal whole skeletons fold
    const whole = new Map<string, Grouped[]>();
    for (const x of g) {
      const key = split(x.all).units.map(unitKey).join('\n');
      whole.set(key, [...(whole.get(key) ?? []), { ...x, ops: x.all }]);
    }
    for (const sub of whole.values()) {
      // a lag role is one more warp in its CTA: where the CTA has no room, the signal classes fold apart
      const cta = ctaOf(sub[0]?.warp ?? 0);
      const room = windows !== undefined && (warpsOf.get(cta) ?? 0) + (lagsOf.get(cta) ?? 0) < MAX_CTA_WARPS;
      const lag: LagRole = { base: namedBase + lagIds, ops: [] };
      const body = sub.length > 1 && (room || windows === undefined) ? foldGroup(sub, windows, lag) : undefined;
      if (body && lag.ops.length > 0) {
        const ws = sub.map((x) => x.warp);
        const namedBarriers = lagPool(windows ?? []) + 1;
        lagIds += namedBarriers;
        lagsOf.set(cta, (lagsOf.get(cta) ?? 0) + 1);
        const rechecked = [...new Set(lag.ops.filter((x) => x.op.kind === 'wait').map((x) => x.loc.line))].sort((a, b) => a - b);
        roles.push({ first: Math.min(...ws), role: { name: `${namer(ws, linesOf(body))}_lag`, warps: 1, body: toStmts(lag.ops) }, warps: [], lagOf: Math.min(...ws), rechecked, namedBarriers });
      }
      if (body || sub.length === 1) place(sub, body);
      else for (const cls of bySignals(sub)) place(cls, cls.length > 1 ? foldGroup(cls) : undefined);
    }
  }
  // a kernel with no synchronization at all is still a program: one empty role
  if (roles.length === 0) roles.push({ first: 0, role: { name: namer([0], []), warps: 1, body: [] }, warps: [0] });
  const sorted = roles.sort((a, b) => a.first - b.first || (a.lagOf === undefined ? 0 : 1) - (b.lagOf === undefined ? 0 : 1));
  // names must be unique: a role split into warps gets the warp in its name
  const seen = new Map<string, number>();
  for (const r of sorted) seen.set(r.role.name, (seen.get(r.role.name) ?? 0) + 1);
  return sorted.map((r) => ({
    role: (seen.get(r.role.name) ?? 0) <= 1 ? r.role : { ...r.role, name: `${r.role.name}_${roleName([r.first])}` },
    warps: r.warps,
    ...(r.rechecked ? { rechecked: r.rechecked } : {}),
    ...(r.namedBarriers !== undefined ? { namedBarriers: r.namedBarriers } : {}),
    ...(r.lagOf !== undefined ? { lagOf: sorted.findIndex((m) => m.warps.includes(r.lagOf ?? -1)) } : {}),
  }));
}
