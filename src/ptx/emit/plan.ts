// Where the Program's parts go in the kernel (docs/emit.md "CTA layout"): the role that issues
// the TMA loads is the producer on warpgroup 0, every other role a consumer on its own
// warpgroup; the Program's mbarriers become `.shared .b64` symbols, its buffers live in dynamic
// shared memory at 1024-byte-aligned offsets.
import { InputError } from '../../diag.ts';
import { forEachOp, OP_FAMILY, type Op, type Program, type Role, type Stmt } from '../../ir/program.ts';

export interface PlacedRole {
  readonly role: Role;
  /** Index in program.roles (named barrier id of the role = 1 + index). */
  readonly index: number;
  /** Warpgroup the role runs on; its warps are 4*wg … 4*wg + warps - 1. */
  readonly wg: number;
}

export interface PlacedBuffer {
  readonly name: string;
  readonly slots: number;
  readonly bytes: number;
  /** Offset of slot 0 from the aligned dynamic shared memory base. */
  readonly offset: number;
}

export interface PlacedBarrier {
  readonly name: string;
  readonly size: number;
  /** Initial arrival count (initialised in the prologue), absent when the Program inits it. */
  readonly count?: number;
}

export interface KernelPlan {
  readonly producer: PlacedRole;
  readonly consumers: readonly PlacedRole[];
  readonly barriers: readonly PlacedBarrier[];
  readonly buffers: readonly PlacedBuffer[];
  /** Bytes of dynamic shared memory the buffers need (after the aligned base). */
  readonly bufferBytes: number;
  /** Threads per CTA: one warpgroup per role. */
  readonly threads: number;
}

export const MAX_CONSUMERS = 7;

export function planKernel(program: Program): KernelPlan {
  // each role gets a warpgroup of its own: roles sharing one wgmma would not be what the model checked
  if ((program.warpgroups ?? []).length > 0) throw new InputError(`emit: each role runs in its own warpgroup; the Program joins roles into one (warpgroup ${program.warpgroups?.[0]?.join(', ')})`);
  forEachOp(program, (op, role, loc) => {
    if (OP_FAMILY[op.kind] === 'aref') {
      throw new InputError(`role ${role.name}: '${op.kind}' is an aref-level op; emit needs an mbarrier-level Program (lower it first)`, loc);
    }
  });
  const issuers = program.roles.map((role, index) => ({ role, index })).filter(({ role }) => issues(role.body, 'tma.load'));
  if (issuers.length !== 1) {
    throw new InputError(
      issuers.length === 0
        ? 'emit: no role issues a tma.load, so there is no producer role to place on warpgroup 0'
        : `emit: ${issuers.length} roles issue tma.load (${issuers.map((r) => r.role.name).join(', ')}); the kernel has one producer role`,
    );
  }
  const first = issuers[0];
  if (!first) throw new Error('unreachable');
  const producer: PlacedRole = { ...first, wg: 0 };
  const consumers: PlacedRole[] = [];
  program.roles.forEach((role, index) => {
    if (index !== producer.index) consumers.push({ role, index, wg: consumers.length + 1 });
  });
  if (consumers.length === 0) throw new InputError('emit: the Program has no consumer role');
  if (consumers.length > MAX_CONSUMERS) throw new InputError(`emit: at most ${MAX_CONSUMERS} consumer roles fit in one CTA, the Program has ${consumers.length}`);
  for (const r of [producer, ...consumers]) {
    if (r.role.warps < 1 || r.role.warps > 4) {
      throw new InputError(`role ${r.role.name} has ${r.role.warps} warps; each role runs inside one warpgroup (1..4 warps)`, r.role.loc);
    }
  }

  const barriers: PlacedBarrier[] = [];
  const buffers: PlacedBuffer[] = [];
  let offset = 0;
  for (const r of program.resources) {
    if (r.kind === 'mbarrier') barriers.push(r.count === undefined ? { name: r.name, size: r.size } : { name: r.name, size: r.size, count: r.count });
    else if (r.kind === 'buffer') {
      buffers.push({ name: r.name, slots: r.slots, bytes: r.bytes, offset });
      offset += align(r.slots * r.bytes, 1024);
    }
  }
  return { producer, consumers, barriers, buffers, bufferBytes: offset, threads: 128 * (1 + consumers.length) };
}

export function align(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}

export function issues(stmts: readonly Stmt[], kind: Op['kind']): boolean {
  return stmts.some((s) => (s.kind === 'op' ? s.op.kind === kind : s.kind === 'for' ? issues(s.body, kind) : issues(s.then, kind) || issues(s.else, kind)));
}
