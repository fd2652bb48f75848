// `--param K=any`: verify a program for every value of one parameter. When the counter
// abstraction is exact for the program (fragment.ts), one exploration of the every-K model
// (model.ts) is a proof; a violation it finds is re-found concretely at the smallest K that shows
// it, so the trace replays like any other. When it is not exact, a bounded check of the first
// values is run and reported as bounded, never as a proof.
import { check } from '../../checker/index.ts';
import { compileMachine } from '../../semantics/index.ts';
import { InputError } from '../diag.ts';
import { MAX_INT } from '../lang/syntax.ts';
import { MAX_VALUE } from '../../semantics/machine.ts';
import { programLevel, type Level, type Program } from '../ir/program.ts';
import { lowerProgram } from '../lower.ts';
import { DEFAULT_LIMITS, checkOptions, checkedLevel, combineReports, sumStats, verifyProgram, type Report, type VerifyOptions, type ViolationReport } from '../verify.ts';
import { propertyStatuses, type PropertyStatus } from '../verify/properties.ts';
import { analyzeFragment, type Fragment, type NotExact } from './fragment.ts';
import { everyKModel } from './model.ts';
import { everyScope, largestInRange } from './range.ts';

export interface EveryKOptions extends VerifyOptions {
  /** the parameter left open */
  readonly param: string;
  /** the smallest value covered (default 1) */
  readonly min?: number;
  /** values checked one by one when no proof is possible (default 32) */
  readonly bound?: number;
}

export const DEFAULT_BOUND = 32;

export function verifyEveryK(program: Program, options: EveryKOptions): Report {
  if (!program.params.some((p) => p.name === options.param)) {
    throw new InputError(`unknown parameter '${options.param}' (the program declares: ${program.params.map((p) => p.name).join(', ') || 'none'})`);
  }
  if (options.params?.has(options.param)) throw new InputError(`--param ${options.param} is given twice: once as a value and once as 'any'`);
  const own = programLevel(program);
  const level = checkedLevel(program, options.level);
  if (level === 'both') return combineReports([everyKAt(program, 'aref', options), everyKAt(lowerProgram(program), 'mbarrier', options, true)]);
  return everyKAt(level === own ? program : lowerProgram(program), level, options, level !== own);
}

function everyKAt(program: Program, level: Level, options: EveryKOptions, lowered = false): Report {
  const { param } = options;
  const min = options.min ?? 1;
  const fixed = new Map(program.params.filter((p) => p.name !== param).map((p) => [p.name, p.value]));
  for (const [k, v] of options.params ?? []) fixed.set(k, v);
  const properties = statuses(compileMachine(program, { params: fixed }), lowered);
  const analysis = analyzeFragment(program, param, fixed);
  if (!analysis.exact) return bounded(program, level, options, min, analysis.reasons, properties);

  const machine = compileMachine(program, { literal: options.literal ?? false, params: fixed, symbolic: param });
  const model = everyKModel(machine, analysis.fragment, min);
  // the graph has cycles (a shift returns to a state seen before); every concrete run is finite
  // (every loop bound is fixed at its start), so termination needs no search here
  const result = check(model, { ...checkOptions(options), stopAtFirst: false, termination: false });
  if (result.verdict === 'verified' && model.horizonReached()) {
    return bounded(program, level, options, min, [{ message: `the roles' loop counters drift apart without bound (${param}'s representative passed ${model.horizon})` }], properties);
  }
  // the proof's arithmetic is true arithmetic: it covers only the values that stay in 32 bits
  const inRangeTo = largestInRange(program, param, fixed, min);
  if (inRangeTo < min) return bounded(program, level, options, min, [{ message: `at ${param} = ${min} an expression may already pass ${MAX_VALUE} (the largest value the checker represents)` }], properties);
  const scope = everyScope(param, min, inRangeTo);
  const range =
    inRangeTo < MAX_INT
      ? [`past ${param} = ${inRangeTo.toLocaleString('en-US')} an expression may pass ${MAX_VALUE}, the largest value the checker (and a 32-bit register) represents: the proof's true arithmetic is not what runs there, so those values are not covered (a concrete check refuses them)`]
      : [];
  if (result.verdict !== 'violation') {
    return {
      verdict: result.verdict,
      level,
      violations: [],
      stats: result.stats,
      ...(result.limit ? { limit: result.limit } : {}),
      notes: [...(result.verdict === 'verified' ? [proofNote(param, min, analysis.fragment, result.stats.states), ...range] : []), ...(result.notes ?? [])],
      scope,
      properties,
    };
  }

  // each kind the proof search found, at the smallest value that shows it
  const upTo = new Map<string, number>();
  for (const v of result.violations) upTo.set(v.kind, Math.min(upTo.get(v.kind) ?? Infinity, model.concreteK(v.trace)));
  const last = Math.max(...upTo.values());
  const scan = scanValues(program, level, options, fixed, min, last, new Set(upTo.keys()));
  const missing = [...upTo.keys()].filter((kind) => !scan.found.some((f) => f.kind === kind));
  const limit =
    missing.length === 0
      ? undefined
      : (scan.stopped?.limit ?? { reason: 'states', message: `the every-${param} search found ${missing.join(', ')} but no concrete ${param} up to ${last} shows it (a bug in arefcheck: please report it)` });
  return {
    verdict: scan.found.length > 0 ? 'violation' : 'inconclusive',
    level,
    violations: scan.found,
    stats: sumStats([result.stats, scan.stats]),
    ...(limit ? { limit } : {}),
    notes: [
      model.horizonReached()
        ? `the every-${param} search stopped at its horizon (the roles' loop counters drift apart: ${param}'s representative passed ${model.horizon}): the violations shown are real, but a kind that needs a larger ${param} may be missing`
        : `every ${param} ≥ ${min} explored (${result.stats.states.toLocaleString('en-US')} states); each violation is shown at the smallest ${param} that has it`,
    ],
    scope,
    properties,
  };
}

