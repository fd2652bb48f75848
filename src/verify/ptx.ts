// Verifying a PTX kernel: lift it at the launch values of a bounded sweep (the caller's, defaults
// for the rest, the depth-driving values raised — ptx/lift/sweep.ts), check each lifted program,
// and report the worst verdict with what it covers and what the lifter assumed.
import { deadBarrierNote } from './dead-barriers.ts';
import { checkSettingAsideDoubleInits } from './set-aside.ts';
import { InputError } from '../diag.ts';
import { forEachOp, type Program } from '../ir/program.ts';
import { pickKernel, type LiftFacts, type LiftOptions } from '../ptx/lift/lift.ts';
import { CTA_INDEX, resolveBoxKey, wholeArray } from '../ptx/lift/launch.ts';
import { explainCtaExit } from '../ptx/lift/cta-exit.ts';
import { liftLaunchPoints, shortKey, type LaunchPoint } from '../ptx/lift/sweep.ts';
import type { PtxFunction, PtxModule, Statement } from '../ptx/parse/ast.ts';
import type { Report } from './report.ts';

/** Check every launch point with `checkOne`; the worst report, combined, and the program it is for. */
export function verifyPtxModule(
  module: PtxModule,
  file: string,
  options: LiftOptions,
  sweep: boolean,
  checkOne: (program: Program) => Report,
  /** the box sizes the user named (a map no copy goes through is an error); default: all of options.tmaBoxes */
  namedBoxes: readonly string[] = [...(options.tmaBoxes?.keys() ?? [])],
): { report: Report; program: Program; point: string } {
  const kernel = pickKernel(module, options.kernel);
  const points = liftLaunchPoints(module, { ...options, kernel: kernel.name }, sweep);
  const params = kernel.params.map((p) => p.name);
  unknownBoxes(namedBoxes, points, kernel, params);
  const reports = points.map((p) => ({ point: p, report: checkSettingAsideDoubleInits(p.program, checkOne) }));
  // of the violations, the first with the most kinds (a check past a dead double init can add some)
  const violated = reports.filter((r) => r.report.verdict === 'violation');
  const most = violated.reduce<(typeof reports)[number] | undefined>((a, r) => (a && a.report.violations.length >= r.report.violations.length ? a : r), undefined);
  const worst = most ?? reports.find((r) => r.report.verdict === 'inconclusive') ?? reports[reports.length - 1];
  if (!worst) throw new InputError(`${file}: nothing to check`);
  return { report: combine(worst.report, reports.map((r) => r.report), points, worst.point, kernel), program: worst.point.program, point: worst.point.label };
}

/** Instructions of a kernel's body (nested blocks included) whose opcode starts with `prefix`. */
function countOps(body: readonly Statement[] | undefined, prefix: string): number {
  let n = 0;
  for (const st of body ?? []) {
    if (st.kind === 'instr' && st.opcode.startsWith(prefix)) n++;
    else if (st.kind === 'block') n += countOps(st.body, prefix);
  }
  return n;
}

/**
 * A kernel with TMA copies or wgmma whose runs issued none at every launch point did no tile: its
 * tile count came out 0 at these launch values (CUTLASS's grouped and blockwise-scaled kernels read
 * theirs through 64-bit scheduler fields, which default to 0). Whatever the verdict, it covers the
 * prologue only: say so, and which 64-bit fields were left at 0.
 */
