// verifyProgram: the library entry point of arefcheck's checker. Chooses the level, lowers
// an aref program when the mbarrier level is asked for (adding the refinement monitor),
// explores every interleaving and returns the stable report of issue 3.
import { check, mapTraceStates, type CheckOptions, type CheckStats, type ProgressInfo } from '../checker/index.ts';
import { InputError } from './diag.ts';
import { programLevel, type Level, type Program } from './ir/program.ts';
import { lowerProgram } from './lower.ts';
import { compileMachine, SettleLimitError } from '../semantics/index.ts';
import { packedModelOfMachine, type PackedProgramModel } from './verify/model.ts';
import { refinementModel } from './verify/refinement.ts';
import { buildReport, type Report } from './verify/report.ts';
import { rawResult } from './verify/raw-trace.ts';
import { propertyStatuses, type PropertyStatus } from './verify/properties.ts';
import { maxOf } from './util.ts';
import { proofCoveringValue } from './every-k/covering.ts';

export type { Report, ViolationReport, TraceEntry } from './verify/report.ts';
export type { PropertyStatus, PropertyKind } from './verify/properties.ts';

export interface VerifyOptions {
  /** Level to check; default: the program's own level. `both` checks an aref program at both levels. */
  readonly level?: Level | 'both';
  readonly params?: ReadonlyMap<string, number>;
  readonly literal?: boolean;
  readonly maxStates?: number;
  /** wall-time limit in milliseconds */
  readonly maxMs?: number;
  readonly maxBytes?: number;
  readonly stopAtFirst?: boolean;
  /** Partial-order reduction (default true); false explores every interleaving. */
  readonly reduction?: boolean;
  /** Collapse compression (default true): less memory per state, some more time (docs/checker.md). */
  readonly collapse?: boolean;
  /** Symmetry reduction (default true): interchangeable roles (same code) are stored in one order (docs/checker.md). */
  readonly symmetry?: boolean;
  readonly onProgress?: (info: ProgressInfo) => void;
  /** Polled during exploration: true stops the run as inconclusive (the CLI's Ctrl-C). */
  readonly interrupted?: () => boolean;
  /**
   * A param of at least 1,024 may be verified through a proof for every value of it (default
   * true; src/every-k/covering.ts); false explores the value itself (`--no-every-k`). Off without
   * partial-order reduction, which asks for the full graph.
   */
  readonly everyK?: boolean;
}

/** Default limits: generous, but a run never hangs or exhausts memory (it ends inconclusive). */
export const DEFAULT_LIMITS = { maxStates: 20_000_000, maxMs: 10 * 60_000, maxBytes: 6 * 2 ** 30 } as const;

export function verifyProgram(program: Program, options: VerifyOptions = {}): Report {
  const level = checkedLevel(program, options.level);
  if (level === 'both') return combineReports([verifyAt(program, 'aref', options), verifyAt(program, 'mbarrier', options)]);
  return verifyAt(program, level, options);
}

/** The level to check (the program's own by default), refused where the program cannot be checked there. */
export function checkedLevel(program: Program, asked: Level | 'both' | undefined): Level | 'both' {
  const own = programLevel(program);
  const level = asked ?? own;
  if (level === 'both' && own !== 'aref') throw new InputError('--level both needs an aref-level program (this one is already at the mbarrier level)');
  if (level === 'aref' && own === 'mbarrier') throw new InputError('this program is at the mbarrier level: it cannot be checked at the aref level');
  return level;
}

export function checkOptions(options: VerifyOptions): CheckOptions {
  return {
    maxStates: options.maxStates ?? DEFAULT_LIMITS.maxStates,
    maxMs: options.maxMs ?? DEFAULT_LIMITS.maxMs,
    maxBytes: options.maxBytes ?? DEFAULT_LIMITS.maxBytes,
    stopAtFirst: options.stopAtFirst ?? false,
    reduction: options.reduction ?? true,
    collapse: options.collapse ?? true,
    symmetry: options.symmetry ?? true,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.interrupted ? { interrupted: options.interrupted } : {}),
  };
}

