// A bounded sweep of the launch values the user did not give. One concrete run at the defaults
// (every integer 1) covers one k-block and one tile: a ring that never wraps proves nothing about
// parities. The sweep finds the integer launch values that drive the pipeline's depth — raising
// one alone adds mbarrier waits — and lifts one more program per such value, raised (alone) until
// some warp waits on one barrier three times (the ring wrapped twice) or the run grows past a
// budget; then, on top of that, the cheapest open value that adds waits (a second loop, such as a
// persistent kernel's tiles, run twice). The verdict holds for exactly these launch assignments, and
// is reported as a sweep.
import { InputError } from '../../diag.ts';
import type { Program } from '../../ir/program.ts';
import type { PtxModule } from '../parse/ast.ts';
import type { WarpEvent } from './events.ts';
import { mergeRanges } from './footprint.ts';
import { CTA_INDEX, wholeArray, type LaunchVar } from './launch.ts';
import { EventBudgetExceeded } from './warp.ts';
import { idleCtas, launchAssignment, prepare, programOfTrace, traceWith, type KernelTrace, type LiftFacts, type LiftOptions } from './lift.ts';
import { launchRelevance, runRelevance } from './inert.ts';
import { shareBoxes } from './shared-boxes.ts';

export interface LaunchPoint {
  /** `defaults`, or the swept value: `params+1408 = 1024` */
  readonly label: string;
  readonly program: Program;
  readonly facts: LiftFacts;
}

/** Probe values, ascending: element counts (K = 1024 is 16 k-blocks of 64) and tile counts alike. */
export const LADDER = [2n, 3n, 4n, 6n, 8n, 12n, 16n, 24n, 32n, 48n, 64n, 96n, 128n, 192n, 256n, 384n, 512n, 768n, 1024n, 1536n, 2048n, 3072n, 4096n] as const;
/** A probe run may execute this many instructions (the defaults' run gets the user's budget). */
const PROBE_STEPS = 1_000_000;
/** A swept run may record this many events (the model grows with them). */
export const MAX_EVENTS = 6_000;
/** Ladder steps a balanced point may raise its other value by. */
const BALANCE_STEPS = 8;
/** Rounds of raising one more value on top of the last one chosen. */
const MAX_ROUNDS = 3;
/** Phases waited on every barrier that grew (by the warp that waits most on it): each ring wrapped, both parities waited. */
const DEEP = 2;

interface Probe {
  readonly trace: KernelTrace;
  readonly events: number;
  readonly waits: number;
  /** per barrier, the most phases one warp waited for on it */
  readonly most: ReadonlyMap<string, number>;
  /** per barrier, the parities its waits named, over all warps (bit p: parity p) */
  readonly parities: ReadonlyMap<string, number>;
  /**
   * A CTA of the cluster had no tile while another had one (lift.ts `idleCtas`): a launch a host
   * that rounds the tile count up to the cluster never makes, so no point is made of it (the
   * ladder goes on past it); a peer that multicasts to that CTA hangs there.
   */
  readonly idle: boolean;
}

function measure(trace: KernelTrace): Probe {
  let events = 0;
  let waits = 0;
  // per barrier, the most waits one warp made on it; depth is the least over waited barriers
  const most = new Map<string, number>();
  const parities = new Map<string, number>();
  for (const w of trace.warps) {
    events += w.length;
    // phases a warp waited for: a run of waits with one parity is one phase (fast.cu waits twice
    // per phase, on two tokens); the count grows when the parity changes, that is when the ring wrapped
    const per = new Map<string, { phases: number; parity: number }>();
    for (const e of w as readonly WarpEvent[]) {
      if (e.k !== 'wait') continue;
      waits++;
      const k = `${e.cta}:${e.bar}`;
      const last = per.get(k);
      const phases = last === undefined ? 1 : last.phases + (last.parity === e.parity ? 0 : 1);
      per.set(k, { phases, parity: e.parity });
      most.set(k, Math.max(most.get(k) ?? 0, phases));
      parities.set(k, (parities.get(k) ?? 0) | (1 << (e.parity & 1)));
    }
  }
  return { trace, events, waits, most, parities, idle: idleCtas(trace).length > 0 };
}

