// The realization of the ops both kernel families share (docs/emit.md "Op table"): mbarrier
// ops, named barriers, fences, wgmma commit/wait and the bulk-group ops. Data-moving ops
// (tma.load, read, write, wgmma.issue) belong to the kernel family.
import { InputError } from '../../diag.ts';
import { evalExpr, EvalError } from '../../ir/expr.ts';
import type { Expr, Loc, Op, Program, Ref } from '../../ir/program.ts';
import { text, type Scope } from './expr.ts';
import type { RoleCtx } from './role.ts';

/**
 * Suspend-time hint (ns) of try_wait in watchdog builds: a failed try then returns within about
 * this long, so the try bound is a time bound (without it the system's own limit applies).
 */
export const WATCHDOG_SUSPEND_NS = 1000;

/** `[A_full+16]` for a constant index, otherwise the address in a register. */
export function barrierAddress(r: RoleCtx, ref: Ref, scope: Scope, loc: Loc | undefined): string {
  const bar = r.plan.barriers.find((x) => x.name === ref.name);
  if (!bar) throw new InputError(`role ${r.placed.role.name}: ${ref.name} is not an mbarrier`, loc);
  const idx = r.ex.value(ref.index, scope, loc);
  if ('imm' in idx) return idx.imm === 0 ? `[${ref.name}]` : `[${ref.name}+${idx.imm * 8}]`;
  const base = r.b.reg('r');
  const addr = r.b.reg('r');
  r.b.ins(`mov.u32 ${base}, ${ref.name}`);
  r.b.ins(`mad.lo.s32 ${addr}, ${idx.reg}, 8, ${base}`);
  return `[${addr}]`;
}

/** Register holding the shared address of buffer slot `ref`, plus `extra` bytes. */
export function slotAddress(r: RoleCtx, ref: Ref, scope: Scope, loc: Loc | undefined, extra = 0): string {
  const buf = r.plan.buffers.find((x) => x.name === ref.name);
  if (!buf) throw new InputError(`role ${r.placed.role.name}: ${ref.name} is not a buffer`, loc);
  const idx = r.ex.value(ref.index, scope, loc);
  const addr = r.b.reg('r');
  if ('imm' in idx) r.b.ins(`add.s32 ${addr}, ${r.regs.smem}, ${buf.offset + idx.imm * buf.bytes + extra}`);
  else {
    r.b.ins(`mad.lo.s32 ${addr}, ${idx.reg}, ${buf.bytes}, ${r.regs.smem}`);
    if (buf.offset + extra !== 0) r.b.ins(`add.s32 ${addr}, ${addr}, ${buf.offset + extra}`);
  }
  return addr;
}

/** An operand that PTX wants as an immediate (wait_group N): evaluated with the Program's params. */
export function constantOperand(program: Program, e: Expr, what: string, loc: Loc | undefined): number {
  try {
    return evalExpr(e, new Map(program.params.map((p) => [p.name, p.value])));
  } catch (err) {
    if (err instanceof EvalError) throw new InputError(`${what} must be a constant over the params (PTX takes an immediate): ${err.message}`, loc);
    throw err;
  }
}

/** The role-internal barrier before a single-issuer arrive, when the role did generic accesses (M14). */
function syncRoleBeforeArrive(r: RoleCtx): void {
  if (r.syncBeforeArrive) r.b.ins(`bar.sync ${r.barId}, ${r.threads}`);
}

