// Public API of the PTX front end: parse PTX, lift kernels into mbarrier-level Programs.
// `arefcheck verify kernel.ptx` and `arefcheck lift` load liftPtxFile from here.
export { parsePtx } from '../parse/parser.ts';
export type { PtxModule, PtxFunction, Statement, Instruction, Operand } from '../parse/ast.ts';
export { liftKernel, liftKernelWithFacts, liftPtxFile, traceKernel, DEFAULT_MAX_STEPS, type LiftOptions, type KernelTrace, type LiftFacts } from './lift.ts';
export { UnsupportedError } from './errors.ts';
export type { WarpEvent } from './events.ts';
