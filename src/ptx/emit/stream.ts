// The stream family: y = alpha·x + beta over fp32 vectors (docs/emit.md "stream").
// The producer brings chunk e of its CTA (x + (ctaid·stride + e)·chunk) into a slot with one
// 1-D bulk copy; a consumer's `read` loads the slot with ld.shared.v4, computes with
// mul.rn + add.rn (two roundings, exactly what x*alpha + beta is in fp32 on the host) and
// stores to the same place in y.
import { InputError } from '../../diag.ts';
import type { Expr, Loc, Op, Ref, Stmt } from '../../ir/program.ts';
import type { PtxBuilder } from './builder.ts';
import { text, type Scope } from './expr.ts';
import type { Family, FamilyArg } from './family.ts';
import type { EmitOptions } from './options.ts';
import { issues, type KernelPlan } from './plan.ts';
import type { RoleCtx } from './role.ts';
import { barrierAddress, slotAddress } from './sync.ts';

const ARGS: readonly FamilyArg[] = [
  { name: 'arg_x', kind: 'ptr', what: 'x: fp32 input, grid*stride*chunk bytes' },
  { name: 'arg_y', kind: 'ptr', what: 'y: fp32 output, same size' },
  { name: 'arg_alpha', kind: 'f32', what: 'alpha' },
  { name: 'arg_beta', kind: 'f32', what: 'beta' },
  { name: 'arg_stride', kind: 'u32', what: 'chunks between consecutive CTAs (usually K)' },
];

/** How many 16-byte vectors one thread handles per batch of loads before computing. */
const BATCH = 8;

