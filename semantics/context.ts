// What a rule sees: the machine, the (mutable) state, the acting role and its instruction,
// plus the small helpers every op family needs (operand evaluation, violations).
import { InputError } from '../src/diag.ts';
import { EvalError } from '../src/ir/expr.ts';
import type { Instr, Machine } from './machine.ts';
import { ABSENT, MAX_VALUE, NO_VALUE, slotId } from './machine.ts';
import type { MachineState, Violation } from './state.ts';

export type OpInstr = Extract<Instr, { kind: 'op' }>;

export interface OpCtx {
  readonly m: Machine;
  readonly s: MachineState;
  readonly r: number;
  readonly instr: OpInstr;
}

/** A rule family: why an op cannot run now (undefined = enabled), and its effect. */
export interface OpRules {
  blockedReason(ctx: OpCtx): string | undefined;
  /** The same question without building the message (the explorer asks it for every state). */
  isBlocked?(ctx: OpCtx): boolean;
  execute(ctx: OpCtx): void;
}

export function vars(ctx: OpCtx): readonly number[] {
  return ctx.s.roles[ctx.r]?.vars ?? [];
}

/** Record a violation: the state becomes terminal and the checker reports it. */
export function fail(ctx: OpCtx, kind: Violation['kind'], message: string): void {
  if (ctx.s.violation) return;
  const v: Violation = { kind, message: `${roleName(ctx)}: ${message}`, role: ctx.r };
  if (ctx.instr.loc) v.loc = ctx.instr.loc;
  ctx.s.violation = v;
}

export const roleName = (ctx: OpCtx): string => ctx.m.roles[ctx.r]?.name ?? `role${ctx.r}`;

/** A value the checker cannot represent exactly: refused (exit 2), never a verdict on a wrapped value. */
export class ValueRangeError extends InputError {}

/**
 * Evaluate argument i; an evaluation error becomes a protocol violation (returns undefined).
 * A value outside the 32-bit range of the packed state is refused with the op's position.
 */
export function arg(ctx: OpCtx, i: number): number | undefined {
  const e = ctx.instr.args[i];
  if (!e) return undefined;
  if (e === ABSENT) return NO_VALUE;
  let v: number;
  try {
    v = e(vars(ctx));
  } catch (err) {
    if (err instanceof EvalError) {
      fail(ctx, 'protocol', `cannot evaluate an operand: ${err.message}`);
      return undefined;
    }
    throw err;
  }
  if (!(v >= -MAX_VALUE && v <= MAX_VALUE)) {
    throw new ValueRangeError(
      `the ${ctx.instr.op.kind} operand evaluates to ${v}, outside the range the checker represents exactly (${-MAX_VALUE}..${MAX_VALUE}); ` +
        'use smaller value tags (only their equality matters)',
      ctx.instr.loc,
    );
  }
  return v;
}

/** Evaluate without side effects (for enabledness and messages); NaN on error. */
export function peekArg(ctx: OpCtx, i: number): number {
  try {
    return ctx.instr.args[i]?.(vars(ctx)) ?? Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The element index of ref i, or NaN when it is out of range or cannot be evaluated. */
export function peekIndex(ctx: OpCtx, i: number): number {
  const ref = ctx.instr.refs[i];
  if (!ref) return Number.NaN;
  let idx: number;
  try {
    idx = ref.index(vars(ctx));
  } catch {
    return Number.NaN;
  }
  return Number.isInteger(idx) && idx >= 0 && idx < ref.res.size ? idx : Number.NaN;
}

/** Resolve ref i to a global id in its space (slot or barrier); out of range → protocol violation. */
export function resolve(ctx: OpCtx, i: number): number | undefined {
  const ref = ctx.instr.refs[i];
  if (!ref) return undefined;
  let idx: number;
  try {
    idx = ref.index(vars(ctx));
  } catch (err) {
    if (err instanceof EvalError) {
      fail(ctx, 'protocol', `cannot evaluate the index of ${ref.res.name}: ${err.message}`);
      return undefined;
    }
    throw err;
  }
  if (!Number.isInteger(idx) || idx < 0 || idx >= ref.res.size) {
    fail(ctx, 'protocol', `index ${idx} out of range for ${ref.res.name}[${ref.res.size}]`);
    return undefined;
  }
  return ref.res.space === 'barrier' ? ref.res.base + idx : slotId(ctx.m, ref.res, idx);
}

/** Global id of ref i without side effects, or undefined. */
export function peekResolve(ctx: OpCtx, i: number): number | undefined {
  const ref = ctx.instr.refs[i];
  const idx = peekIndex(ctx, i);
  if (!ref || Number.isNaN(idx)) return undefined;
  return ref.res.space === 'barrier' ? ref.res.base + idx : slotId(ctx.m, ref.res, idx);
}