function verifyAt(program: Program, level: Level, options: VerifyOptions): Report {
  const machineOptions = { literal: options.literal ?? false, params: options.params ?? new Map<string, number>() };
  const lowerIt = level === 'mbarrier' && programLevel(program) === 'aref';
  try {
    if (!lowerIt) {
      const started = performance.now();
      const limits = { maxStates: options.maxStates ?? DEFAULT_LIMITS.maxStates, maxMs: options.maxMs ?? DEFAULT_LIMITS.maxMs };
      const proof = proofCoveringValue(program, level, options, limits);
      if (proof) return proof;
      // what a failed attempt at a proof took is not given again
      const spent = performance.now() - started;
      if (spent >= 1) options = { ...options, maxMs: Math.max(1, Math.floor(limits.maxMs - spent)) };
      // the explorer runs on packed words; the report reads the run's states, replayed (raw-trace.ts)
      const model = packedModelOfMachine(compileMachine(program, machineOptions));
      const result = check(model, checkOptions(options));
      const symmetric = (options.symmetry ?? true) ? symmetryNotes(model) : [];
      const noted = symmetric.length > 0 ? { ...result, notes: [...(result.notes ?? []), ...symmetric] } : result;
      return buildReport(model.machine, level, rawResult(model.machine, model.packer, noted));
    }
    return refinementReport(program, lowerProgram(program), options);
  } catch (err) {
    if (err instanceof SettleLimitError)
      return {
        verdict: 'inconclusive',
        level,
        violations: [],
        stats: { states: 0, transitions: 0, ms: 0, statesPerSecond: 0, bytesPerState: 0, maxDepth: 0 },
        limit: { reason: 'states', message: err.message },
        properties: propertyStatuses(compileMachine(lowerIt ? lowerProgram(program) : program, machineOptions), lowerIt),
      };
    throw err;
  }
}

/** What symmetry reduction did: which roles it took as interchangeable (`--no-symmetry` stores every order). */
function symmetryNotes(model: PackedProgramModel): string[] {
  return (model.symmetry?.classes ?? []).map((cls) => {
    const names = cls.map((r) => model.machine.roles[r]?.name ?? `role${r}`);
    return `symmetry: ${names.join(', ')} run the same code and are interchangeable; each state was stored in one order of them (--no-symmetry stores every order)`;
  });
}

/**
 * Check an mbarrier-level program against the aref-level program it implements (by the
 * standard lowering's names A_buf, A_full, A_empty): the usual properties plus `refinement`.
 */
export function verifyRefinement(arefProgram: Program, mbarrierProgram: Program, options: VerifyOptions = {}): Report {
  return refinementReport(arefProgram, mbarrierProgram, options);
}

function refinementReport(arefProgram: Program, mbarrierProgram: Program, options: VerifyOptions): Report {
  const machine = compileMachine(mbarrierProgram, { literal: options.literal ?? false, params: options.params ?? new Map<string, number>() });
  const result = check(refinementModel(arefProgram, machine), checkOptions(options));
  const innerResult = {
    ...result,
    violations: result.violations.map((v) => ({ ...v, trace: mapTraceStates(v.trace, (s) => s.inner) })),
  };
  return buildReport(machine, 'mbarrier', innerResult, true);
}

export function combineReports(reports: readonly Report[]): Report {
  const verdict = reports.some((r) => r.verdict === 'violation') ? 'violation' : reports.some((r) => r.verdict === 'inconclusive') ? 'inconclusive' : 'verified';
  const limit = reports.find((r) => r.limit)?.limit;
  // what each level's verdict covers (`--param K=any`): one scope when the levels agree, else each level's
  const scopes = reports.map((r) => r.scope);
  const scope = scopes.every((x) => x === scopes[0]) ? scopes[0] : reports.map((r) => `${r.level}: ${r.scope ?? 'the values given'}`).join('; ');
  const notes = reports.flatMap((r) => (r.notes ?? []).map((n) => `[${r.level}] ${n}`));
  return {
    verdict,
    level: 'both',
    violations: reports.flatMap((r) => r.violations.map((v) => ({ ...v, message: `[${r.level}] ${v.message}` }))),
    stats: sumStats(reports.map((r) => r.stats)),
    ...(limit ? { limit } : {}),
    ...(scope !== undefined ? { scope } : {}),
    ...(notes.length > 0 ? { notes } : {}),
    properties: combineStatuses(reports),
    levels: reports,
  };
}

/** The figures of several runs as one: totals, rates over the totals, the deepest depth. */
export function sumStats(all: readonly CheckStats[]): CheckStats {
  const sum = (f: (s: CheckStats) => number): number => all.reduce((acc, s) => acc + f(s), 0);
  const ms = sum((s) => s.ms);
  const states = sum((s) => s.states);
  return {
    states,
    transitions: sum((s) => s.transitions),
    ms,
    statesPerSecond: ms > 0 ? Math.round((states * 1000) / ms) : 0,
    bytesPerState: states > 0 ? Math.round(sum((s) => s.bytesPerState * s.states) / states) : 0,
    maxDepth: maxOf(all.map((s) => s.maxDepth), 0),
  };
}

/** At both levels a property is checked if either level checks it; else the last level (mbarrier, where refinement lives) says why not. */
function combineStatuses(reports: readonly Report[]): PropertyStatus[] {
  const first = reports[0]?.properties ?? [];
  return first.map((p) => {
    const each = reports.map((r) => r.properties.find((q) => q.kind === p.kind) ?? p);
    return each.find((q) => q.status === 'checked') ?? each[each.length - 1] ?? p;
  });
}
