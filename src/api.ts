// The entry points of arefcheck as a library that the CLI does not spell out: PTX in (lift, verify),
// PTX out (emit), counterexamples (replay), reports for CI (SARIF). Options are checked: a
// misspelled level or an unknown option is an error, never a silent default. docs/api.md has
// an example of each.
import { InputError } from './diag.ts';
import type { Level, Program } from './ir/program.ts';
import { liftPtxFile, type LiftOptions } from './ptx/lift/lift.ts';
import { parsePtx } from './ptx/parse/parser.ts';
import { DEFAULT_LIMITS, verifyProgram, type Report, type VerifyOptions } from './verify.ts';
import { verifyEveryK } from './every-k/verify.ts';
import { parseAnyValue } from './every-k/any-value.ts';
import { verifyPtxModule } from './verify/ptx.ts';
import { openLaunchValue, verifyEveryLaunchValue } from './verify/ptx-every-value.ts';
import { reportToSarif } from './verify/sarif.ts';
import { toPromela as exportPromela, type PromelaModel } from './promela/export.ts';

export { emitPtx, emitFromPipeline } from './ptx/emit/index.ts';
export type { EmitOptions } from './ptx/emit/options.ts';
export { replayTrace, type ReplayResult } from './verify/replay.ts';
export { readTraceJson, violationToTraceJson, type TraceFile, type TraceJson } from './verify/trace-json.ts';
export { formatReportText } from './verify/format-text.ts';
export type { LiftOptions, LiftFacts } from './ptx/lift/lift.ts';
export { readPanOutput, type PanReport, type PanKind } from './promela/pan-output.ts';
export type { PromelaModel } from './promela/export.ts';

/** Launch values and lifter settings, as plain data: `params` may be an object. */
export interface PtxOptions extends Omit<LiftOptions, 'params'> {
  /** Launch values by parameter name, position, or field (`'0+12:u32'`): a Map or a plain object. */
  readonly params?: ReadonlyMap<string, number | string> | Readonly<Record<string, number | string>>;
}

export interface VerifyPtxOptions extends Omit<VerifyOptions, 'level' | 'params' | 'literal'>, PtxOptions {
  /** Check only the given launch values (defaults for the rest), not the bounded sweep. */
  readonly noSweep?: boolean;
}

const LEVEL_NAMES = ['aref', 'mbarrier', 'both'] as const;
const VERIFY_KEYS = ['level', 'params', 'literal', 'maxStates', 'maxMs', 'maxBytes', 'stopAtFirst', 'reduction', 'symmetry', 'onProgress', 'interrupted'] as const;
const LIFT_KEYS = ['kernel', 'params', 'block', 'cta', 'grid', 'cluster', 'tmaBytes', 'tmaBoxes', 'maxSteps'] as const;

/** Refuse keys the function does not know (a typo would otherwise be ignored). */
function checkKeys(what: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new InputError(`${what}: unknown option '${key}' (known: ${known.join(', ')})`);
  }
}

function paramMap<V>(params: ReadonlyMap<string, V> | Readonly<Record<string, V>> | undefined): Map<string, V> | undefined {
  if (params === undefined) return undefined;
  return params instanceof Map ? new Map(params) : new Map(Object.entries(params as Record<string, V>));
}

/**
 * Options of verifyProgram with `level` checked and `params` accepted as a plain object. One param
 * may be `'any'` (every value from 1) or `'any>=N'`: the program is then proved for every value
 * (verifyEveryK, docs/checker.md "A proof for every K").
 */
export interface CheckedVerifyOptions extends Omit<VerifyOptions, 'params'> {
  readonly params?: ReadonlyMap<string, number | string> | Readonly<Record<string, number | string>>;
}

/** verifyProgram with its options validated (`level: 'mbarier'` is an error). */
export function verify(program: Program, options: CheckedVerifyOptions = {}): Report {
  checkKeys('verify', options, VERIFY_KEYS);
  const level = options.level;
  if (level !== undefined && !(LEVEL_NAMES as readonly string[]).includes(level))
    throw new InputError(`verify: level must be one of ${LEVEL_NAMES.join(', ')}, got '${String(level)}'`);
  for (const key of ['maxStates', 'maxMs', 'maxBytes'] as const) {
    const v = options[key];
    if (v !== undefined && !(Number.isFinite(v) && v > 0)) throw new InputError(`verify: ${key} must be a positive number, got ${String(v)}`);
  }
  const { params: given, ...rest } = options;
  const params = new Map<string, number>();
  let open: { param: string; min: number } | undefined;
  for (const [name, value] of paramMap(given) ?? []) {
    const min = typeof value === 'string' ? parseAnyValue(value, `verify: params.${name}`) : undefined;
    if (min !== undefined) {
      if (open) throw new InputError(`verify: only one param can be 'any' (${open.param} already is)`);
      open = { param: name, min };
    } else if (typeof value === 'number' && Number.isSafeInteger(value)) params.set(name, value);
    else throw new InputError(`verify: params.${name} must be an integer, 'any' or 'any>=N', got ${JSON.stringify(value)}`);
  }
  const base = { ...rest, ...(given ? { params } : {}) };
  return open ? verifyEveryK(program, { ...base, ...open }) : verifyProgram(program, base);
}

