// What an op's realization needs to know about the role it runs in.
import type { Program } from '../../ir/program.ts';
import type { PtxBuilder } from './builder.ts';
import type { ExprCompiler } from './expr.ts';
import type { KernelPlan, PlacedRole } from './plan.ts';

export interface KernelRegs {
  /** %tid.x */
  readonly tid: string;
  /** Aligned base address of the dynamic shared memory (the buffers). */
  readonly smem: string;
}

export interface RoleCtx {
  readonly b: PtxBuilder;
  readonly ex: ExprCompiler;
  readonly program: Program;
  readonly plan: KernelPlan;
  readonly placed: PlacedRole;
  readonly regs: KernelRegs;
  /** Thread index inside the role, 0 … 32*warps - 1. */
  readonly tidInRole: string;
  /** True on the role's elected thread (lane 0 of its first warp): the single issuer. */
  readonly elect: string;
  /** Threads of the role (32 × warps). */
  readonly threads: number;
  /** Role-internal named barrier id: 1 + the role's index in the Program. */
  readonly barId: number;
  /** Whether single-issuer arrives are preceded by the role-internal bar.sync (bug class M14). */
  readonly syncBeforeArrive: boolean;
  readonly watchdog?: number;
}
