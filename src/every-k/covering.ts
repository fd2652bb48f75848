// A concrete value verified through a proof for every value: when a program's loop bound K is
// large and the counter abstraction is exact for it (fragment.ts), one exploration of the
// every-K model proves every K ≥ 1 — K = 4096 among them — in a fraction of the states of K = 4096
// itself (docs/bench.md, "A proof for every K"). verifyProgram tries that first for each param of
// at least COVER_FROM and falls back to exploring the value itself whenever the attempt is not a
// proof: the abstraction is not exact, the search found a violation at some K (perhaps not this
// one: the concrete run decides, and gives its shortest counterexample there), or the attempt
// passed its share of the limits. So the route changes how long a verdict takes, never which.
import type { Level, Program } from '../ir/program.ts';
import { compileMachine } from '../../semantics/index.ts';
import { propertyStatuses } from '../verify/properties.ts';
import type { Report, VerifyOptions } from '../verify.ts';
import { analyzeFragment } from './fragment.ts';
import { everyScope, largestInRange } from './range.ts';
import { verifyEveryK } from './verify.ts';

/**
 * The least value for which the proof is tried. Below it exploring the value costs about what
 * the proof does (mbarrier D4 P1 C1: K = 256 94 ms, the proof 124 ms; K = 1024 235 ms).
 */
export const COVER_FROM = 1024;
/** The attempt's share of the run's limits: a failed attempt costs at most this part of them. */
const ATTEMPT_SHARE = 4;
/** At most this many states for the attempt (the proofs measured take thousands to tens of thousands). */
const ATTEMPT_STATES = 2_000_000;

/**
 * The report for `program` at its param values (`options.params` over the declared ones) from a
 * proof for every value of one of its params, or undefined when no proof was found (explore the
 * value). `program` is already at `level` (no lowering, no refinement monitor).
 */
export function proofCoveringValue(program: Program, level: Level, options: VerifyOptions, limits: { maxStates: number; maxMs: number }): Report | undefined {
  if (options.everyK === false || options.reduction === false) return undefined;
  const started = performance.now();
  const values = new Map(program.params.map((p) => [p.name, p.value]));
  for (const [name, value] of options.params ?? []) values.set(name, value);
  for (const param of program.params) {
    const value = values.get(param.name)!;
    if (!Number.isSafeInteger(value) || value < COVER_FROM) continue;
    const fixed = new Map([...values].filter(([name]) => name !== param.name));
    // the proof reasons in true arithmetic, the value's own run refuses an operand past 32 bits:
    // a proof covers the value only when every value up to it stays in range (range.ts)
    const inRangeTo = largestInRange(program, param.name, fixed, 1);
    if (value > inRangeTo || !analyzeFragment(program, param.name, fixed).exact) continue;
    const left = limits.maxMs - (performance.now() - started);
    if (left <= 0) return undefined;
    const { onProgress: _quiet, ...rest } = options;
    const proof = verifyEveryK(program, {
      ...rest,
      level,
      params: fixed,
      param: param.name,
      min: 1,
      everyK: false,
      maxStates: Math.min(ATTEMPT_STATES, Math.ceil(limits.maxStates / ATTEMPT_SHARE)),
      maxMs: Math.max(1, Math.floor(left / ATTEMPT_SHARE)),
    });
    // only a proof: a bounded scan, a violation somewhere or a limit leaves the value to explore
    if (proof.verdict !== 'verified' || proof.scope !== everyScope(param.name, 1, inRangeTo)) continue;
    const machine = compileMachine(program, { literal: options.literal ?? false, params: options.params ?? new Map<string, number>() });
    return {
      verdict: 'verified',
      level,
      // the verdict line says how K = V was covered: its states are the proof's, not K = V's
      scope: `for ${param.name} = ${value}, by a proof ${proof.scope}`,
      violations: [],
      stats: { ...proof.stats, ms: performance.now() - started },
      notes: [
        `${param.name} = ${value} is covered by a proof ${proof.scope}; no state of ${param.name} = ${value} itself was explored (--no-every-k explores them)`,
        ...(proof.notes ?? []),
      ],
      // what the value's own program can fail on (a property vacuous there stays vacuous)
      properties: propertyStatuses(machine, false),
    };
  }
  return undefined;
}
