// One check as `verify` and `pipeline` run it, from the run's flags: shared by the in-thread path
// (verification.ts) and the worker that makes it interruptible (interruptible.ts).
import type { ProgressInfo } from '../../checker/index.ts';
import type { Level, Program } from '../ir/program.ts';
import { verifyProgram, type Report, type VerifyOptions } from '../verify.ts';
import { verifyEveryK } from '../every-k/verify.ts';

/** How `verify` (and `pipeline` without --print) runs and prints a check. */
export interface VerificationRun {
  /** What was checked, for messages and trace files: a file name or a description. */
  readonly name: string;
  readonly level?: Level | 'both';
  readonly literal: boolean;
  readonly maxStates?: number;
  readonly maxMs?: number;
  readonly maxBytes?: number;
  /** false: --no-por */
  readonly reduction: boolean;
  /** false: --no-collapse */
  readonly collapse?: boolean;
  /** false: --no-symmetry */
  readonly symmetry?: boolean;
  /** false: --no-every-k */
  readonly everyK?: boolean;
  readonly json: boolean;
  readonly traceOut?: string;
  readonly sarif?: string;
  /** --sarif-root: SARIF file URIs relative to this folder */
  readonly sarifRoot?: string;
  /** --param NAME=any: prove for every value of NAME from `min` */
  readonly anyParam?: { readonly name: string; readonly min: number };
}

/** The check's options from the run's flags (plain data: they also travel to the worker). */
export function runOptions(run: VerificationRun): VerifyOptions {
  return {
    literal: run.literal,
    reduction: run.reduction,
    ...(run.collapse === false ? { collapse: false } : {}),
    ...(run.symmetry === false ? { symmetry: false } : {}),
    ...(run.everyK === false ? { everyK: false } : {}),
    ...(run.maxBytes === undefined ? {} : { maxBytes: run.maxBytes }),
    ...(run.level === undefined ? {} : { level: run.level }),
    ...(run.maxStates === undefined ? {} : { maxStates: run.maxStates }),
    ...(run.maxMs === undefined ? {} : { maxMs: run.maxMs }),
  };
}

/** Run the check a run asks for: every value of an open param, or the program as it is. */
export function checkRun(program: Program, run: VerificationRun, options: VerifyOptions): Report {
  return run.anyParam ? verifyEveryK(program, { ...options, param: run.anyParam.name, min: run.anyParam.min }) : verifyProgram(program, options);
}

/** The progress line's last figures: the finished run's. */
export function finalFigures({ stats }: Report): ProgressInfo {
  return { states: stats.states, transitions: stats.transitions, queue: 0, depth: stats.maxDepth, ms: stats.ms, statesPerSecond: stats.statesPerSecond };
}
