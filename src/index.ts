// arefcheck as a library: the Program IR, the .aref language, the semantics, the checker, PTX in
// and out, replay and SARIF (docs/api.md shows each).
// Property-based testing helpers (fast-check arbitraries) live in `arefcheck/arbitraries`.
export * from './ir/program.ts';
export { evalExpr, EvalError, num, v, bin } from './ir/expr.ts';
export { InputError, isInputError } from './diag.ts';
export {
  parseAref,
  parseArefFile,
  parseProgramText,
  loadProgramFile,
  printProgram,
  printExpr,
  printOp,
  programToJson,
  programFromJson,
  validateProgram,
  stripLocs,
} from './lang/index.ts';
export { lowerProgram, loweredNames, DEFAULT_SLOT_BYTES, type LowerOptions } from './lower.ts';
export { pipelineProgram, type PipelineOptions } from './pipeline.ts';
export { randomRun, formatRunText, type RunReport, type RunOptions, type RunOutcome } from './interp/run.ts';
export { verifyProgram, DEFAULT_LIMITS, type VerifyOptions, type Report, type ViolationReport, type TraceEntry } from './verify.ts';
export { programModel, type ProgramModel } from './verify/model.ts';
export { verifyEveryK, type EveryKOptions } from './every-k/verify.ts';
export {
  verify,
  liftPtx,
  verifyPtx,
  toSarif,
  emitPtx,
  emitFromPipeline,
  replayTrace,
  readTraceJson,
  violationToTraceJson,
  formatReportText,
  toPromela,
  readPanOutput,
  type PromelaExportOptions,
  type PromelaModel,
  type PanReport,
  type PanKind,
  type CheckedVerifyOptions,
  type PtxOptions,
  type VerifyPtxOptions,
  type EmitOptions,
  type LiftOptions,
  type LiftFacts,
  type ReplayResult,
  type TraceFile,
  type TraceJson,
} from './api.ts';
export { EXIT, type ExitCode } from './exit-codes.ts';
export * as semantics from '../semantics/index.ts';
export * as checker from '../checker/index.ts';