/**
 * How deep a run drove the barriers a raised value made it wait on more than `base` did: the
 * least, over those barriers, of the most waits one warp made on one. A barrier waited once by
 * design (a one-shot "ready") does not grow and does not count.
 */
function depthOver(run: Probe, base: Probe | undefined): number {
  let depth = Infinity;
  for (const [k, n] of run.most) if (n > (base?.most.get(k) ?? 0)) depth = Math.min(depth, n);
  return Number.isFinite(depth) ? depth : 0;
}

/**
 * What one probe gives: a run, `TOO_BIG` when it recorded more than MAX_EVENTS events (stopped
 * there: such a point is never chosen, and running it on costs tens of seconds on FA3), or
 * undefined when the kernel cannot run with these values (a budget, a refusal).
 */
const TOO_BIG = 'too big';
type Outcome = Probe | typeof TOO_BIG | undefined;

/** One probe run per assignment: the greedy rounds, the widening and the balance ask for the same ones. */
type Look = (values: ReadonlyMap<string, bigint>) => Outcome;

/**
 * The probe of each assignment looked at, and the assignment. An entry `same` was not run: it
 * changes one value that the run `same` uses only as data (inert.ts `runRelevance`), so it would
 * repeat that run; it is run for real before anything is made of it (`look`, `uncovered`).
 */
type Probed = Map<string, { readonly values: ReadonlyMap<string, bigint>; readonly run: Outcome; readonly same?: true }>;

const keyOf = (values: ReadonlyMap<string, bigint>): string => [...values].map(([k, x]) => `${k}=${x}`).sort().join(',');

function prober(p: ReturnType<typeof prepare>, options: LiftOptions, memo: Probed): Look {
  return (values) => {
    const key = keyOf(values);
    const hit = memo.get(key);
    if (hit && !hit.same) return hit.run;
    const run = probe(p, options, values);
    memo.set(key, { values, run });
    return run;
  };
}

/**
 * Whether raising launch value `v` alone on top of `run` would repeat `run` (its path uses v as
 * data only: inert.ts `runRelevance`). Then the probes at `values` (v raised) are noted as
 * repeating it rather than run: every test the sweep makes of them would give what it gives of
 * `run` itself, which adds no wait and drives nothing.
 */
function repeats(memo: Probed, run: Probe, base: ReadonlyMap<string, bigint>, v: LaunchVar, values: readonly bigint[]): boolean {
  const trace = run.trace;
  if (!runRelevance(trace.flat, trace.flats.values(), v, trace.run.executed).inert) return false;
  for (const value of values) {
    const raised = new Map([...base, [v.key, value]]);
    const key = keyOf(raised);
    if (!memo.has(key)) memo.set(key, { values: raised, run, same: true });
  }
  return true;
}

function probe(p: ReturnType<typeof prepare>, options: LiftOptions, values: ReadonlyMap<string, bigint>): Outcome {
  try {
    return measure(traceWith(p, { ...options, maxSteps: PROBE_STEPS, maxEvents: MAX_EVENTS }, values));
  } catch (e) {
    if (e instanceof EventBudgetExceeded) return TOO_BIG;
    if (e instanceof InputError) return undefined;
    throw e;
  }
}

/** A run a point may be made of: one that ran and stayed within MAX_EVENTS. */
function usable(run: Outcome): run is Probe {
  return run !== undefined && run !== TOO_BIG;
}

/**
 * The programs of a bounded launch sweep: the user's values with defaults for the rest, then
 * one point per depth-driving launch value left open. `sweep: false` gives the first only.
 */
