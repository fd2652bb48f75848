// Synchronization instructions of one warp: mbarriers, TMA bulk copies, wgmma groups, named and
// cluster barriers, proxy fences. Each records the events the model is built from
// (events.ts) and drives the concrete synchronization state of the run (sim.ts); an instruction
// that must wait for other warps returns a Block and runs again once the scheduler resumes it.
import { u } from './alu.ts';
import { collectiveInstr } from './collectives.ts';
import type { WarpEvent } from './events.ts';
import type { Arg, FlatInstr } from './flatten.ts';
import { recordAccesses, smemLanes, smemRange } from './exec.ts';
import type { CopyBytes } from './ampere-copies.ts';
import { mergeRanges } from './footprint.ts';
import { opType, typeBytes } from './opcode.ts';
import type { Loc } from '../../ir/program.ts';
import type { Frame, WarpInterp } from './warp.ts';
import { CLUSTER_BASE, CTA_WINDOW } from './shared-windows.ts';
import { launchSource } from './launch-slice.ts';
import { resultRead } from './value-uses.ts';
import { mapKey } from './descriptors.ts';
import { firstLane, isLanes, laneOf, popcount, SymAddr, Token, UNINIT, Unknown, WARP, type Scalar, type Val } from './values.ts';

/** What a warp waits for. */
export type Block =
  | { readonly kind: 'mbar'; readonly cta: number; readonly bar: number; readonly parity: number; readonly loc: Loc }
  | { readonly kind: 'token'; readonly cta: number; readonly bar: number; readonly phase: number; readonly site: number; readonly loc: Loc }
  | { readonly kind: 'named'; readonly cta: number; readonly id: number; readonly generation: number; readonly loc: Loc }
  | { readonly kind: 'cluster'; readonly generation: number; readonly loc: Loc }
  /** a wgmma.wait_group whose groups the other warps of the warpgroup have not all committed yet */
  | { readonly kind: 'wgmma'; readonly cta: number; readonly warp: number; readonly groups: number; readonly loc: Loc }
  /**
   * A test_wait found its phase not yet complete: it returned false, and the warp goes on with the
   * next instruction once the other warps have run (the kernel polls: TK's lcsf producer tries its
   * store and its load in turn). Not a wait: the scheduler may resume it at once.
   */
  | { readonly kind: 'poll'; readonly loc: Loc };

/** Unsized tensor copies issued on a barrier in its current phase: they bring whatever bytes it still expects. */
const unsizedCopies = new WeakMap<object, Map<number, number>>();

/** Execute a synchronization (or collective) instruction; a Block when the warp must wait. */
export function syncInstr(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): Block | undefined {
  switch (ins.op.base) {
    case 'mbarrier':
      return mbarrier(w, fr, ins, m);
    case 'cp':
      copy(w, fr, ins, m);
      return undefined;
    case 'wgmma':
      return wgmma(w, fr, ins, m);
    case 'bar':
    case 'barrier':
      return barrier(w, fr, ins, m);
    case 'fence':
      if (ins.op.parts[0]?.startsWith('proxy') && ins.op.parts[1]?.startsWith('async')) w.event({ k: 'fence.proxy.async', loc: ins.loc });
      return undefined;
    case 'mapa':
      mapa(w, fr, ins, m);
      return undefined;
    case 'st':
      storeAsync(w, fr, ins, m);
      return undefined;
    case 'setmaxnreg':
      return undefined;
    default:
      if (!collectiveInstr(w, fr, ins, m)) w.clobber(fr, ins, m);
      return undefined;
  }
}

/**
 * `st.async [addr], value, [bar]`: a store into a CTA of the cluster that performs complete_tx of
 * its bytes on that CTA's mbarrier (FlashMLA's 128-head sparse decode sends each peer its half of
 * K so). The store is weak and the complete_tx a release at cluster scope, so what the waiter may
 * rely on is what a bulk copy gives: the bytes are there once the phase completes. It is recorded
 * as one: each lane's store a copy into the destination that lands and completes its bytes. (PTX
 * does not say which proxy st.async writes through; as a copy, a wgmma may read it after the wait
 * without a proxy fence — docs/ptx.md, *Approximations*.)
 */