/** Outside the exact fragment: the first `bound` values one by one, reported as bounded. */
function bounded(program: Program, level: Level, options: EveryKOptions, min: number, reasons: readonly NotExact[], properties: PropertyStatus[]): Report {
  const { param } = options;
  const why = reasons
    .slice(0, 3)
    .map((r) => `${r.loc ? `line ${r.loc.line}: ` : ''}${r.message}`)
    .join('; ');
  const scan = scanValues(program, level, options, new Map(), min, min + (options.bound ?? DEFAULT_BOUND) - 1);
  const notes = [`not a proof for every ${param}: ${why}`];
  if (scan.stopped) {
    const { stopped } = scan;
    const scope = `for ${param} = ${min}..${scan.last} (bounded: no proof for every ${param})`;
    return { ...stopped, violations: scan.found, verdict: scan.found.length > 0 ? 'violation' : 'inconclusive', stats: scan.stats, scope, notes: [...notes, ...(stopped.notes ?? [])] };
  }
  if (scan.found.length > 0) {
    return { verdict: 'violation', level, violations: scan.found, stats: scan.stats, scope: `for ${param} = ${min}..${scan.last} (bounded: no proof for every ${param})`, notes, properties };
  }
  return {
    verdict: 'inconclusive',
    level,
    violations: [],
    stats: scan.stats,
    limit: { reason: 'bound', message: `verified for ${param} = ${min}..${scan.last} only, not for every ${param}: ${why}` },
    scope: `for ${param} = ${min}..${scan.last} (bounded)`,
    properties,
  };
}

interface Scan {
  /** each wanted kind, at the smallest value that shows it */
  readonly found: ViolationReport[];
  readonly stats: Report['stats'];
  /** the last value checked */
  readonly last: number;
  /** the run that reached a limit, when one did (the scan stops there) */
  readonly stopped?: Report;
}

/**
 * Check the values `from..to` one by one, concretely (the program is already at `level`), within
 * one time budget, until each kind in `wanted` (every kind, if absent) has shown up or a run
 * reaches a limit.
 */
function scanValues(program: Program, level: Level, options: EveryKOptions, fixed: ReadonlyMap<string, number>, from: number, to: number, wanted?: ReadonlySet<string>): Scan {
  const { onProgress: _quiet, param, ...rest } = options;
  const started = performance.now();
  const found: ViolationReport[] = [];
  const stats: Report['stats'][] = [];
  for (let k = from; k <= to && found.length < (wanted?.size ?? Infinity); k++) {
    const left = (options.maxMs ?? DEFAULT_LIMITS.maxMs) - (performance.now() - started);
    const report = verifyProgram(program, { ...rest, maxMs: Math.max(1, Math.floor(left)), params: new Map(options.params ?? []).set(param, k), level });
    stats.push(report.stats);
    for (const v of report.violations) {
      if ((wanted?.has(v.kind) ?? true) && !found.some((f) => f.kind === v.kind)) found.push({ ...v, message: `with ${param} = ${k}: ${v.message}`, params: { ...Object.fromEntries(fixed), [param]: k } });
    }
    if (report.verdict === 'inconclusive') return { found, stats: sumStats(stats), last: k, stopped: report };
  }
  return { found, stats: sumStats(stats), last: from + stats.length - 1 };
}

function statuses(machine: ReturnType<typeof compileMachine>, lowered: boolean): PropertyStatus[] {
  return propertyStatuses(machine, false).map((p) =>
    p.kind === 'refinement' && lowered ? { kind: 'refinement', status: 'not applicable', reason: 'refinement is checked for one value at a time: run without =any' } : p,
  );
}

function proofNote(param: string, min: number, f: Fragment, states: number): string {
  return (
    `proof for every ${param} ≥ ${min}: the counters are exact up to a shift by the period ${f.period}, ` +
    `${param} left open modulo ${f.farPeriod} ` +
    `(cutoffs: counters ≥ ${f.counterCutoff}, ${param} − counter ≥ ${f.distanceCutoff}, ${param} ≥ ${f.kCutoff}); ` +
    `${states.toLocaleString('en-US')} states cover every value (docs/checker.md, "A proof for every K")`
  );
}