export function liftLaunchPoints(module: PtxModule, requested: LiftOptions, sweep = true): LaunchPoint[] {
  const p = prepare(module, requested);
  const given = launchAssignment(p.kernel, requested);
  const { options, base } = defaultsRun(p, requested, given);
  const probed: Probed = new Map();
  const look = prober(p, options, probed);
  const points: Lifted[] = [{ label: 'defaults', trace: base, ...programOfTrace(module, base, options) }];
  if (!sweep) return withoutTraces(points);
  const done = (): LaunchPoint[] => withoutTraces(shareBoxes(points, options, (trace, o) => programOfTrace(module, trace, o)));
  let cur: { values: ReadonlyMap<string, bigint>; run: Probe; depth: number } = { values: given, run: measure(base), depth: 0 };
  const baseRun = cur.run;
  // the points chosen, lifted at the end (a cheaper balanced point may replace the costly ones)
  const chosen: { run: Probe; values: ReadonlyMap<string, bigint> }[] = [];
  const labelOf = (values: ReadonlyMap<string, bigint>): string =>
    [...values].filter(([k]) => !given.has(k)).map(([k, x]) => `${shortKey(k, p.kernel.params.map((q) => q.name))} = ${x}`).join(', ');
  // greedy and bounded: raise each open value alone on top of the current assignment; keep the
  // one that deepens the pipeline most and look again (a tile loop that now runs reads new values)
  for (let round = 0; round < MAX_ROUNDS && cur.depth < DEEP; round++) {
    const open = openIntegers(cur.run, cur.values);
    let next: { values: ReadonlyMap<string, bigint>; run: Probe; depth: number } | undefined;
    for (const { v } of open) {
      // an inert value lifts to this same program at every value (inert.ts): nothing to probe
      if (launchRelevance(cur.run.trace.flat, cur.run.trace.flats.values(), v).inert) continue;
      // nor one this run uses as data only: raised alone it repeats this run
      if (repeats(probed, cur.run, cur.values, v, QUICK)) continue;
      // a quick look first: a value that changes nothing at 64 or at 4096 drives nothing (4096 is
      // probed only when 64 changed nothing: 4096 tiles of FA3 run to the probe's budget)
      const unchanged = (value: bigint): boolean => {
        const run = look(new Map([...cur.values, [v.key, value]]));
        return usable(run) && run.waits === cur.run.waits;
      };
      if (unchanged(64n) && unchanged(4096n)) continue;
      let best: { value: bigint; run: Probe; depth: number } | undefined;
      for (const value of LADDER) {
        const run = look(new Map([...cur.values, [v.key, value]]));
        if (!usable(run)) break;
        if (run.idle) continue;
        const depth = depthOver(run, cur.run);
        if (run.waits > (best?.run.waits ?? cur.run.waits)) best = { value, run, depth };
        if (depth >= DEEP) break;
      }
      if (!best) continue;
      const values = new Map([...cur.values, [v.key, best.value]]);
      // the deepest; among equals the cheapest
      if (!next || best.depth > next.depth || (best.depth === next.depth && best.run.events < next.run.events)) next = { values, run: best.run, depth: best.depth };
    }
    if (!next) break;
    chosen.push(next);
    cur = next;
  }
  // a second loop the deep point ran once (a persistent kernel's tile loop over M and N): the
  // cheapest open value that adds waits on top of it runs that loop twice, so what one iteration
  // leaves behind for the next (an epilogue buffer a TMA store still reads) is checked too
  if (chosen.length > 0) {
    const wide = widen(look, cur.run, cur.values, probed);
    if (wide) chosen.push(wide);
  }
  if (chosen.length === 0) {
    // no single value drives the pipeline (M6 of fast.cu needs M, N and K all past one tile
    // before a CTA has any work): raise every open value together
    const joint = raiseTogether(look, cur.run, given);
    if (joint) points.push(...liftPoints(module, options, [{ run: joint.run, label: `every open integer = ${joint.value}` }], points));
    // raising the 64-bit fields too can turn open pointers into data the kernel branches on
    // (FlashAttention-3 backward): then raise the 32-bit scalars alone, its sequence lengths
    const narrow = joint ? undefined : raiseTogether(look, cur.run, given, (v) => v.bytes <= 4 && v.element === undefined);
    if (narrow) points.push(...liftPoints(module, options, [{ run: narrow.run, label: `every open 32-bit integer = ${narrow.value}` }], points));
    const deeper = joint || narrow || wrapped(baseRun) ? undefined : wrapDeeper(look, probed, cur.run, baseRun, given, labelOf);
    if (deeper) points.push(...liftPoints(module, options, [deeper], points));
    // no mbarrier to drive (a histogram or a reduction over named or cluster barriers): at the
    // defaults one thread may do all the work, so that nothing is shared and race is vacuous
    const sharing = joint || narrow || deeper || baseRun.waits > 0 || sharesSlots(baseRun) ? undefined : raiseUntilShared(look, baseRun, given);
    if (sharing) points.push(...liftPoints(module, options, [{ run: sharing.run, label: `every open integer = ${sharing.value}` }], points));
    return done();
  }
  // the greedy raise of one value at a time can overshoot: CUTLASS's Cooperative kernel runs one
  // k-block per tile by default, so its 6-stage ring is waited in both parities only at 12 tiles,
  // where 2 tiles of 6 k-blocks do it for every ring at a third of the events. A balanced point
  // that waits on every barrier in as many phases (up to DEEP) for fewer events replaces the
  // costlier points.
  const last = chosen[chosen.length - 1]!;
  const balanced = balance(look, baseRun, last, given);
  const kept = balanced ? [...chosen.filter((c) => c.run.events <= balanced.run.events), balanced] : chosen;
  const more = uncovered(probed, [baseRun, ...kept.map((c) => c.run)], look);
  if (more) kept.push(more);
  points.push(...liftPoints(module, options, kept.map((c) => ({ run: c.run, label: labelOf(c.values) })), points));
  // points that add waits but wrap no ring (CUTLASS example 88's causal forward kernels: the
  // sequence length adds k-blocks only up to CTA 0's diagonal): the last steps, as below
  const deeper = [baseRun, ...kept.map((c) => c.run)].some(wrapped) ? undefined : wrapDeeper(look, probed, cur.run, baseRun, given, labelOf);
  if (deeper) points.push(...liftPoints(module, options, [deeper], points));
  return done();
}