function storeAsync(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  if (!ins.op.mods.has('async')) return w.clobber(fr, ins, m);
  const bytes = (typeBytes(opType(ins.op).name) || 4) * ins.op.vector;
  // the lanes that complete on one barrier: one copy of their stores, in as many runs as they make
  const byBar = new Map<string, { cta: number; bar: number; lane: number; n: number; runs: [number, number][] }>();
  for (const g of w.laneGroups(m, [w.address(fr, ins.args[0] ?? { k: 'sink' }), addrOperand(w, fr, ins, 2)])) {
    const dst = w.smem(g.xs[0] ?? UNINIT, ins, 'destination');
    const bar = w.smem(g.xs[1] ?? UNINIT, ins, 'barrier');
    if (dst.cta !== bar.cta) w.unsupported(`'${ins.op.text}' at line ${ins.loc.line} stores into CTA ${dst.cta} and completes bytes on a barrier of CTA ${bar.cta}`, ins.loc);
    const key = `${bar.cta}:${bar.addr}`;
    const copy = byBar.get(key) ?? { cta: bar.cta, bar: bar.addr, lane: g.lane, n: 0, runs: [] };
    // lanes storing to one address store once there, and each completes its bytes
    copy.n += g.n;
    copy.runs.push([dst.addr, dst.addr + bytes]);
    byBar.set(key, copy);
  }
  for (const c of byBar.values()) {
    const runs = mergeRanges(c.runs);
    const total = bytes * c.n;
    const first = runs[0] ?? [0, 0];
    // a copy whose tx is its lanes' bytes; where lanes overlap, the runs hold fewer bytes than that
    w.event({ k: 'tma.load', cta: c.cta, dst: first[0], bytes: total, bar: c.bar, parts: runs, lane: c.lane, copies: 1, loc: ins.loc });
    const sync = w.sim.cta(c.cta);
    for (const [lo, hi] of runs) sync.smem.forget(lo, hi);
    addTx(w, c.cta, c.bar, -total);
  }
}

// ---- mbarrier -----------------------------------------------------------------------------

function operand(w: WarpInterp, fr: Frame, ins: FlatInstr, i: number): Val {
  const x = ins.args[i];
  return x ? w.read(fr, x) : new Unknown('a missing operand');
}

function addrOperand(w: WarpInterp, fr: Frame, ins: FlatInstr, i: number): Val {
  const x = ins.args[i];
  if (!x) w.unsupported(`missing barrier address in '${ins.op.text}' at line ${ins.loc.line}`, ins.loc);
  return w.address(fr, x);
}

/** Transaction bytes expected (positive) or landed (negative) on a barrier, and the phase completed if that ends it. */
function addTx(w: WarpInterp, cta: number, bar: number, bytes: number): void {
  const b = w.sim.cta(cta).mbar(bar);
  if (!b) return;
  b.tx += bytes;
  completeWithCopies(w, cta, bar);
}

function completeWithCopies(w: WarpInterp, cta: number, bar: number): void {
  const c = w.sim.cta(cta);
  const b = c.mbar(bar);
  if (!b) return;
  const unsized = unsizedCopies.get(c)?.get(bar) ?? 0;
  // unsized tensor copies of this phase bring the bytes still expected (the model checks the real sizes)
  if (b.pending <= 0 && b.tx > 0 && unsized > 0) b.tx = 0;
  const before = b.phase;
  c.complete(bar);
  if (b.phase !== before) unsizedCopies.get(c)?.delete(bar);
}

