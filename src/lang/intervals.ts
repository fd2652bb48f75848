// Interval arithmetic over C integer expressions: the fallback when an iteration space is too
// large to enumerate. Sound over-approximation: every value an expression can take lies inside.
import { applyBin, EvalError } from '../ir/expr.ts';
import type { BinOp, Expr } from '../ir/program.ts';

export interface Interval {
  readonly lo: number;
  readonly hi: number;
}

export const TOP: Interval = { lo: -Infinity, hi: Infinity };
const BOOL: Interval = { lo: 0, hi: 1 };
const point = (v: number): Interval => ({ lo: v, hi: v });
const isPoint = (a: Interval): boolean => a.lo === a.hi && Number.isFinite(a.lo);

function hull(values: number[]): Interval {
  if (values.some(Number.isNaN)) return TOP;
  return { lo: Math.min(...values), hi: Math.max(...values) };
}

export function evalInterval(e: Expr, env: ReadonlyMap<string, Interval>): Interval {
  switch (e.kind) {
    case 'num':
      return point(e.value);
    case 'var':
      return env.get(e.name) ?? TOP;
    case 'un': {
      const a = evalInterval(e.arg, env);
      if (e.op === '-') return { lo: -a.hi, hi: -a.lo };
      return a.lo > 0 || a.hi < 0 ? point(0) : a.lo === 0 && a.hi === 0 ? point(1) : BOOL;
    }
    case 'bin':
      return binInterval(e.op, evalInterval(e.left, env), evalInterval(e.right, env));
  }
}

const bitLength = (n: number): number => (n <= 0 ? 0 : Math.floor(Math.log2(n)) + 1);

function binInterval(op: BinOp, a: Interval, b: Interval): Interval {
  // Negative shift counts are undefined in C (and fractional in applyBin): no bound.
  if ((op === '<<' || op === '>>') && b.lo < 0) return TOP;
  if (isPoint(a) && isPoint(b)) {
    try {
      return point(applyBin(op, a.lo, b.lo));
    } catch (err) {
      if (err instanceof EvalError) return TOP; // division by zero: not decidable here
      throw err;
    }
  }
  const excludesZero = (x: Interval): boolean => x.lo > 0 || x.hi < 0;
  const isZero = (x: Interval): boolean => x.lo === 0 && x.hi === 0;
  switch (op) {
    case '+': return { lo: a.lo + b.lo, hi: a.hi + b.hi };
    case '-': return { lo: a.lo - b.hi, hi: a.hi - b.lo };
    case '*': return hull([a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]);
    case '/':
      if (!excludesZero(b)) return TOP;
      return hull([a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi].map(Math.trunc));
    case '%': {
      if (!excludesZero(b)) return TOP;
      const m = Math.max(Math.abs(b.lo), Math.abs(b.hi));
      if (isPoint(b) && a.lo >= 0 && a.hi - a.lo < m && a.lo % m <= a.hi % m) return { lo: a.lo % m, hi: a.hi % m };
      if (a.lo >= 0) return { lo: 0, hi: Math.min(a.hi, m - 1) };
      if (a.hi <= 0) return { lo: Math.max(a.lo, 1 - m), hi: 0 };
      return { lo: Math.max(a.lo, 1 - m), hi: Math.min(a.hi, m - 1) };
    }
    case '&':
      if (a.lo >= 0 && b.lo >= 0) return { lo: 0, hi: Math.min(a.hi, b.hi) };
      if (a.lo >= 0) return { lo: 0, hi: a.hi };
      if (b.lo >= 0) return { lo: 0, hi: b.hi };
      return TOP;
    case '|':
    case '^': {
      if (a.lo < 0 || b.lo < 0) return TOP;
      const top = Math.max(a.hi, b.hi);
      const hi = Number.isFinite(top) ? 2 ** bitLength(top) - 1 : Infinity;
      return { lo: op === '|' ? Math.max(a.lo, b.lo) : 0, hi };
    }
    case '<<':
      if (b.lo < 0 || b.hi > 52) return TOP;
      return hull([a.lo * 2 ** b.lo, a.lo * 2 ** b.hi, a.hi * 2 ** b.lo, a.hi * 2 ** b.hi]);
    case '>>':
      if (b.lo < 0) return TOP;
      return hull([a.lo / 2 ** b.lo, a.lo / 2 ** b.hi, a.hi / 2 ** b.lo, a.hi / 2 ** b.hi].map(Math.floor));
    case '==': return a.hi < b.lo || b.hi < a.lo ? point(0) : BOOL;
    case '!=': return a.hi < b.lo || b.hi < a.lo ? point(1) : BOOL;
    case '<': return a.hi < b.lo ? point(1) : a.lo >= b.hi ? point(0) : BOOL;
    case '<=': return a.hi <= b.lo ? point(1) : a.lo > b.hi ? point(0) : BOOL;
    case '>': return binInterval('<', b, a);
    case '>=': return binInterval('<=', b, a);
    case '&&': return isZero(a) || isZero(b) ? point(0) : excludesZero(a) && excludesZero(b) ? point(1) : BOOL;
    case '||': return excludesZero(a) || excludesZero(b) ? point(1) : isZero(a) && isZero(b) ? point(0) : BOOL;
  }
}
