// What each operation requires of its operands: resource kinds for its refs, value ranges for
// its expressions. validate.ts checks these statically (kinds) and over the iteration space (values).
import type { Expr, Op, Ref, Resource } from '../ir/program.ts';
import { resourceSize } from '../ir/program.ts';

/** mbarrier counts (arrivals, tx bytes) are 20-bit on sm_90 (reference/ptx-mbarrier.md §1.1). */
export const MBARRIER_MAX = 2 ** 20 - 1;
/** Named barriers 0..15 (PTX bar.sync); thread counts are whole warps up to a full CTA. */
export const NAMED_BARRIERS = 16;
export const MAX_CTA_THREADS = 1024;

export type ResourceKind = Resource['kind'];

export interface RefRule {
  readonly ref: Ref;
  readonly kinds: readonly ResourceKind[];
  /** What the ref is for, in messages: "the target of put". */
  readonly role: string;
}

export interface ValueRule {
  readonly expr: Expr;
  /** Subject of the message: "the parity of wait". */
  readonly what: string;
  readonly min: number;
  readonly max: number;
  readonly multipleOf?: number;
  /** The allowed values in words: "0 or 1", "in 0..2". */
  readonly allowed: string;
}

export function refRules(op: Op): RefRule[] {
  const target = (kinds: readonly ResourceKind[]): RefRule[] => ('target' in op ? [{ ref: op.target, kinds, role: `the target of ${op.kind}` }] : []);
  switch (op.kind) {
    case 'put': case 'get': case 'consumed':
      return target(['aref']);
    case 'init': case 'arrive': case 'arrive.expect_tx': case 'expect_tx': case 'complete_tx': case 'wait': case 'wait.token': case 'inval':
      return target(['mbarrier']);
    case 'tma.load':
      return [...target(['buffer']), { ref: op.barrier, kinds: ['mbarrier'], role: 'the barrier of tma.load' }];
    case 'tma.store': case 'read': case 'write': case 'atomic':
      return target(['buffer']);
    case 'wgmma.issue':
      return target(['buffer', 'aref']);
    case 'bulk.commit': case 'bulk.wait': case 'wgmma.commit': case 'wgmma.wait':
    case 'bar.sync': case 'bar.arrive': case 'fence.proxy.async':
      return [];
  }
}

const range = (expr: Expr, what: string, min: number, max: number): ValueRule => ({ expr, what, min, max, allowed: `in ${min}..${max}` });

/** Value rules of an op whose refs already resolved (`lookup` never fails here); `named`: the program's named barrier count. */
export function valueRules(op: Op, lookup: (name: string) => Resource, named = NAMED_BARRIERS): ValueRule[] {
  const rules: ValueRule[] = refRules(op).map(({ ref }) => {
    const size = resourceSize(lookup(ref.name));
    return { expr: ref.index, what: `the index of ${ref.name}`, min: 0, max: size - 1, allowed: `in 0..${size - 1} (${ref.name} has ${size} element${size === 1 ? '' : 's'})` };
  });
  switch (op.kind) {
    case 'init': case 'arrive':
      rules.push(range(op.count, `the count of ${op.kind}`, 1, MBARRIER_MAX));
      break;
    // an expect of 0 bytes is allowed (libcu++ barrier_expect_tx: 0..2^20−1): ThunderKittens'
    // rotary kernel expects 2048 bytes per active warp, and a CTA past the last row has none
    case 'arrive.expect_tx': case 'expect_tx':
      rules.push(range(op.bytes, `the byte count of ${op.kind}`, 0, MBARRIER_MAX));
      break;
    case 'complete_tx':
      rules.push(range(op.bytes, `the byte count of ${op.kind}`, 1, MBARRIER_MAX));
      break;
    case 'tma.load': {
      const slot = lookup(op.target.name);
      // one copy may fill several consecutive slots of a buffer (the lifter's slots are per access)
      const span = op.slots?.kind === 'num' ? op.slots.value : 1;
      if (op.slots !== undefined) rules.push(range(op.slots, 'the slot count of tma.load', 1, slot.kind === 'buffer' ? slot.slots : 1));
      const room = slot.kind === 'buffer' ? slot.bytes * span : MBARRIER_MAX;
      const max = Math.min(room, MBARRIER_MAX);
      const holds = span === 1 ? `a slot of ${slot.name} holds ${room} bytes` : `${span} slots of ${slot.name} hold ${room} bytes`;
      rules.push({ ...range(op.bytes, 'the byte count of tma.load', 1, max), allowed: `in 1..${max}${slot.kind === 'buffer' && max === room ? ` (${holds})` : ''}` });
      break;
    }
    case 'wait':
      rules.push({ expr: op.parity, what: 'the parity of wait', min: 0, max: 1, allowed: '0 or 1' });
      break;
    case 'bulk.wait': case 'wgmma.wait':
      rules.push({ expr: op.pending, what: `the group count of ${op.kind}`, min: 0, max: Infinity, allowed: 'at least 0' });
      break;
    case 'bar.sync': case 'bar.arrive':
      {
        rules.push(range(op.id, `the barrier id of ${op.kind}`, 0, named - 1));
        // a cluster's barrier counts the threads of every CTA
        const max = MAX_CTA_THREADS * Math.max(1, Math.ceil(named / NAMED_BARRIERS));
        rules.push({ expr: op.threads, what: `the thread count of ${op.kind}`, min: 32, max, multipleOf: 32, allowed: `a multiple of 32 in 32..${max}` });
      }
      break;
    default:
      break;
  }
  return rules;
}

/** Every expression of an op (operands, indices, tags), for name and evaluation checks. */
export function opExprs(op: Op): Expr[] {
  const out: Expr[] = [];
  for (const value of Object.values(op) as unknown[]) {
    if (isRef(value)) out.push(value.index);
    else if (isExpr(value)) out.push(value);
  }
  return out;
}

function isRef(x: unknown): x is Ref {
  return typeof x === 'object' && x !== null && 'index' in x && 'name' in x;
}

function isExpr(x: unknown): x is Expr {
  return typeof x === 'object' && x !== null && 'kind' in x && (x.kind === 'num' || x.kind === 'var' || x.kind === 'un' || x.kind === 'bin');
}