/**
 * The sweep's last steps, taken only where no point so far wrapped a ring, so that no kernel an
 * earlier step covers changes. First the open integers raised together with the CTA run: a trip
 * count that grows with the CTA index (a causal attention kernel: CTA 0 makes one k-block
 * whatever the sequence length). Then past the ladder: a persistent kernel whose tile stride is a
 * compile-time SM count (DeepGEMM's 132) gives CTA 0 a second tile, and so a second round of a
 * ring deeper than one tile's k-blocks, only past 132 tiles; each open value alone goes on up the
 * far ladder to the first value that adds waits (the greedy rounds' test, past 4096).
 */
function wrapDeeper(
  look: Look,
  probed: Probed,
  cur: Probe,
  baseRun: Probe,
  given: ReadonlyMap<string, bigint>,
  labelOf: (values: ReadonlyMap<string, bigint>) => string,
): { run: Probe; label: string } | undefined {
  const byCta = raiseTogether(look, cur, given, () => true, true);
  if (byCta) return { run: byCta.run, label: `every open integer and ${CTA_INDEX} = ${byCta.value}` };
  const far = widen(look, baseRun, given, probed, FAR_LADDER);
  return far ? { run: far.run, label: labelOf(far.values) } : undefined;
}

/**
 * The run at the defaults. Where an integer left open at 1 makes the kernel divide by zero and so
 * refuse (ThunderKittens' Mamba-2 divides by half a launch value), the integers left open are 2
 * instead, for this run and every probe after it, and the report says why; a kernel refused at 2
 * as well keeps the first refusal.
 */
