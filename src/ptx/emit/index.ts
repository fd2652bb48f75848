// The PTX backend's entry points: an mbarrier-level Program → one sm_90a kernel (docs/emit.md).
import type { Program, Stmt } from '../../ir/program.ts';
import { pipelineProgram, type PipelineOptions } from '../../pipeline.ts';
import { gemmFamily } from './gemm.ts';
import { emitKernel } from './kernel.ts';
import { gemmStageBytes, gemmTileOf, type EmitOptions } from './options.ts';
import { planKernel } from './plan.ts';
import { streamFamily } from './stream.ts';

export type { EmitOptions, GemmTile, KernelFamily, DType } from './options.ts';
export { parseTile, gemmStageBytes, gemmTileOf, KERNEL_FAMILIES, DEFAULT_GEMM_TILE } from './options.ts';
export { META_MARK, PTX_TARGET, PTX_VERSION, type KernelMeta } from './kernel.ts';
export { readMeta } from './meta.ts';

/** PTX text of one warp-specialized kernel realizing `program` (which must be at mbarrier level). */
export function emitPtx(program: Program, options: EmitOptions): string {
  const plan = planKernel(program);
  const family = options.kernel === 'gemm' ? gemmFamily(program, plan, options) : streamFamily(plan, options);
  return emitKernel(program, plan, family, options);
}

/** Default bytes per slot for the stream kernel's chunks. */
export const DEFAULT_STREAM_CHUNK = 16384;

/**
 * The Tawa pipeline family at mbarrier level, with slots sized for the kernel: a gemm slot holds
 * one stage (A and B tiles), a stream slot one chunk. What `arefcheck pipeline … --emit-ptx` emits.
 */
export function pipelineForKernel(pipeline: Omit<PipelineOptions, 'level' | 'bytes'>, options: EmitOptions): Program {
  const bytes =
    options.kernel === 'gemm'
      ? gemmStageBytes(gemmTileOf(options), options.dtype ?? 'bf16')
      : typeof options.tile === 'number'
        ? options.tile
        : DEFAULT_STREAM_CHUNK;
  const cooperative = pipeline.cooperative ?? (options.kernel === 'gemm' && options.cooperative === true);
  const pingpong = pipeline.pingpong ?? (options.kernel === 'gemm' && options.pingpong === true);
  return pipelineProgram({ ...pipeline, level: 'mbarrier', bytes, ...(cooperative ? { cooperative } : {}), ...(pingpong ? { pingpong } : {}) });
}

/** The same pipeline without the consumers' `read … expect k` (the FIFO observation lowering adds to a get): what the GPU build's `noRead` kernels run. */
export function withoutReads(p: Program): Program {
  const drop = (stmts: readonly Stmt[]): Stmt[] =>
    stmts.flatMap((s): Stmt[] =>
      s.kind === 'op' ? (s.op.kind === 'read' ? [] : [s]) : s.kind === 'for' ? [{ ...s, body: drop(s.body) }] : [{ ...s, then: drop(s.then), else: drop(s.else) }],
    );
  return { ...p, roles: p.roles.map((r) => ({ ...r, body: drop(r.body) })) };
}

export interface EmitFromPipelineOptions extends Omit<PipelineOptions, 'level' | 'bytes'> {
  readonly emit: EmitOptions;
}

/** `arefcheck pipeline … --emit-ptx`: the program and its PTX (verification is the caller's). */
export function emitFromPipeline(opts: EmitFromPipelineOptions): { program: Program; ptx: string } {
  const { emit, ...pipeline } = opts;
  const program = pipelineForKernel(pipeline, emit);
  return { program, ptx: emitPtx(program, emit) };
}