function mbarrier(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): Block | undefined {
  const op = ins.op;
  const action = op.parts[0];
  const loc = ins.loc;
  switch (action) {
    case 'init':
      for (const g of w.laneGroups(m, [addrOperand(w, fr, ins, 0), operand(w, fr, ins, 1)])) {
        const at = w.smem(g.xs[0] ?? UNINIT, ins, 'barrier');
        const count = w.known(g.xs[1] ?? UNINIT, 'the count', ins);
        w.event({ k: 'init', cta: at.cta, bar: at.addr, count, threads: g.n, loc });
        w.sim.cta(at.cta).mbars.set(at.addr, { phase: 0, pending: count, expected: count, tx: 0 });
      }
      return undefined;
    case 'inval':
      for (const g of w.laneGroups(m, [addrOperand(w, fr, ins, 0)])) {
        const at = w.smem(g.xs[0] ?? UNINIT, ins, 'barrier');
        w.event({ k: 'inval', cta: at.cta, bar: at.addr, threads: g.n, loc });
        w.sim.cta(at.cta).mbars.delete(at.addr);
      }
      return undefined;
    case 'arrive':
    case 'arrive_drop':
      arrive(w, fr, ins, m, action === 'arrive_drop');
      return undefined;
    case 'expect_tx':
    case 'complete_tx':
      for (const g of w.laneGroups(m, [addrOperand(w, fr, ins, 0), operand(w, fr, ins, 1)])) {
        const at = w.smem(g.xs[0] ?? UNINIT, ins, 'barrier');
        const bytes = w.known(g.xs[1] ?? UNINIT, 'the byte count', ins) * g.n;
        const txFrom = action === 'expect_tx' ? txSource(w, fr, ins, 1) : undefined;
        w.event({ k: action, cta: at.cta, bar: at.addr, bytes, ...(txFrom !== undefined ? { txFrom } : {}), loc });
        addTx(w, at.cta, at.addr, action === 'expect_tx' ? bytes : -bytes);
      }
      return undefined;
    case 'try_wait':
    case 'test_wait':
      return wait(w, fr, ins, m);
    case 'pending_count':
      w.clobber(fr, ins, m);
      return undefined;
    default:
      w.clobber(fr, ins, m);
      return undefined;
  }
}

/** The launch value an expect_tx byte count comes from, when the user did not give it. */
function txSource(w: WarpInterp, fr: Frame, ins: FlatInstr, arg: number): string | undefined {
  return launchSource(fr.fn, ins.args[arg], (key) => w.launch.isGiven(key));
}

function arrive(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number, drop: boolean): void {
  const op = ins.op;
  const a = ins.args;
  const loc = ins.loc;
  const dest = a[0];
  const wantsToken = dest !== undefined && dest.k !== 'sink';
  const expectTx = op.mods.has('expect_tx');
  const hasCount = !expectTx && a.length >= 3;
  const vals = expectTx ? [addrOperand(w, fr, ins, 1), operand(w, fr, ins, 2)] : hasCount ? [addrOperand(w, fr, ins, 1), operand(w, fr, ins, 2)] : [addrOperand(w, fr, ins, 1)];
  const tokens: Scalar[] = new Array<Scalar>(WARP).fill(UNINIT);
  for (const g of w.laneGroups(m, vals)) {
    const at = w.smem(g.xs[0] ?? UNINIT, ins, 'barrier');
    const c = w.sim.cta(at.cta);
    const b = c.mbar(at.addr);
    const site = w.nextSite++;
    const token = wantsToken && at.cta === w.cta ? site : undefined;
    if (drop) w.unsupported(`'${op.text}' at line ${loc.line} (arrive_drop lowers the expected count of every later phase; not modelled)`, loc);
    if (expectTx) {
      const bytes = w.known(g.xs[1] ?? UNINIT, 'the byte count', ins);
      const txFrom = txSource(w, fr, ins, 2);
      w.event({ k: 'arrive.expect_tx', cta: at.cta, bar: at.addr, bytes, threads: g.n, ...(token !== undefined ? { token } : {}), ...(txFrom !== undefined ? { txFrom } : {}), loc });
      if (b) {
        b.tx += bytes * g.n;
        b.pending -= g.n;
      }
    } else {
      const count = hasCount ? w.known(g.xs[1] ?? UNINIT, 'the arrival count', ins) : 1;
      w.event({ k: 'arrive', cta: at.cta, bar: at.addr, count: count * g.n, ...(token !== undefined ? { token } : {}), loc });
      if (b) b.pending -= count * g.n;
    }
    const phase = b?.phase ?? 0;
    if (b) completeWithCopies(w, at.cta, at.addr);
    const t = new Token(at.cta, at.addr, phase, site);
    for (let l = 0; l < WARP; l++) if ((m >>> l) & 1 && laneMatches(vals, g.xs, l)) tokens[l] = t;
  }
  if (wantsToken) w.write(fr, dest, tokens.every((x) => x === tokens[firstLane(m)]) ? (tokens[firstLane(m)] ?? UNINIT) : tokens, m);
}