function defaultsRun(p: ReturnType<typeof prepare>, options: LiftOptions, given: ReadonlyMap<string, bigint>): { options: LiftOptions; base: KernelTrace } {
  try {
    return { options, base: traceWith(p, options, given) };
  } catch (e) {
    const zero = e instanceof InputError && options.defaultInt === undefined ? /a division by zero at line \d+/.exec(e.message) : null;
    if (!zero) throw e;
    const raised: LiftOptions = { ...options, defaultInt: { value: 2n, why: `at 1 the run is refused: ${zero[0]} decides a branch` } };
    try {
      return { options: raised, base: traceWith(p, raised, given) };
    } catch {
      throw e;
    }
  }
}

/** A point with the run it was lifted from (shareBoxes lifts it again). */
interface Lifted extends LaunchPoint {
  readonly trace: KernelTrace;
}

function withoutTraces(points: readonly Lifted[]): LaunchPoint[] {
  return points.map(({ label, program, facts }) => ({ label, program, facts }));
}

/** Lift each run as one more point, unless it gives a program already in the sweep. */
function liftPoints(module: PtxModule, options: LiftOptions, runs: readonly { run: Probe; label: string }[], already: readonly LaunchPoint[]): Lifted[] {
  const seen = new Set(already.map((x) => JSON.stringify(x.program.roles)));
  const out: Lifted[] = [];
  for (const { run, label } of runs) {
    const lifted = programOfTrace(module, run.trace, options);
    const id = JSON.stringify(lifted.program.roles);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ label, trace: run.trace, ...lifted });
  }
  return out;
}

/**
 * A cheaper assignment as deep as `target`: one raised value lowered along the ladder, another
 * raised until every barrier `target` waited on more than `base` did is waited at least as many
 * phases by one warp, up to DEEP (the sweep's own goal), and at every parity `target` waited it
 * at. The cheapest by events, or undefined when none beats `target`.
 */
function balance(
  look: Look,
  base: Probe,
  target: { values: ReadonlyMap<string, bigint>; run: Probe },
  given: ReadonlyMap<string, bigint>,
): { values: ReadonlyMap<string, bigint>; run: Probe } | undefined {
  const raised = [...target.values.keys()].filter((k) => !given.has(k));
  if (raised.length < 2) return undefined;
  const need = new Map<string, number>();
  for (const [k, n] of target.run.most) if (n > (base.most.get(k) ?? 0)) need.set(k, Math.min(n, DEEP));
  // and every parity of it some warp waited (Pingpong's consumers take turns: each waits a stage
  // at one parity, the other at the other)
  const enough = (run: Probe): boolean =>
    [...need].every(([k, n]) => {
      const want = target.run.parities.get(k) ?? 0;
      return (run.most.get(k) ?? 0) >= n && ((run.parities.get(k) ?? 0) & want) === want;
    });
  let best: { values: ReadonlyMap<string, bigint>; run: Probe } | undefined;
  for (const lower of raised) {
    const top = target.values.get(lower) ?? 0n;
    for (const value of LADDER) {
      if (value >= top) break;
      for (const other of raised) {
        if (other === lower) continue;
        const from = target.values.get(other) ?? 0n;
        let steps = 0;
        for (const up of LADDER) {
          if (up < from) continue;
          if (++steps > BALANCE_STEPS) break;
          const values = new Map([...target.values, [lower, value], [other, up]]);
          const run = look(values);
          if (!usable(run) || run.events >= (best ?? target).run.events) break;
          if (!run.idle && enough(run)) {
            best = { values, run };
            break;
          }
        }
      }
      if (best) return best; // the lowest value that works: lowering it further only gets dearer elsewhere
    }
  }
  return best;
}

