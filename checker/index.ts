// The checker's public API: explore any Model, get a verdict and shortest counterexamples.
export type { Invariant, Model } from './model.ts';
export type {
  CheckOptions,
  CheckResult,
  CheckStats,
  LimitReason,
  ProgressInfo,
  TraceStep,
  Verdict,
  Violation,
} from './result.ts';
export { check } from './check.ts';
export { lazyStep, mapTraceStates, ReplayError, replayActionIndices, traceIndices } from './trace.ts';
export { createProgressReporter, formatProgress, type ProgressReporter, type ProgressSink } from './progress.ts';
export { ItfError, readItfIndices, toItf, type ItfTrace, type JsonValue } from './itf.ts';
