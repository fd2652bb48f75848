// `--param K=any`: verify a program for every value of one parameter. When the counter
// abstraction is exact for the program (fragment.ts), one exploration of the every-K model
// (model.ts) is a proof; a violation it finds is re-found concretely at the smallest K that shows
// it, so the trace replays like any other. When it is not exact, a bounded check of the first
// values is run and reported as bounded, never as a proof.
import { check } from '../../checker/index.ts';
import { compileMachine } from '../../semantics/index.ts';
import { InputError } from '../diag.ts';
import { programLevel, type Level, type Program } from '../ir/program.ts';
import { lowerProgram } from '../lower.ts';
import { DEFAULT_LIMITS, combineReports, verifyProgram, type Report, type VerifyOptions, type ViolationReport } from '../verify.ts';
import { propertyStatuses, type PropertyStatus } from '../verify/properties.ts';
import { analyzeFragment, type Fragment, type NotExact } from './fragment.ts';
import { everyKModel } from './model.ts';

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
  const level = options.level ?? own;
  if (level === 'aref' && own === 'mbarrier') throw new InputError('this program is at the mbarrier level: it cannot be checked at the aref level');
  if (level === 'both') {
    if (own !== 'aref') throw new InputError('--level both needs an aref-level program (this one is already at the mbarrier level)');
    return combineReports([everyKAt(program, 'aref', options), everyKAt(lowerProgram(program), 'mbarrier', options, true)]);
  }
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
  const result = check(model, {
    maxStates: options.maxStates ?? DEFAULT_LIMITS.maxStates,
    maxMs: options.maxMs ?? DEFAULT_LIMITS.maxMs,
    maxBytes: options.maxBytes ?? DEFAULT_LIMITS.maxBytes,
    // the graph has cycles (a shift returns to a state seen before); every concrete run is
    // finite (every loop bound is fixed at its start), so termination needs no search here
    termination: false,
    reduction: options.reduction ?? true,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const proof = proofNote(param, min, analysis.fragment, result.stats.states);
  if (result.verdict === 'verified' && model.horizonReached()) {
    return bounded(program, level, options, min, [{ message: `the roles' loop counters drift apart without bound (${param}'s representative passed ${model.horizon})` }], properties);
  }
  if (result.verdict !== 'violation') {
    return {
      verdict: result.verdict,
      level,
      violations: [],
      stats: result.stats,
      ...(result.limit ? { limit: result.limit } : {}),
      notes: [...(result.verdict === 'verified' ? [proof] : []), ...(result.notes ?? [])],
      scope: `for every ${param} ≥ ${min}`,
      properties,
    };
  }

  // each kind the proof search found, at the smallest value that shows it
  const upTo = new Map<string, number>();
  for (const v of result.violations) upTo.set(v.kind, Math.min(upTo.get(v.kind) ?? Infinity, model.concreteK(v.trace)));
  const found: ViolationReport[] = [];
  let stats = result.stats;
  const last = Math.max(...upTo.values());
  for (let k = min; k <= last && found.length < upTo.size; k++) {
    const report = concrete(program, level, options, k);
    stats = addStats(stats, report.stats);
    for (const v of report.violations) {
      if (upTo.has(v.kind) && !found.some((f) => f.kind === v.kind)) found.push(withParam(v, param, k, fixed));
    }
  }
  const missing = [...upTo.keys()].filter((kind) => !found.some((f) => f.kind === kind));
  return {
    verdict: found.length > 0 ? 'violation' : 'inconclusive',
    level,
    violations: found,
    stats,
    ...(missing.length > 0
      ? { limit: { reason: 'states', message: `the every-${param} search found ${missing.join(', ')} but no concrete ${param} up to ${last} shows it (a bug in arefcheck: please report it)` } }
      : {}),
    notes: [`every ${param} ≥ ${min} explored (${result.stats.states.toLocaleString('en-US')} states); each violation is shown at the smallest ${param} that has it`],
    scope: `for every ${param} ≥ ${min}`,
    properties,
  };
}

/** Outside the exact fragment: the first `bound` values one by one, reported as bounded. */
function bounded(program: Program, level: Level, options: EveryKOptions, min: number, reasons: readonly NotExact[], properties: PropertyStatus[]): Report {
  const { param } = options;
  const bound = options.bound ?? DEFAULT_BOUND;
  const why = reasons
    .slice(0, 3)
    .map((r) => `${r.loc ? `line ${r.loc.line}: ` : ''}${r.message}`)
    .join('; ');
  const started = performance.now();
  let stats: Report['stats'] = NO_STATS;
  let k = min;
  const found: ViolationReport[] = [];
  for (; k < min + bound; k++) {
    const left = (options.maxMs ?? DEFAULT_LIMITS.maxMs) - (performance.now() - started);
    const report = concrete(program, level, { ...options, maxMs: Math.max(1, Math.floor(left)) }, k);
    stats = addStats(stats, report.stats);
    // each kind at the smallest value that shows it
    for (const v of report.violations) if (!found.some((f) => f.kind === v.kind)) found.push(withParam(v, param, k, new Map()));
    if (report.verdict === 'inconclusive') {
      const scope = `for ${param} = ${min}..${k} (bounded: no proof for every ${param})`;
      return { ...report, violations: found, verdict: found.length > 0 ? 'violation' : 'inconclusive', stats, scope, notes: [`not a proof for every ${param}: ${why}`, ...(report.notes ?? [])] };
    }
  }
  const last = k - 1;
  if (found.length > 0) {
    return {
      verdict: 'violation',
      level,
      violations: found,
      stats,
      scope: `for ${param} = ${min}..${last} (bounded: no proof for every ${param})`,
      notes: [`not a proof for every ${param}: ${why}`],
      properties,
    };
  }
  return {
    verdict: 'inconclusive',
    level,
    violations: [],
    stats,
    limit: { reason: 'bound', message: `verified for ${param} = ${min}..${last} only, not for every ${param}: ${why}` },
    scope: `for ${param} = ${min}..${last} (bounded)`,
    properties,
  };
}

/** One value: the program is already at `level` (lowered by the caller when needed). */
function concrete(program: Program, level: Level, options: EveryKOptions, k: number): Report {
  const { onProgress: _quiet, param, ...rest } = options;
  const params = new Map(options.params ?? []).set(param, k);
  return verifyProgram(program, { ...rest, params, level });
}

function withParam(v: ViolationReport, param: string, k: number, fixed: ReadonlyMap<string, number>): ViolationReport {
  return { ...v, message: `with ${param} = ${k}: ${v.message}`, params: { ...Object.fromEntries(fixed), [param]: k } };
}

const NO_STATS: Report['stats'] = { states: 0, transitions: 0, ms: 0, statesPerSecond: 0, bytesPerState: 0, maxDepth: 0 };

function addStats(a: Report['stats'], b: Report['stats']): Report['stats'] {
  const ms = a.ms + b.ms;
  const states = a.states + b.states;
  return {
    states,
    transitions: a.transitions + b.transitions,
    ms,
    statesPerSecond: ms > 0 ? Math.round((states * 1000) / ms) : 0,
    bytesPerState: states > 0 ? Math.round((a.bytesPerState * a.states + b.bytesPerState * b.states) / states) : 0,
    maxDepth: Math.max(a.maxDepth, b.maxDepth),
  };
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