export function idleNote(points: readonly LaunchPoint[], kernel: PtxFunction): string | undefined {
  const copies = countOps(kernel.body, 'cp.async.bulk.tensor');
  const mmas = countOps(kernel.body, 'wgmma.mma_async');
  if (copies + mmas === 0) return undefined;
  let busy = false;
  for (const p of points)
    forEachOp(p.program, (op) => {
      busy ||= op.kind === 'tma.load' || op.kind === 'wgmma.issue';
    });
  if (busy) return undefined;
  const params = kernel.params.map((p) => p.name);
  const zeros = [...new Set(points.flatMap((p) => p.facts.launch.filter((l) => !l.given && l.v.bytes === 8 && l.v.kind === 'int' && l.value === '0').map((l) => shortKey(l.v.key, params))))];
  const shown = zeros.length > 12 ? `${zeros.slice(0, 12).join(', ')}, …` : zeros.join(', ');
  return `no warp issued a TMA copy or a wgmma at any launch point, though the kernel has ${copies} tensor copies and ${mmas} wgmma: at these launch values no CTA had a tile, so this verdict covers the prologue only${zeros.length > 0 ? `; 64-bit fields left at 0 (a tile scheduler's counts and divisors may be among them): ${shown} — give them with --param NAME+OFFSET:u64=V` : ''}`;
}

/** A note when, at launch point `at`, some CTA of the cluster had no tile while another had one (lift.ts `idleCtas`). */
export function idleCtaNote(at: LaunchPoint): string | undefined {
  const idle = at.facts.idleCtas ?? [];
  if (idle.length === 0) return undefined;
  const which = idle.length === 1 ? `CTA ${idle[0]} of the cluster` : `CTAs ${idle.join(', ')} of the cluster`;
  return `at ${at.label}, ${which} issued no TMA copy and no wgmma while another CTA did: these launch values leave it without a tile; a host that rounds the tile count up to the cluster size (CUTLASS, FlashAttention-3) never launches them — give the tile count with --param if the verdict rests on it`;
}

/**
 * A note when no barrier is waited at both parities at any launch point: no ring wrapped, so a
 * parity that is wrong from the second round on cannot show. Said only for a kernel that waits
 * inside a loop (`waitsInALoop`), where every wait names a constant barrier and parity (a wait on
 * a token names a phase, not a parity), and not beside a violation (a ring that wrapped without
 * flipping its parity is one).
 */
export function shallowNote(points: readonly LaunchPoint[], kernel: PtxFunction): string | undefined {
  if (!waitsInALoop(kernel)) return undefined; // one-shot barriers only: there is no second round
  const parities = new Map<string, number>();
  let opaque = false;
  for (const p of points)
    forEachOp(p.program, (op) => {
      if (op.kind === 'wait.token') opaque = true;
      if (op.kind !== 'wait') return;
      if (op.target.index.kind !== 'num' || op.parity.kind !== 'num') opaque = true;
      else {
        const key = `${op.target.name}[${op.target.index.value}]`;
        parities.set(key, (parities.get(key) ?? 0) | (1 << (op.parity.value & 1)));
      }
    });
  if (opaque || parities.size === 0 || [...parities.values()].some((bits) => bits === 3)) return undefined;
  return 'no barrier is waited at both parities at any launch point checked: no ring wrapped, so a parity that goes wrong from the second round on cannot show here — give larger launch values with --param (or a later CTA with --cta)';
}

/**
 * Whether the kernel waits on an mbarrier inside a loop other than a wait's own spin: a backward
 * branch whose span holds a wait and some other synchronization (an arrive, a copy, a wgmma,
 * another wait). A kernel whose barriers are each used once (FlashAttention-3's dQ conversion)
 * has no round after the first to miss. Branch targets are found as the nearest label of that
 * name before the branch (inline assembly repeats its local labels, block by block).
 */
export function waitsInALoop(kernel: PtxFunction): boolean {
  const flat: { label?: string; opcode?: string; target?: string }[] = [];
  const walk = (body: readonly Statement[] | undefined): void => {
    for (const st of body ?? []) {
      if (st.kind === 'label') flat.push({ label: st.name });
      else if (st.kind === 'block') walk(st.body);
      else if (st.kind === 'instr') {
        const last = st.operands[st.operands.length - 1];
        flat.push({ opcode: st.opcode, ...(st.opcode.startsWith('bra') && last?.kind === 'name' ? { target: last.name } : {}) });
      }
    }
  };
  walk(kernel.body);
  const sync = (op: string): boolean => /^(mbarrier\.|cp\.async\.bulk|wgmma\.|bar\.|barrier\.)/.test(op);
  const wait = (op: string): boolean => /^mbarrier\.(try|test)_wait/.test(op);
  for (let i = 0; i < flat.length; i++) {
    const target = flat[i]?.target;
    if (target === undefined) continue;
    let t = i - 1;
    while (t >= 0 && flat[t]?.label !== target) t--;
    if (t < 0) continue; // a forward branch
    const ops = flat.slice(t, i).flatMap((x) => (x.opcode !== undefined && sync(x.opcode) ? [x.opcode] : []));
    if (ops.some(wait) && ops.length >= 2) return true;
  }
  return false;
}

/** A `--tma-box` that names no tensor map the kernel copies through is a mistake: say so, with the maps it has. */
function unknownBoxes(named: readonly string[], points: readonly LaunchPoint[], kernel: PtxFunction, params: readonly string[]): void {
  const maps = new Set(points.flatMap((p) => p.facts.tensorMaps));
  for (const given of named) {
    const key = resolveBoxKey(kernel, given);
    if (maps.has(key) || maps.has(`${key}+0`) || maps.has(key.replace(/\+0$/, ''))) continue;
    const known = [...maps].map((m) => shortKey(m, params));
    throw new InputError(`--tma-box ${given}: no TMA copy of kernel ${kernel.name} goes through that tensor map (${known.length > 0 ? `its maps: ${known.join(', ')}` : 'none of its copies needs a box size'})`);
  }
}

function combine(worst: Report, all: readonly Report[], points: readonly LaunchPoint[], at: LaunchPoint, kernel: PtxFunction): Report {
  const params = kernel.params.map((p) => p.name);
  const sum = (f: (r: Report) => number): number => all.reduce((a, r) => a + f(r), 0);
  const stats = {
    ...worst.stats,
    states: sum((r) => r.stats.states),
    transitions: sum((r) => r.stats.transitions),
    ms: sum((r) => r.stats.ms),
  };
  const open = at.facts.launch.filter((l) => !l.given);
  const verdicts = points.length > 1 ? [`verdict by launch: ${points.map((p, i) => `${p.label}: ${all[i]?.verdict ?? '?'}`).join('; ')}`] : [];
  const idle = idleNote(points, kernel);
  const idleCta = idleCtaNote(at);
  const dead = deadBarrierNote(at.program);
  const shallow = worst.verdict === 'violation' ? undefined : shallowNote(points, kernel);
  const notes = [...(worst.notes ?? []), ...launchNotes(points, at, params), ...(idle ? [idle] : []), ...(idleCta ? [idleCta] : []), ...(dead ? [dead] : []), ...(shallow ? [shallow] : []), ...verdicts];
  const scope =
    points.length > 1
      ? `for ${points.length} launch assignments (a bounded sweep, not every launch)`
      : open.length > 0
        ? 'for one launch assignment (launch values not given take defaults)'
        : undefined;
  const exits = at.facts.ctaExits ?? [];
  const violations = exits.length > 0 ? worst.violations.map((v) => ({ ...v, message: explainCtaExit(v.message, exits) })) : worst.violations;
  return { ...worst, violations, stats: { ...stats, statesPerSecond: stats.ms > 0 ? (stats.states * 1000) / stats.ms : 0 }, notes, ...(scope ? { scope } : {}) };
}

/** What the verdict rests on: the launch points, the values assumed, the sizes inferred. */
export function launchNotes(points: readonly LaunchPoint[], at: LaunchPoint, params: readonly string[]): string[] {
  const key = (k: string): string => shortKey(k, params);
  const out: string[] = [];
  const byCta = points.some((p) => p.label.includes(CTA_INDEX)) ? `; ${CTA_INDEX} with --cta N` : '';
  if (points.length > 1) out.push(`launch values checked: ${points.map((p) => p.label).join('; ')} (fix any with --param NAME+OFFSET:TYPE=V${byCta})`);
  if (at.label !== 'defaults' && points.length > 1) out.push(`this report is for: ${at.label}`);
  const facts: LiftFacts = at.facts;
  // the elements of one launch array read alike are one entry: `6[*]=1 (128 elements)`
  const open = new Map<string, { values: Set<string>; n: number }>();
  for (const l of facts.launch) {
    if (l.given) continue;
    const k = l.v.element === undefined ? l.v.key : wholeArray(l.v.key);
    const e = open.get(k) ?? { values: new Set<string>(), n: 0 };
    e.values.add(l.value);
    e.n += 1;
    open.set(k, e);
  }
  if (open.size > 0) {
    const shown = [...open].slice(0, 10).map(([k, e]) => `${key(k)}=${[...e.values].join('|')}${e.n > 1 ? ` (${e.n} elements)` : ''}`);
    out.push(`launch values not given (${open.size}): ${shown.join(', ')}${open.size > shown.length ? ', …' : ''}`);
  }
  const inert = facts.inert.filter((k) => !facts.launch.some((l) => l.v.key === k && l.given));
  if (inert.length > 0) {
    const shown = inert.slice(0, 10).map(key);
    out.push(`inert launch values (${inert.length}): ${shown.join(', ')}${inert.length > shown.length ? ', …' : ''} — they decide nothing the lifter records (a forward slice over the PTX), so the verdict holds for every value of them`);
  }
  // a given value no launch point read is a typo or an element named by its index, not its byte offset
  for (const k of facts.unread ?? []) {
    if (!points.every((p) => p.facts.unread?.includes(k))) continue;
    const array = wholeArray(k);
    const siblings = array === k ? [] : [...new Set(points.flatMap((p) => p.facts.launch.map((l) => l.v.key)))].filter((x) => wholeArray(x) === array);
    const read = siblings.length > 0 ? `; of that array it read ${siblings.slice(0, 6).map(key).join(', ')}${siblings.length > 6 ? ', …' : ''} (an element is named by its byte offset)` : '';
    out.push(`--param ${key(k)} was given, but the kernel read no such launch value at any launch point${read}`);
  }
  if (facts.grid.some((g) => g > 1) || facts.cluster.some((c) => c > 1)) out.push(`grid ${facts.grid.join('×')}, cluster ${facts.cluster.join('×')}`);
  if (facts.clusterNote) out.push(facts.clusterNote);
  if (facts.defaultInt) out.push(`integer launch values not given are ${facts.defaultInt.value}, not 1: ${facts.defaultInt.why} (give them with --param)`);
  for (const m of facts.tma)
    out.push(m.how === 'given' ? `TMA box of ${key(m.map)}: ${m.bytes} bytes, as given (--tma-box, --ttgir or --triton-cache)` : m.how === 'descriptor' ? `TMA box of ${key(m.map)}: ${m.bytes} bytes, from the descriptor the kernel builds (tensormap.replace of its rank, box and element type)` : `TMA box of ${key(m.map)}: ${m.bytes} bytes, inferred from the ${m.how}${m.at ? ` at ${m.at}` : ''} (give --tma-box ${key(m.map)}=BYTES)`);
  for (const t of facts.assumedTx ?? []) out.push(`expect_tx at line${t.lines.length > 1 ? 's' : ''} ${t.lines.join(', ')}: its byte count ${t.from === 'a launch value' ? 'comes from a launch value' : `is launch value ${key(t.from)}`}, taken as ${t.bytes} (what its copies deliver), so that expect_tx is not checked`);
  for (const c of facts.counters ?? [])
    out.push(
      `atom.global.add at line${c.lines.length > 1 ? 's' : ''} ${c.lines.join(', ')}: a counter in global memory (a work queue), taken to start at 0 and to be advanced by this launch alone (${c.adds} add${c.adds === 1 ? '' : 's'}); this CTA takes tiles 0, 1, 2, … (the tiles other CTAs would take are not modelled)`,
    );
  const lagging = facts.lagging ?? [];
  if (lagging.length > 0) {
    const lines = [...new Set(lagging.flatMap((l) => l.lines))].sort((a, b) => a - b);
    const shown = lagging.slice(0, 3).map((l) => `${l.role} for ${l.of}`).join(', ');
    out.push(
      `warps that signal at different places and may lag each other are folded into one role each, beside a lag role standing for a warp that lags (${shown}${lagging.length > 3 ? `, and ${lagging.length - 3} more` : ''}): it makes the waits at line${lines.length > 1 ? 's' : ''} ${lines.join(', ')} again, up to where every warp must be past them, so that a missed phase shows (docs/ptx.md, "Warps that lag")`,
    );
  }
  for (const sp of facts.spins ?? [])
    out.push(
      `the loop at lines ${sp.flag}–${sp.line} spins on a flag in global memory (ld at line ${sp.flag}) that another CTA sets: that CTA is not modelled, so the loop is taken to end (${sp.times} time${sp.times === 1 ? '' : 's'}); this synchronization through global memory is assumed, not checked`,
    );
  const updates = facts.descriptorUpdates ?? [];
  if (updates.length > 0) {
    const shown = updates.length > 8 ? `${updates.slice(0, 8).join(', ')}, …` : updates.join(', ');
    out.push(
      `tensormap.* at line${updates.length > 1 ? 's' : ''} ${shown}: the kernel rewrites TMA descriptors in global memory; their staging in shared memory is checked as writes and reads, and a box the kernel sets in full is the box of the copies through that descriptor, but the tensormap proxy fences are not modelled: each copy is taken to use the descriptor meant for it`,
    );
  }
  const polled = facts.polled ?? [];
  if (polled.length > 0) {
    out.push(
      `test_wait at line${polled.length > 1 ? 's' : ''} ${polled.join(', ')} is polled (it returned false while its phase was pending, and the kernel went on with other work): its outcomes depend on timing, and the program follows those of the lifter's one schedule, each true one a wait where it fell; other orders of the polled work are not checked`,
    );
  }
  const remote = facts.remoteAccesses ?? [];
  if (remote.length > 0) {
    const shown = remote.length > 8 ? `${remote.slice(0, 8).join(', ')}, …` : remote.join(', ');
    out.push(
      `line${remote.length > 1 ? 's' : ''} ${shown} access${remote.length > 1 ? '' : 'es'} another CTA's shared memory (distributed shared memory): their order with that CTA's own accesses is checked, and that they come before that CTA's exit (see the next note)`,
    );
  }
  const exits = facts.ctaExits ?? [];
  if (exits.length > 0) {
    const names = exits.map((e) => `CTA ${e.cta}`).join(', ');
    out.push(
      `${names} ${exits.length > 1 ? 'are' : 'is'} touched by another CTA of the cluster (remote arrives, distributed shared memory): each must not exit while that goes on, so the program adds ${exits.map((e) => `${e.alive}/${e.exit}`).join(', ')} — the CTA's roles end with an arrive on its exit barrier, its first role then waits on it and writes its slot (the exit), and a remote operation reads the slot (before an arrive, after a run of accesses), so one that nothing orders before the exit is a race; multicast copies landing in the CTA are not counted (its own waits for their bytes order them)`,
    );
  }
  const ampere = facts.ampereCopies ?? [];
  if (ampere.length > 0) {
    const shown = ampere.length > 8 ? `${ampere.slice(0, 8).join(', ')}, …` : ampere.join(', ');
    out.push(
      `Ampere cp.async at line${ampere.length > 1 ? 's' : ''} ${shown}: each copy writes its bytes at its issue and again where it is known complete (the cp.async.wait_group, wait_all or cp.async.mbarrier.arrive that covers it), so another warp's access in between is a race; a read by the issuing warp itself before that point is not reported`,
    );
  }
  const invals = facts.droppedInvals ?? [];
  if (invals.length > 0) {
    out.push(
      `mbarrier.inval at line${invals.length > 1 ? 's' : ''} ${invals.join(', ')} runs on one side of a branch on data (which thread invalidates is decided at run time, as in a last-one-out teardown: libcu++'s cuda::pipeline): the invalidation is left out of the program, so a use of those barriers after it is not checked`,
    );
  }
  const tried = facts.triedFalse ?? [];
  if (tried.length > 0) {
    const shown = tried.length > 8 ? `${tried.slice(0, 8).join(', ')}, …` : tried.join(', ');
    out.push(
      `try_wait at line${tried.length > 1 ? 's' : ''} ${shown} is not in a spin loop: its first try at each phase returns false (the phase may still be pending when the warp gets there, in some schedule), and the kernel goes on as that result decides (CUTLASS's consumer_try_wait token: the wait consumer_wait then makes, or none if the token is dropped)`,
    );
  }
  if (facts.stuck) out.push(`the concrete run hung (${facts.stuck})${facts.forcedWaits ? `; ${facts.forcedWaits} waits were let past to record the rest` : ''}`);
  return out;
}