/** The bytes of Ampere copies now known complete: written again here (ampere-copies.ts). */
function landed(w: WarpInterp, copies: readonly CopyBytes[], loc: Loc): void {
  const byCta = new Map<number, [number, number][]>();
  for (const c of copies) byCta.set(c.cta, [...(byCta.get(c.cta) ?? []), [c.lo, c.hi]]);
  for (const c of copies) w.sim.cta(c.cta).smem.forget(c.lo, c.hi);
  recordAccesses(w, byCta, 'write', loc);
}

/**
 * `cp.async.mbarrier.arrive{.noinc}`: an arrive-on once the thread's earlier Ampere cp.async copies
 * land. Those copies are written again just before it (`landed`), so the arrive follows them:
 * with `.noinc` one arrival per executing thread (the init count provides for it, CUTLASS's
 * blockwise-scaled FP8 GEMM loads its scales this way); without it the pending count it adds is
 * taken back as the copies land, and nothing is left to record.
 */
function cpAsyncArrive(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  if (!ins.op.mods.has('noinc')) return;
  for (const g of w.laneGroups(m, [addrOperand(w, fr, ins, 0)])) {
    const at = w.smem(g.xs[0] ?? UNINIT, ins, 'barrier');
    const b = w.sim.cta(at.cta).mbar(at.addr);
    w.event({ k: 'arrive', cta: at.cta, bar: at.addr, count: g.n, loc: ins.loc });
    if (b) {
      b.pending -= g.n;
      completeWithCopies(w, at.cta, at.addr);
    }
  }
}

function laneMatches(vals: readonly Val[], xs: readonly Scalar[], l: number): boolean {
  return vals.every((v, i) => {
    const x = laneOf(v, l);
    const y = xs[i];
    return x === y || (typeof x === 'bigint' && x === y) || (x instanceof SymAddr && y instanceof SymAddr && x.base === y.base && x.offset === y.offset);
  });
}

/**
 * try_wait: passes once the phase completed (the spin loop around it is one wait). test_wait does
 * not wait: while the phase is pending it returns false (a `poll`), and the code decides what to do;
 * once complete it is recorded as the wait it then is, placed where this run's schedule passed it.
 */
