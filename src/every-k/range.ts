// Which param values keep every expression of a program within the 32-bit values the checker
// represents: a proof for every K reasons in true arithmetic, a concrete run refuses an operand
// past MAX_VALUE (semantics/context.ts), so a proof covers only the values that stay in range.
import type { Expr, Program, Stmt } from '../ir/program.ts';
import { evalInterval, type Interval } from '../lang/intervals.ts';
import { MAX_INT } from '../lang/syntax.ts';
import { MAX_VALUE } from '../../semantics/machine.ts';

/**
 * Whether every expression of the program, and every part of one, stays within the values the
 * checker represents exactly for every param value in the intervals of `env` (interval arithmetic
 * over the loop ranges: an over-approximation, so false may be a false alarm, never the other
 * way). Where it may not, a concrete run is the one to tell (it refuses such an operand).
 */
function staysInRange(program: Program, env: ReadonlyMap<string, Interval>): boolean {
  return program.roles.every((role) => role.body.every((st) => stmtInRange(st, new Map(env))));
}

/**
 * The largest value V such that for every value of `param` in min..V (the others at `fixed`)
 * every expression stays in range, found by bisection: interval arithmetic is monotone (a wider
 * interval gives wider results), so the values that pass form a prefix. MAX_INT when every value a
 * param can take passes; min − 1 when min itself may not.
 */
export function largestInRange(program: Program, param: string, fixed: ReadonlyMap<string, number>, min: number): number {
  const passes = (hi: number): boolean => staysInRange(program, new Map([...[...fixed].map(([n, v]): [string, Interval] => [n, { lo: v, hi: v }]), [param, { lo: min, hi }]]));
  if (passes(MAX_INT)) return MAX_INT;
  let lo = min - 1; // passes (vacuously at min − 1)
  let hi = MAX_INT; // fails
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (passes(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * What a proof for every value of `param` from `min` covers: every value the language allows
 * when all of them stay in range, else the values up to the last one that does (past it the
 * proof's true arithmetic is not what the checker, or a GPU's 32-bit registers, computes).
 */
export function everyScope(param: string, min: number, upTo: number): string {
  return upTo >= MAX_INT ? `for every ${param} ≥ ${min}` : `for every ${param} from ${min} to ${upTo.toLocaleString('en-US')}`;
}

function stmtInRange(st: Stmt, env: Map<string, Interval>): boolean {
  switch (st.kind) {
    case 'for': {
      if (!exprInRange(st.from, env) || !exprInRange(st.to, env)) return false;
      const from = evalInterval(st.from, env);
      const to = evalInterval(st.to, env);
      const inner = new Map(env).set(st.var, { lo: from.lo, hi: Math.max(from.lo, to.hi - 1) });
      return st.body.every((s) => stmtInRange(s, inner));
    }
    case 'if':
      return exprInRange(st.cond, env) && st.then.every((s) => stmtInRange(s, env)) && st.else.every((s) => stmtInRange(s, env));
    case 'op':
      return Object.values(st.op).every((field) => !isExprLike(field) || exprInRange(field, env)) && Object.values(st.op).every((field) => !isRefLike(field) || exprInRange(field.index, env));
  }
}

const isExprLike = (x: unknown): x is Expr => typeof x === 'object' && x !== null && 'kind' in x && ['num', 'var', 'un', 'bin'].includes(String(x.kind));
const isRefLike = (x: unknown): x is { index: Expr } => typeof x === 'object' && x !== null && 'index' in x && isExprLike(x.index);

function exprInRange(e: Expr, env: ReadonlyMap<string, Interval>): boolean {
  const { lo, hi } = evalInterval(e, env);
  if (!(lo >= -MAX_VALUE && hi <= MAX_VALUE)) return false;
  switch (e.kind) {
    case 'num':
    case 'var':
      return true;
    case 'un':
      return exprInRange(e.arg, env);
    case 'bin':
      return exprInRange(e.left, env) && exprInRange(e.right, env);
  }
}