/** Emits `op` if it is one of the shared ops; returns false for the family's data ops. */
export function emitSyncOp(r: RoleCtx, op: Op, scope: Scope, loc: Loc | undefined): boolean {
  const { b, ex } = r;
  const val = (e: Expr): string => text(ex.value(e, scope, loc));
  const elect = `@${r.elect}`;
  switch (op.kind) {
    case 'wait': {
      const addr = barrierAddress(r, op.target, scope, loc);
      const parity = val(op.parity);
      const done = b.label('waited');
      const spin = b.label('wait');
      const ok = b.reg('p');
      if (r.watchdog === undefined) {
        b.place(spin);
        b.ins(`mbarrier.try_wait.parity.shared::cta.b64 ${ok}, ${addr}, ${parity}`);
        b.ins(`@!${ok} bra ${spin}`);
        return true;
      }
      const tries = b.reg('r');
      const late = b.reg('p');
      b.ins(`mov.u32 ${tries}, 0`);
      b.place(spin);
      b.ins(`mbarrier.try_wait.parity.shared::cta.b64 ${ok}, ${addr}, ${parity}, ${WATCHDOG_SUSPEND_NS}`);
      b.ins(`@${ok} bra ${done}`);
      b.ins(`add.u32 ${tries}, ${tries}, 1`);
      b.ins(`setp.ge.u32 ${late}, ${tries}, ${r.watchdog}`);
      b.ins(`@${late} trap`);
      b.ins(`bra ${spin}`);
      b.place(done);
      return true;
    }
    case 'arrive': {
      const addr = barrierAddress(r, op.target, scope, loc);
      const count = val(op.count);
      syncRoleBeforeArrive(r);
      b.ins(`${elect} mbarrier.arrive.shared::cta.b64 _, ${addr}, ${count}`);
      return true;
    }
    case 'arrive.expect_tx': {
      const addr = barrierAddress(r, op.target, scope, loc);
      const bytes = val(op.bytes);
      syncRoleBeforeArrive(r);
      b.ins(`${elect} mbarrier.arrive.expect_tx.shared::cta.b64 _, ${addr}, ${bytes}`);
      return true;
    }
    case 'expect_tx': {
      const addr = barrierAddress(r, op.target, scope, loc);
      b.ins(`${elect} mbarrier.expect_tx.relaxed.cta.shared::cta.b64 ${addr}, ${val(op.bytes)}`);
      return true;
    }
    case 'complete_tx': {
      const addr = barrierAddress(r, op.target, scope, loc);
      b.ins(`${elect} mbarrier.complete_tx.relaxed.cta.shared::cta.b64 ${addr}, ${val(op.bytes)}`);
      return true;
    }
    case 'init': {
      const addr = barrierAddress(r, op.target, scope, loc);
      b.ins(`${elect} mbarrier.init.shared::cta.b64 ${addr}, ${val(op.count)}`);
      return true;
    }
    case 'wait.token':
      throw new InputError(`role ${r.placed.role.name}: the emitter writes parity waits only, not a wait on token ${op.token}`, loc);
    case 'inval': {
      const addr = barrierAddress(r, op.target, scope, loc);
      b.ins(`${elect} mbarrier.inval.shared::cta.b64 ${addr}`);
      return true;
    }
    case 'bar.sync':
      b.ins(`bar.sync ${val(op.id)}, ${val(op.threads)}`);
      return true;
    case 'bar.arrive':
      b.ins(`bar.arrive ${val(op.id)}, ${val(op.threads)}`);
      return true;
    case 'fence.proxy.async':
      b.ins('fence.proxy.async.shared::cta');
      return true;
    case 'wgmma.commit':
      needWarpgroup(r, op, loc);
      b.ins('wgmma.commit_group.sync.aligned');
      return true;
    case 'wgmma.wait':
      needWarpgroup(r, op, loc);
      b.ins(`wgmma.wait_group.sync.aligned ${constantOperand(r.program, op.pending, 'wgmma.wait', loc)}`);
      return true;
    case 'bulk.commit':
      b.ins(`${elect} cp.async.bulk.commit_group`);
      return true;
    case 'bulk.wait':
      b.ins(`${elect} cp.async.bulk.wait_group.read ${constantOperand(r.program, op.pending, 'bulk.wait', loc)}`);
      return true;
    case 'tma.store':
      throw new InputError(`role ${r.placed.role.name}: tma.store is not supported by the emitted kernels`, loc);
    case 'put':
    case 'get':
    case 'consumed':
      throw new InputError(`role ${r.placed.role.name}: '${op.kind}' is an aref-level op; lower the Program first`, loc);
    case 'tma.load':
    case 'read':
    case 'write':
    case 'atomic':
    case 'wgmma.issue':
      return false;
  }
}

export function needWarpgroup(r: RoleCtx, op: Op, loc: Loc | undefined): void {
  if (r.placed.role.warps !== 4 || r.placed.wg === 0) {
    throw new InputError(`role ${r.placed.role.name}: ${op.kind} needs a consumer role of exactly 4 warps (one warpgroup)`, loc);
  }
}