function wait(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): Block | undefined {
  const op = ins.op;
  const loc = ins.loc;
  const parityForm = op.mods.has('parity');
  const groups = w.laneGroups(m, [addrOperand(w, fr, ins, 1), operand(w, fr, ins, 2)]);
  const pass: WarpEvent[] = [];
  // a wait of a hung run that the scheduler lets pass, so that the rest of the kernel is recorded
  const forced = w.forcePast;
  w.forcePast = false;
  const polls = op.parts[0] === 'test_wait';
  // A try_wait whose result the code reads (a spin loop's exit, or CUTLASS's consumer_try_wait
  // token) returns false on its first try at each phase of its barrier: PTX lets it whenever the
  // phase was still pending when the warp got there, in some schedule. The code then decides: a
  // spin loop tries again and waits there (one wait); a token may be dropped (the mixed-input
  // mainloop's try on the next stage at its last k-tile) or lead to the wait that consumer_wait
  // makes. Every warp records its wait at the same place, whatever this run's schedule. A try_wait
  // whose result nothing reads is the wait it is written as (a time-out would go unnoticed anyway).
  if (!polls && !forced && resultRead(fr.fn, ins)) {
    let first = false;
    for (const g of groups) {
      const at = w.smem(g.xs[0] ?? UNINIT, ins, 'barrier');
      const phase = w.sim.cta(at.cta).mbar(at.addr)?.phase;
      const site = `${loc.line}:${at.cta}:${at.addr}`;
      if (phase !== undefined && w.triedPhase.get(site) !== phase) {
        w.triedPhase.set(site, phase);
        first = true;
      }
    }
    const here = `${loc.line}:${w.events.length}`;
    if (first) {
      // no yield: the schedule of the run is the one a blocking try would have given
      w.lastFalseTry = here;
      w.sim.triedFalse.add(loc.line);
      w.write(fr, ins.args[0], 0n, m);
      return undefined;
    }
    // tried again with nothing recorded since: a spin loop
    if (w.lastFalseTry === here) w.sim.spunOn.add(loc.line);
  }
  const pending = (b: Block): Block => {
    if (!polls) return b;
    // the phase is pending for some lanes: false for the whole warp (warp-uniform polling loops)
    w.sim.polled.add(loc.line);
    w.write(fr, ins.args[0], 0n, m);
    return { kind: 'poll', loc };
  };
  for (const g of groups) {
    const at = w.smem(g.xs[0] ?? UNINIT, ins, 'barrier');
    if (at.cta !== w.cta) w.unsupported(`'${op.text}' at line ${loc.line} waits on a barrier of another CTA (PTX allows waits on the CTA's own barriers only)`, loc);
    const b = w.sim.cta(at.cta).mbar(at.addr);
    const x = g.xs[1] ?? UNINIT;
    if (parityForm) {
      const parity = w.known(x, 'the parity', ins) & 1;
      // an uninitialised barrier: the model reports it; the run goes on as if it had passed
      if (b && (b.phase & 1) === parity && !forced) return pending({ kind: 'mbar', cta: at.cta, bar: at.addr, parity, loc });
      pass.push({ k: 'wait', cta: at.cta, bar: at.addr, parity, loc });
    } else {
      if (!(x instanceof Token)) w.unsupported(`'${op.text}' at line ${loc.line} waits on a state token that does not come from an arrive (${w.why(x)})`, loc);
      if (x.cta !== at.cta || x.bar !== at.addr) w.unsupported(`'${op.text}' at line ${loc.line} waits with the token of another barrier`, loc);
      if (b && b.phase === x.phase && !forced) return pending({ kind: 'token', cta: at.cta, bar: at.addr, phase: x.phase, site: x.site, loc });
      pass.push({ k: 'wait', cta: at.cta, bar: at.addr, parity: x.phase & 1, token: x.site, loc });
    }
  }
  for (const e of pass) w.event(e);
  // the spin loop around it exits: the wait is one blocking wait that succeeded
  w.write(fr, ins.args[0], 1n, m);
  return undefined;
}

// ---- bulk copies (TMA) ----------------------------------------------------------------------

const MAX_SMEM = 1 << 20;

function bytesOf(w: WarpInterp, x: Scalar, ins: FlatInstr): number {
  const n = w.known(x, 'the byte count', ins);
  if (n <= 0 || n > MAX_SMEM) w.unsupported(`'${ins.op.text}' at line ${ins.loc.line} copies ${n} bytes, which cannot be in shared memory (at most ${MAX_SMEM})`, ins.loc);
  return n;
}

