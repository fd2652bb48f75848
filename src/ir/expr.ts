// Integer expressions: evaluation, construction helpers and free variables.
import type { BinOp, Expr, UnOp } from './program.ts';

export type Env = ReadonlyMap<string, number>;

/** Thrown for an expression that cannot be evaluated (unbound name, division by zero). */
export class EvalError extends Error {
  override readonly name = 'EvalError';
}

export function evalExpr(e: Expr, env: Env): number {
  switch (e.kind) {
    case 'num':
      return e.value;
    case 'var': {
      const v = env.get(e.name);
      if (v === undefined) throw new EvalError(`unknown name '${e.name}'`);
      return v;
    }
    case 'un':
      return applyUn(e.op, evalExpr(e.arg, env));
    case 'bin':
      return applyBin(e.op, evalExpr(e.left, env), evalExpr(e.right, env));
  }
}

export function applyUn(op: UnOp, a: number): number {
  return op === '-' ? -a : a === 0 ? 1 : 0;
}

/** C semantics on JS safe integers: / and % truncate toward zero; comparisons give 0/1. */
export function applyBin(op: BinOp, a: number, b: number): number {
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/':
      if (b === 0) throw new EvalError('division by zero');
      return Math.trunc(a / b);
    case '%':
      if (b === 0) throw new EvalError('remainder by zero');
      return a % b;
    case '&': return Number(BigInt(integer(a)) & BigInt(integer(b)));
    case '|': return Number(BigInt(integer(a)) | BigInt(integer(b)));
    case '^': return Number(BigInt(integer(a)) ^ BigInt(integer(b)));
    case '<<': return a * 2 ** shiftCount(b);
    case '>>': return Math.floor(a / 2 ** shiftCount(b));
    case '==': return a === b ? 1 : 0;
    case '!=': return a !== b ? 1 : 0;
    case '<': return a < b ? 1 : 0;
    case '<=': return a <= b ? 1 : 0;
    case '>': return a > b ? 1 : 0;
    case '>=': return a >= b ? 1 : 0;
    case '&&': return a !== 0 && b !== 0 ? 1 : 0;
    case '||': return a !== 0 || b !== 0 ? 1 : 0;
  }
}

function integer(a: number): number {
  if (!Number.isSafeInteger(a)) throw new EvalError(`${a} is not an integer`);
  return a;
}

function shiftCount(b: number): number {
  if (!Number.isInteger(b) || b < 0 || b > 31) throw new EvalError(`shift count ${b} outside 0..31`);
  return b;
}

/** Binding strength, loosest first; used by the printer to add only the parentheses needed. */
export const PRECEDENCE: Readonly<Record<BinOp, number>> = {
  '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5,
  '==': 6, '!=': 6, '<': 7, '<=': 7, '>': 7, '>=': 7,
  '<<': 8, '>>': 8, '+': 9, '-': 9, '*': 10, '/': 10, '%': 10,
};

export const num = (value: number): Expr => ({ kind: 'num', value });
export const v = (name: string): Expr => ({ kind: 'var', name });
export const bin = (op: BinOp, left: Expr, right: Expr): Expr => ({ kind: 'bin', op, left, right });

export function freeVars(e: Expr, out: Set<string> = new Set()): Set<string> {
  if (e.kind === 'var') out.add(e.name);
  else if (e.kind === 'un') freeVars(e.arg, out);
  else if (e.kind === 'bin') {
    freeVars(e.left, out);
    freeVars(e.right, out);
  }
  return out;
}