function liftOptions(what: string, options: PtxOptions): LiftOptions {
  const params = paramMap(options.params);
  const { params: _omit, ...rest } = options;
  checkKeys(what, rest, LIFT_KEYS); // verifyPtx takes its own keys out first
  return { ...rest, ...(params ? { params } : {}) };
}

/** The mbarrier-level Program of each kernel of a PTX text (or the one `options.kernel` names). */
export function liftPtx(ptx: string, options: PtxOptions & { readonly file?: string } = {}): Array<{ kernel: string; program: Program }> {
  const { file, ...rest } = options;
  return liftPtxFile(ptx, file ?? 'kernel.ptx', liftOptions('liftPtx', rest)).map(({ kernel, program }) => ({ kernel, program }));
}

/** `arefcheck verify kernel.ptx` as a function: the worst report over the launch points checked. */
export function verifyPtx(ptx: string, options: VerifyPtxOptions & { readonly file?: string } = {}): Report {
  const { file, noSweep, maxStates, maxMs, maxBytes, stopAtFirst, reduction, symmetry, onProgress, ...lift } = options;
  const name = file ?? 'kernel.ptx';
  const verifyOptions: VerifyOptions = {
    ...(maxStates !== undefined ? { maxStates } : {}),
    ...(maxMs !== undefined ? { maxMs } : {}),
    ...(maxBytes !== undefined ? { maxBytes } : {}),
    ...(stopAtFirst !== undefined ? { stopAtFirst } : {}),
    ...(reduction !== undefined ? { reduction } : {}),
    ...(symmetry !== undefined ? { symmetry } : {}),
    ...(onProgress !== undefined ? { onProgress } : {}),
  };
  const liftOpts = liftOptions('verifyPtx', lift);
  const module = parsePtx(ptx, name);
  // a launch value left open ('any'): one check if it is inert, else a bounded scan (verify/ptx-every-value.ts)
  const open = openLaunchValue(module, liftOpts);
  if (open) return verifyEveryLaunchValue(module, name, open.rest, open.open, maxMs ?? DEFAULT_LIMITS.maxMs, (program, ms) => verify(program, { ...verifyOptions, maxMs: ms })).report;
  return verifyPtxModule(module, name, liftOpts, noSweep !== true, (program) => verify(program, verifyOptions)).report;
}

/** The report as a SARIF 2.1.0 log (an object; JSON.stringify it). */
export function toSarif(report: Report, programFile: string, options: { readonly toolVersion?: string; readonly root?: string } = {}): object {
  return reportToSarif(report, programFile, options);
}

export type { Level };

/** Options of toPromela, checked; `params` as in verify (integers only: a model has one value of each). */
export interface PromelaExportOptions {
  readonly level?: Level;
  readonly params?: ReadonlyMap<string, number> | Readonly<Record<string, number>>;
  readonly literal?: boolean;
  readonly groups?: number;
  readonly multicore?: boolean;
}

const PROMELA_KEYS = ['level', 'params', 'literal', 'groups', 'multicore'] as const;

/**
 * The program as a Promela model for SPIN (`arefcheck export --promela`): `text` is the model,
 * `layout.vectorBytes` the -DVECTORSZ to compile pan with; readPanOutput reads pan's report.
 */
export function toPromela(program: Program, options: PromelaExportOptions = {}): PromelaModel {
  checkKeys('toPromela', options, PROMELA_KEYS);
  const level = options.level;
  if (level !== undefined && level !== 'aref' && level !== 'mbarrier') throw new InputError(`toPromela: level must be aref or mbarrier, got '${String(level)}'`);
  const groups = options.groups;
  if (groups !== undefined && !(Number.isSafeInteger(groups) && groups >= 1)) throw new InputError(`toPromela: groups must be a positive integer, got ${String(groups)}`);
  const params = paramMap(options.params);
  for (const [name, value] of params ?? []) {
    if (!Number.isSafeInteger(value)) throw new InputError(`toPromela: params.${name} must be an integer, got ${JSON.stringify(value)}`);
  }
  return exportPromela(program, {
    ...(level === undefined ? {} : { level }),
    ...(params ? { params } : {}),
    ...(options.literal === undefined ? {} : { literal: options.literal }),
    ...(groups === undefined ? {} : { groups }),
    ...(options.multicore === undefined ? {} : { multicore: options.multicore }),
  });
}