function copy(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  const op = ins.op;
  const p = op.parts;
  const line = ins.loc.line;
  const loc = ins.loc;
  const reduce = p[0] === 'reduce';
  const rest = reduce ? p.slice(1) : p;
  if (rest[0] !== 'async') return w.clobber(fr, ins, m);
  if (rest[1] !== 'bulk') {
    // Ampere cp.async: a write at its issue and again where it is known complete (ampere-copies.ts)
    w.sim.ampereCopies.add(line);
    if (rest[1] === 'mbarrier') {
      landed(w, w.ampere.all(), loc);
      return cpAsyncArrive(w, fr, ins, m);
    }
    if (rest[1] === 'ca' || rest[1] === 'cg') {
      const size = w.read(fr, ins.args[2] ?? { k: 'imm', v: 16n });
      const n = typeof size === 'bigint' ? Number(size) : 16;
      smemRange(w, fr, ins, m, ins.args[0], n, 'write');
      w.ampere.issue(smemLanes(w, fr, ins, m, ins.args[0]).map((x) => ({ cta: x.cta, lo: x.addr, hi: x.addr + n })));
    } else if (rest[1] === 'commit_group') w.ampere.commit();
    else if (rest[1] === 'wait_group') {
      const n = w.read(fr, ins.args[0] ?? { k: 'imm', v: 0n });
      landed(w, w.ampere.waitGroups(Number(w.known(isLanes(n) ? laneOf(n, firstLane(m)) : n, 'the group count', ins))), loc);
    } else if (rest[1] === 'wait_all') {
      w.ampere.commit();
      landed(w, w.ampere.waitGroups(0), loc);
    }
    return;
  }
  const kind = rest[2];
  if (kind === 'commit_group') return void w.event({ k: 'bulk.commit', loc });
  if (kind === 'wait_group') {
    const n = w.read(fr, ins.args[0] ?? { k: 'imm', v: 0n });
    w.event({ k: 'bulk.wait', pending: w.known(isLanes(n) ? laneOf(n, firstLane(m)) : n, 'the group count', ins), loc });
    return;
  }
  if (kind === 'prefetch') return;
  const tensor = kind === 'tensor';
  const spaces = rest.filter((x) => /^(shared|global)/.test(x)).map((x) => x.split('::')[0]);
  const dst = spaces[0];
  const src = spaces[1];
  const a = ins.args;
  if (dst === 'shared' && src === 'shared') w.unsupported(`'${op.text}' at line ${line} (shared-to-shared bulk copies between CTAs are not modelled)`, loc);
  if (dst === 'shared') {
    const multicast = rest.some((x) => x.startsWith('multicast'));
    const dstV = w.address(fr, a[0] ?? { k: 'sink' });
    const srcArg = a[1];
    const srcV = srcArg?.k === 'mem' && srcArg.base ? w.read(fr, srcArg.base) : w.address(fr, srcArg ?? { k: 'sink' });
    const srcAddr = srcArg?.k === 'mem' && !tensor ? w.address(fr, srcArg) : srcV;
    const barV = w.address(fr, a[tensor ? 2 : 3] ?? { k: 'sink' });
    const sizeV = tensor ? 0n : w.read(fr, a[2] ?? { k: 'sink' });
    const maskV: Val = multicast ? w.read(fr, a[tensor ? 3 : 4] ?? { k: 'sink' }) : 0n;
    const coordArgs = srcArg?.k === 'mem' ? (srcArg.coords ?? []) : [];
    const coordVals = coordArgs.map((c) => w.read(fr, c));
    for (const g of w.laneGroups(m, [dstV, barV, sizeV, srcAddr, maskV, ...coordVals])) {
      const [d0 = UNINIT, b0 = UNINIT, s0 = UNINIT, src0 = UNINIT, mask0 = UNINIT, ...cs] = g.xs;
      const dAt = w.smem(d0, ins, 'destination');
      const bAt = w.smem(b0, ins, 'barrier');
      const bytes = tensor ? undefined : bytesOf(w, s0, ins);
      const ctas = multicast ? ctaMask(w, mask0, ins) : [dAt.cta];
      const map = tensor ? mapKey(w, src0) : undefined;
      const srcRef = !tensor && src0 instanceof SymAddr ? { base: src0.base, offset: Number(src0.offset) } : undefined;
      w.event({
        k: 'tma.load', cta: dAt.cta, dst: dAt.addr, ...(bytes !== undefined ? { bytes } : {}), bar: bAt.addr,
        ...(multicast ? { ctas } : {}),
        ...(map !== undefined ? { map } : {}),
        ...(tensor ? { coords: cs.map((c) => (typeof c === 'bigint' ? Number(BigInt.asIntN(32, c)) : undefined)) } : {}),
        ...(srcRef ? { src: srcRef } : {}),
        lane: g.lane, copies: g.n, loc,
      });
      // the copy lands at once in this run: its bytes count on each destination's barrier
      for (const c of ctas) {
        const sync = w.sim.cta(c);
        if (bytes !== undefined) sync.smem.forget(dAt.addr, dAt.addr + bytes);
        if (!sync.mbar(bAt.addr)) continue;
        if (bytes === undefined) {
          const perCta = unsizedCopies.get(sync) ?? new Map<number, number>();
          unsizedCopies.set(sync, perCta);
          perCta.set(bAt.addr, (perCta.get(bAt.addr) ?? 0) + g.n);
        }
        addTx(w, c, bAt.addr, -(bytes ?? 0) * g.n);
      }
    }
    return;
  }
  if (dst === 'global') {
    // TMA store / reduction: reads shared memory asynchronously
    const dstArg = a[0];
    const mapV = tensor && dstArg?.k === 'mem' && dstArg.base ? w.read(fr, dstArg.base) : 0n;
    const srcV = w.address(fr, a[1] ?? { k: 'sink' });
    const sizeV = tensor ? 0n : w.read(fr, a[2] ?? { k: 'sink' });
    for (const g of w.laneGroups(m, [srcV, sizeV, mapV])) {
      const [s0 = UNINIT, z0 = UNINIT, m0 = UNINIT] = g.xs;
      const at = w.smem(s0, ins, 'source');
      const bytes = tensor ? undefined : bytesOf(w, z0, ins);
      const map = tensor ? mapKey(w, m0) : undefined;
      w.event({ k: 'tma.store', cta: at.cta, src: at.addr, ...(bytes !== undefined ? { bytes } : {}), ...(map !== undefined ? { map } : {}), lane: g.lane, copies: g.n, loc });
    }
    return;
  }
  w.clobber(fr, ins, m);
}