export function streamFamily(plan: KernelPlan, options: EmitOptions): Family {
  if (options.dtype !== undefined && options.dtype !== 'f32') {
    throw new InputError(`the stream kernel computes in f32; --dtype ${options.dtype} is not supported`);
  }
  const buffer = dataBuffer(plan);
  const chunk = typeof options.tile === 'number' ? options.tile : buffer.bytes;
  if (typeof options.tile === 'string' || (typeof options.tile === 'object')) {
    throw new InputError('the stream kernel takes --tile as a chunk size in bytes');
  }
  if (chunk > buffer.bytes) throw new InputError(`stream chunk of ${chunk} bytes does not fit a ${buffer.name} slot of ${buffer.bytes} bytes`);
  for (const c of plan.consumers) {
    const threads = 32 * c.role.warps;
    if (chunk % (16 * threads) !== 0) {
      throw new InputError(`stream chunk of ${chunk} bytes must be a multiple of ${16 * threads} (16 bytes per thread of role ${c.role.name})`);
    }
  }
  let x = '';
  let y = '';
  let alpha = '';
  let beta = '';
  let ctaOffset = '';

  /** Global byte offset of chunk e of this CTA, as a 64-bit register. */
  const chunkOffset = (r: RoleCtx, e: Expr, scope: Scope, loc: Loc | undefined): string => {
    const idx = r.ex.register(e, scope, loc);
    const off = r.b.reg('rd');
    r.b.ins(`mul.wide.s32 ${off}, ${idx}, ${chunk}`);
    r.b.ins(`add.s64 ${off}, ${off}, ${ctaOffset}`);
    return off;
  };

  /** The consumer's use of a slot: load it, compute, store chunk `e` of y. */
  const computeChunk = (r: RoleCtx, target: Ref, e: Expr | undefined, scope: Scope, loc: Loc | undefined): void => {
    if (e === undefined) throw new InputError(`role ${r.placed.role.name}: the stream kernel needs the chunk index of each read (\`read ${target.name}[…] expect k\`)`, loc);
    const { b } = r;
    const slot = slotAddress(r, target, scope, loc);
    const mine = b.reg('r');
    b.ins(`mad.lo.s32 ${mine}, ${r.tidInRole}, 16, ${slot}`);
    const out = b.reg('rd');
    b.ins(`add.s64 ${out}, ${y}, ${chunkOffset(r, e, scope, loc)}`);
    const tidBytes = b.reg('rd');
    b.ins(`mul.wide.u32 ${tidBytes}, ${r.tidInRole}, 16`);
    b.ins(`add.s64 ${out}, ${out}, ${tidBytes}`);
    const vectors = chunk / 16 / r.threads;
    for (let start = 0; start < vectors; start += BATCH) {
      const n = Math.min(BATCH, vectors - start);
      const vals = Array.from({ length: n }, () => b.regs('f', 4));
      vals.forEach((v, i) => b.ins(`ld.shared.v4.f32 {${v.join(', ')}}, [${mine}+${(start + i) * r.threads * 16}]`));
      vals.forEach((v, i) => {
        for (const f of v) {
          b.ins(`mul.rn.f32 ${f}, ${f}, ${alpha}`);
          b.ins(`add.rn.f32 ${f}, ${f}, ${beta}`);
        }
        b.ins(`st.global.v4.f32 [${out}+${(start + i) * r.threads * 16}], {${v.join(', ')}}`);
      });
    }
  };

  return {
    kernel: 'stream',
    args: ARGS,
    issueIsGeneric: true,
    extraSmem: 0,
    prologue(b: PtxBuilder): void {
      b.comment('stream arguments: this CTA handles chunks ctaid.x*stride + e');
      x = b.reg('rd');
      y = b.reg('rd');
      alpha = b.reg('f');
      beta = b.reg('f');
      ctaOffset = b.reg('rd');
      const stride = b.reg('r');
      const cta = b.reg('r');
      b.ins(`ld.param.u64 ${x}, [arg_x]`);
      b.ins(`ld.param.u64 ${y}, [arg_y]`);
      b.ins(`cvta.to.global.u64 ${x}, ${x}`);
      b.ins(`cvta.to.global.u64 ${y}, ${y}`);
      b.ins(`ld.param.f32 ${alpha}, [arg_alpha]`);
      b.ins(`ld.param.f32 ${beta}, [arg_beta]`);
      b.ins(`ld.param.u32 ${stride}, [arg_stride]`);
      b.ins(`mov.u32 ${cta}, %ctaid.x`);
      b.ins(`mul.lo.u32 ${cta}, ${cta}, ${stride}`);
      b.ins(`mul.wide.u32 ${ctaOffset}, ${cta}, ${chunk}`);
    },
    roleStart(): void {},
    emitDataOp(r: RoleCtx, op: Op, scope: Scope, loc: Loc | undefined): void {
      const { b } = r;
      switch (op.kind) {
        case 'tma.load': {
          if (op.value === undefined) throw new InputError(`role ${r.placed.role.name}: the stream kernel needs the chunk index of each tma.load (\`value k\`)`, loc);
          if (op.target.name !== buffer.name) throw new InputError(`stream kernel: tma.load into ${op.target.name}, but the data buffer is ${buffer.name}`, loc);
          if (op.slots !== undefined) throw new InputError(`role ${r.placed.role.name}: the stream kernel loads one chunk per tma.load (no \`slots\`)`, loc);
          const dst = slotAddress(r, op.target, scope, loc);
          const bar = barrierAddress(r, op.barrier, scope, loc);
          const bytes = r.ex.value(op.bytes, scope, loc);
          if ('imm' in bytes && (bytes.imm % 16 !== 0 || bytes.imm <= 0 || bytes.imm > buffer.bytes)) {
            throw new InputError(`stream kernel: a bulk copy of ${bytes.imm} bytes must be a positive multiple of 16 that fits the slot`, loc);
          }
          const src = b.reg('rd');
          b.ins(`add.s64 ${src}, ${x}, ${chunkOffset(r, op.value, scope, loc)}`);
          b.ins(`@${r.elect} cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [${dst}], [${src}], ${text(bytes)}, ${bar}`);
          return;
        }
        case 'read':
          computeChunk(r, op.target, op.expect, scope, loc);
          return;
        case 'wgmma.issue':
          // No tensor-core work in this kernel: when the role has no `read`, the issue is the
          // slot's (synchronous, generic) use; its commit is a real, empty wgmma group. A wgmma
          // reads through the async proxy, so the program has no proxy fence before the slot's
          // release: these generic loads need their own, or the producer's next copy into the
          // slot is a cross-proxy write-after-read (found by lifting the emitted kernel).
          if (!issues(r.placed.role.body, 'read')) {
            computeChunk(r, op.target, op.expect, scope, loc);
            b.ins('fence.proxy.async.shared::cta');
          }
          if (op.commit) b.ins('wgmma.commit_group.sync.aligned');
          return;
        case 'write': {
          const slot = slotAddress(r, op.target, scope, loc);
          const at = b.reg('r');
          b.ins(`mad.lo.s32 ${at}, ${r.tidInRole}, 4, ${slot}`);
          b.ins(`st.volatile.shared.u32 [${at}], ${op.value === undefined ? 0 : text(r.ex.value(op.value, scope, loc))}`);
          return;
        }
        default:
          throw new InputError(`stream kernel: no realization for ${op.kind}`, loc);
      }
    },
    roleEnd(): void {},
    meta: () => ({ chunkBytes: chunk, dtype: 'f32', buffer: buffer.name }),
  };
}

/** The buffer the tma.loads fill: the one data buffer of the stream kernel. */
function dataBuffer(plan: KernelPlan): { name: string; bytes: number } {
  const names = new Set<string>();
  const walk = (stmts: readonly Stmt[]): void => {
    for (const s of stmts) {
      if (s.kind === 'op') {
        if (s.op.kind === 'tma.load') names.add(s.op.target.name);
      } else if (s.kind === 'for') walk(s.body);
      else {
        walk(s.then);
        walk(s.else);
      }
    }
  };
  walk(plan.producer.role.body);
  const [name, ...rest] = [...names];
  if (name === undefined || rest.length > 0) throw new InputError(`the stream kernel copies into one buffer; the producer loads into ${[...names].join(', ') || 'none'}`);
  const buf = plan.buffers.find((x) => x.name === name);
  if (!buf) throw new InputError(`tma.load target ${name} is not a buffer`);
  return buf;
}
