// A kernel family (stream, gemm): the kernel arguments it adds, the code every thread runs
// before the roles, and the realization of the data ops (tma.load, read, write, wgmma.issue).
import type { Loc, Op } from '../../ir/program.ts';
import type { PtxBuilder } from './builder.ts';
import type { Scope } from './expr.ts';
import type { KernelFamily } from './options.ts';
import type { KernelRegs, RoleCtx } from './role.ts';

export type ArgKind = 'ptr' | 'f32' | 'u32' | 'tensormap';

/** A kernel parameter the family adds before the Program's params. */
export interface FamilyArg {
  readonly name: string;
  readonly kind: ArgKind;
  /** What the harness passes, in words (recorded in the meta line). */
  readonly what: string;
}

export interface Family {
  readonly kernel: KernelFamily;
  readonly args: readonly FamilyArg[];
  /** Dynamic shared memory the family needs after the Program's buffers. */
  readonly extraSmem: number;
  /** Register shift between warpgroups (setmaxnreg), when it helps. */
  readonly setmaxnreg?: { readonly producer: number; readonly consumer: number };
  /** CTAs that must fit on one SM (.minnctapersm; with setmaxnreg it sets the register cap at entry). */
  readonly ctasPerSm?: number;
  /** Code every thread runs after the barrier inits (tile coordinates, argument loads). */
  prologue(b: PtxBuilder, regs: KernelRegs): void;
  /** Called when a role's code begins (e.g. zeroing accumulators). */
  roleStart(r: RoleCtx): void;
  /**
   * Whether the family realizes `wgmma.issue` of a role with no `read` as generic loads (stream):
   * such a role then reads the slot through the generic proxy, and the M14 rule applies to it.
   */
  readonly issueIsGeneric?: boolean;
  /** tma.load, read, write, wgmma.issue. */
  emitDataOp(r: RoleCtx, op: Op, scope: Scope, loc: Loc | undefined): void;
  /** Code after a consumer role's body (the gemm epilogue). */
  roleEnd(r: RoleCtx): void;
  /**
   * A persistent kernel: each consumer role's body is one loop over the CTA's output tiles, and
   * the family runs `tileStart` / `tileEnd` (zero the accumulators / store the tile) around each
   * trip; `tile` is the loop variable (the CTA's t-th tile).
   */
  readonly perTile?: {
    tileStart(r: RoleCtx, tile: string): void;
    tileEnd(r: RoleCtx, tile: string): void;
  };
  /** Family facts for the meta line (tile, dtype, …). */
  meta(): Record<string, unknown>;
}

export function argDecl(a: FamilyArg): string {
  switch (a.kind) {
    case 'ptr': return `.param .u64 ${a.name}`;
    case 'f32': return `.param .f32 ${a.name}`;
    case 'u32': return `.param .u32 ${a.name}`;
    case 'tensormap': return `.param .align 64 .b8 ${a.name}[128]`;
  }
}