/**
 * A probe that waited on barriers no point waits on, when there is one: the one that waits on the
 * most of them, the cheapest among those. The greedy rounds rank values by how deep they drive the
 * barriers they grow, so a value that drives a second loop deep can win over the one that makes
 * a first loop run at all (ThunderKittens' Mamba-2: more tiles, each with no chunk of the
 * sequence, so the consumers never wait on the input ring).
 */
function uncovered(probed: Probed, points: readonly Probe[], look: Look): { values: ReadonlyMap<string, bigint>; run: Probe } | undefined {
  const covered = new Set(points.flatMap((r) => [...r.most.keys()]));
  for (;;) {
    let best: { values: ReadonlyMap<string, bigint>; run: Probe; adds: number; same: boolean } | undefined;
    for (const { values, run, same } of probed.values()) {
      if (!usable(run) || run.idle) continue;
      const adds = [...run.most.keys()].filter((k) => !covered.has(k)).length;
      if (adds === 0) continue;
      if (!best || adds > best.adds || (adds === best.adds && run.events < best.run.events)) best = { values, run, adds, same: same === true };
    }
    if (!best?.same) return best && { values: best.values, run: best.run };
    // a probe noted as repeating a run is run for real before a point is made of it: it gives that
    // run's waits and events, unless its budgets (a probe's, not the defaults') cut it short
    look(best.values);
  }
}

/**
 * Of the open values that add waits when raised alone on top of `values`, along `ladder`, the
 * cheapest at its least such value. On LADDER a value that adds no wait at 64 nor at 4096 is
 * passed over at once; past it (FAR_LADDER) every value climbs, since what adds waits there adds
 * none at 4096. A value whose run grows past MAX_EVENTS or is refused stops its climb.
 */
function widen(look: Look, base: Probe, values: ReadonlyMap<string, bigint>, probed: Probed, ladder: readonly bigint[] = LADDER): { values: ReadonlyMap<string, bigint>; run: Probe } | undefined {
  let best: { values: ReadonlyMap<string, bigint>; run: Probe } | undefined;
  for (const { v } of openIntegers(base, values)) {
    // raised alone it repeats `base` at every value, adding no wait
    if (repeats(probed, base, values, v, ladder === LADDER ? QUICK : ladder)) continue;
    // drives nothing: adds no wait at 64 nor at 4096 (4096 probed only when 64 added none)
    const adds = (value: bigint): boolean => {
      const run = look(new Map([...values, [v.key, value]]));
      return !usable(run) || run.waits > base.waits;
    };
    if (ladder === LADDER && !adds(64n) && !adds(4096n)) continue;
    for (const value of ladder) {
      const next = new Map([...values, [v.key, value]]);
      const run = look(next);
      if (!usable(run)) break;
      if (run.idle || run.waits <= base.waits) continue;
      if (!best || run.events < best.run.events) best = { values: next, run };
      break;
    }
  }
  return best;
}

/** The quick looks of the greedy rounds and of `widen`: a value that changes nothing at these drives nothing. */
const QUICK = [64n, 4096n] as const;

/** Values past LADDER's 4096 for the last step of the sweep (`wrapDeeper`). */
const FAR_LADDER = [6144n, 8192n, 12288n, 16384n, 24576n, 32768n, 65536n] as const;

/** Whether some warp waited on some barrier at both parities in this run: a ring wrapped. */
function wrapped(run: Probe): boolean {
  for (const bits of run.parities.values()) if (bits === 3) return true;
  return false;
}

/**
 * The integer launch values a run read that `values` does not fix (the grid and cluster shape
 * aside). The elements of one launch array are one value, `NAME+OFF[*]`: raised together (every
 * batch's tile count at once), so an array of 128 entries costs one probe, not 128.
 */
function openIntegers(run: Probe, values: ReadonlyMap<string, bigint>, withCta = false): { v: LaunchVar }[] {
  const out = new Map<string, { v: LaunchVar }>();
  for (const { v } of run.trace.launch.reads.values()) {
    if (v.kind !== 'int' || values.has(v.key) || /^(grid|cluster)\./.test(v.key) || (v.key === CTA_INDEX && !withCta)) continue;
    const key = v.element === undefined ? v.key : wholeArray(v.key);
    if (!values.has(key) && !out.has(key)) out.set(key, { v: { ...v, key } });
  }
  return [...out.values()];
}