/** The CTA ranks of a 16-bit multicast mask. */
function ctaMask(w: WarpInterp, x: Scalar, ins: FlatInstr): number[] {
  const mask = w.known(x, 'the multicast CTA mask', ins) & 0xffff;
  const out: number[] = [];
  for (let r = 0; r < 16; r++) if ((mask >>> r) & 1) out.push(r);
  const n = w.sim.ctas.length;
  if (out.some((r) => r >= n)) w.unsupported(`'${ins.op.text}' at line ${ins.loc.line} multicasts to CTA ${out.find((r) => r >= n)} of a ${n}-CTA cluster (give the cluster shape with --cluster)`, ins.loc);
  return out;
}

// ---- wgmma ---------------------------------------------------------------------------------

function wgmma(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): Block | undefined {
  const kind = ins.op.parts[0];
  const lane = firstLane(m);
  const loc = ins.loc;
  const key = `${w.cta}:${w.warp}`;
  if (kind === 'commit_group') {
    w.sim.wgmmaCommits.set(key, (w.sim.wgmmaCommits.get(key) ?? 0) + 1);
    w.event({ k: 'wgmma.commit', ...(w.loads.none ? { settled: true } : {}), loc });
  } else if (kind === 'wait_group') {
    const n = w.read(fr, ins.args[0] ?? { k: 'imm', v: 0n });
    const pending = w.known(laneOf(n, lane), 'the group count', ins);
    // the groups up to `groups` retire only once every warp of the warpgroup committed them: the
    // run waits for that, as the hardware does (a side of a branch on data cannot wait; a hung
    // run's scheduler may let the wait pass, as it does mbarrier waits)
    const groups = (w.sim.wgmmaCommits.get(key) ?? 0) - pending;
    const forced = w.forcePast;
    w.forcePast = false;
    if (!forced && !w.forking && groups > 0 && !w.sim.wgmmaCoupled(w.cta, w.warp, groups)) return { kind: 'wgmma', cta: w.cta, warp: w.warp, groups, loc };
    w.event({ k: 'wgmma.wait', pending, loc });
  } else if (kind === 'mma_async') {
    const descs: { desc: bigint; operand: 'a' | 'b' }[] = [];
    for (const [i, operand] of [[1, 'a'], [2, 'b']] as const) {
      const arg = ins.args[i];
      if (!arg || arg.k === 'vec') continue; // A from registers
      const d = laneOf(w.read(fr, arg), lane);
      if (typeof d !== 'bigint') w.unsupported(`the shared-memory descriptor of '${ins.op.text}' at line ${loc.line} depends on ${w.why(d)}`, loc);
      descs.push({ desc: d, operand });
    }
    const shape = ins.op.parts.find((p) => /^m\d+n\d+k\d+$/.test(p)) ?? '';
    const types = ins.op.parts.filter((p) => /^(f16|bf16|tf32|e4m3|e5m2|f32|s8|u8|s32|b1)$/.test(p));
    // f16/bf16 take transpose immediates after the scales: trans-a (with A in shared memory), trans-b
    const imm = (i: number): boolean => {
      const x = ins.args[i];
      return x?.k === 'imm' && x.v !== 0n;
    };
    const aInRegs = ins.args[1]?.k === 'vec';
    const half = types.includes('f16') || types.includes('bf16');
    const n = ins.args.length;
    const mnMajor = half ? { a: !aInRegs && n >= 8 && imm(6), b: imm(n - 1) && n >= 7 } : { a: false, b: false };
    w.event({ k: 'mma', cta: w.cta, addrs: descs.map((d) => Number((d.desc & 0x3fffn) << 4n)), descs, shape, types, mnMajor, loc });
    w.clobber(fr, ins, m);
  }
}