/** All open integer launch values (`withCta`: the CTA run too) set to one ladder value, the first that wraps every ring that grew. */
function raiseTogether(
  look: Look,
  base: Probe,
  given: ReadonlyMap<string, bigint>,
  which: (v: LaunchVar) => boolean = () => true,
  withCta = false,
): { value: bigint; run: Probe } | undefined {
  const open = openIntegers(base, given, withCta).filter(({ v }) => which(v));
  if (withCta && !open.some(({ v }) => v.key === CTA_INDEX)) return undefined;
  if (open.length < 2) return undefined;
  let best: { value: bigint; run: Probe } | undefined;
  for (const value of LADDER) {
    const run = look(new Map([...given, ...open.map(({ v }) => [v.key, value] as const)]));
    if (run === undefined) continue; // a value the kernel cannot run with (a division by a tile count of 0)
    if (run === TOO_BIG) break;
    if (run.idle) continue;
    if (run.waits > (best?.run.waits ?? base.waits)) best = { value, run };
    if (depthOver(run, base) >= DEEP) break;
  }
  return best;
}

/**
 * Whether two warps of the run touch the same shared bytes, one of them writing (or with an
 * atomic): something the race check can then decide. A kernel whose threads beyond the first have
 * no work at the defaults (every integer 1) shares nothing.
 */
function sharesSlots(run: Probe): boolean {
  const touched = run.trace.warps.map((w) => {
    const reads: [number, number][] = [];
    const writes: [number, number][] = [];
    for (const e of w as readonly WarpEvent[]) {
      if (e.k !== 'read' && e.k !== 'write') continue;
      const at = e.cta * SLOT_SPACE;
      for (const [lo, hi] of e.parts ?? [[e.lo, e.hi]]) (e.k === 'read' ? reads : writes).push([at + lo, at + hi]);
    }
    return { reads: mergeRanges(reads), writes: mergeRanges(writes) };
  });
  const overlap = (a: readonly (readonly [number, number])[], b: readonly (readonly [number, number])[]): boolean => a.some(([lo, hi]) => b.some(([x, y]) => lo < y && x < hi));
  for (let i = 0; i < touched.length; i++) {
    for (let j = i + 1; j < touched.length; j++) {
      const a = touched[i]!;
      const b = touched[j]!;
      if (overlap(a.writes, b.writes) || overlap(a.writes, b.reads) || overlap(a.reads, b.writes)) return true;
    }
  }
  return false;
}
/** Room per CTA when the CTAs' shared bytes are numbered one after the other (more than a CTA window). */
const SLOT_SPACE = 1 << 23;

/** Every open integer set to one ladder value: the first at which two warps share shared bytes (sharesSlots). */
function raiseUntilShared(look: Look, base: Probe, given: ReadonlyMap<string, bigint>): { value: bigint; run: Probe } | undefined {
  const open = openIntegers(base, given);
  if (open.length === 0) return undefined;
  for (const value of LADDER) {
    const run = look(new Map([...given, ...open.map(({ v }) => [v.key, value] as const)]));
    if (run === undefined) continue;
    if (run === TOO_BIG) return undefined;
    if (!run.idle && sharesSlots(run)) return { value, run };
  }
  return undefined;
}

/** `0+1408` for a field of a long-named (mangled) parameter: what `--param` accepts. */
export function shortKey(key: string, params: readonly string[]): string {
  const m = /^(.*?)((?:\+\d+)?(?:\[(?:\d+|\*)\])?)$/.exec(key);
  const name = m?.[1] ?? key;
  const i = params.indexOf(name);
  return name.length > 24 && i >= 0 ? `${i}${m?.[2] ?? ''}` : key;
}