// ---- named and cluster barriers --------------------------------------------------------------

function barrier(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): Block | undefined {
  const p = ins.op.parts;
  const loc = ins.loc;
  if (p.includes('warp')) return undefined; // bar.warp.sync: within the warp
  if (p[0] === 'cluster') {
    const threads = popcount(w.live);
    if (p.includes('arrive')) {
      w.clusterArrival = w.sim.arriveCluster(threads);
      return undefined;
    }
    if (p.includes('wait')) {
      if (w.clusterArrival === undefined) w.unsupported(`'${ins.op.text}' at line ${loc.line} waits on the cluster barrier without having arrived`, loc);
      if (w.sim.clusterGeneration > w.clusterArrival) {
        w.clusterArrival = undefined;
        w.event({ k: 'cluster.sync', loc });
        return undefined;
      }
      return { kind: 'cluster', generation: w.clusterArrival, loc };
    }
    return undefined;
  }
  const red = p.includes('red');
  const arriveOnly = p.includes('arrive');
  const a = ins.args;
  const idArg = a[red ? 1 : 0];
  const countArg = red ? (a.length >= 4 ? a[2] : undefined) : a[1];
  const lane = firstLane(m);
  const id = w.known(laneOf(w.read(fr, idArg ?? { k: 'imm', v: 0n }), lane), 'the barrier id', ins);
  const threads = countArg ? w.known(laneOf(w.read(fr, countArg), lane), 'the thread count', ins) : undefined;
  const cta = w.sim.cta(w.cta);
  if (w.waitingGeneration !== undefined) {
    // resumed at the bar.sync it arrived at: the barrier completed
    w.waitingGeneration = undefined;
    if (red) w.clobber(fr, ins, m);
    return undefined;
  }
  w.event({ k: arriveOnly ? 'bar.arrive' : 'bar.sync', id, ...(threads !== undefined ? { threads } : {}), loc });
  // per-warp arrival: the warp's non-exited threads
  const gen = cta.arriveNamed(id, popcount(w.live), threads ?? 0);
  if (red) w.clobber(fr, ins, m);
  if (arriveOnly || cta.namedBarrier(id).generation > gen) return undefined;
  w.waitingGeneration = gen;
  return { kind: 'named', cta: w.cta, id, generation: gen, loc };
}

// ---- mapa ------------------------------------------------------------------------------------

/** `mapa.shared::cluster d, a, rank`: the address of the same shared variable in CTA `rank`. */
function mapa(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  const [d, a0, r0] = ins.args;
  const av = a0 ? w.address(fr, a0) : UNINIT;
  const rv = r0 ? w.read(fr, r0) : UNINIT;
  w.write(fr, d, w.map(m, [av, rv], ([x = UNINIT, rank = UNINIT]) => {
    if (typeof rank !== 'bigint') return new Unknown(`the CTA rank of '${ins.op.text}' at line ${ins.loc.line}`);
    if (Number(rank) >= w.sim.ctas.length) return new Unknown(`an address in CTA ${rank} of a ${w.sim.ctas.length}-CTA cluster ('${ins.op.text}' at line ${ins.loc.line}; give the cluster shape with --cluster)`);
    if (typeof x !== 'bigint') return x instanceof Unknown ? x : new Unknown(w.why(x));
    const at = w.smem(x, ins, 'source');
    return u(CLUSTER_BASE + BigInt(Number(rank) * CTA_WINDOW + at.addr), 64);
  }), m);
}

export type { Arg };
