// Interval arithmetic is sound: every concrete value lies in the interval computed for its box.
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evalExpr, EvalError } from '../../src/ir/expr.ts';
import { BIN_OPS, type Expr } from '../../src/ir/program.ts';
import { evalInterval, type Interval } from '../../src/lang/intervals.ts';

const exprs = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: -9, max: 9 }).map((value): Expr => ({ kind: 'num', value })),
    fc.constantFrom<Expr>({ kind: 'var', name: 'x' }, { kind: 'var', name: 'y' }),
    fc.tuple(fc.constantFrom(...BIN_OPS), tie('e'), tie('e')).map(([op, left, right]): Expr => ({ kind: 'bin', op, left, right })),
    fc.tuple(fc.constantFrom('-' as const, '!' as const), tie('e')).map(([op, arg]): Expr => ({ kind: 'un', op, arg }))),
})).e;

const box = fc.tuple(fc.integer({ min: -20, max: 20 }), fc.integer({ min: 0, max: 12 })).map(([lo, width]): Interval => ({ lo, hi: lo + width }));

describe('evalInterval', () => {
  it('contains every value the expression takes in the box', () => {
    fc.assert(fc.property(exprs, box, box, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (e, bx, by, fx, fy) => {
      const x = bx.lo + Math.round(fx * (bx.hi - bx.lo));
      const y = by.lo + Math.round(fy * (by.hi - by.lo));
      let value: number;
      try {
        value = evalExpr(e, new Map([['x', x], ['y', y]]));
      } catch (err) {
        // division by zero has no value; applyBin turns a negative shift into a fraction that
        // a later bitwise operator cannot convert (RangeError): validation rejects both
        if (err instanceof EvalError || err instanceof RangeError) return;
        throw err;
      }
      if (!Number.isSafeInteger(value)) return; // shifts past 2^53 leave exact integers
      const iv = evalInterval(e, new Map([['x', bx], ['y', by]]));
      expect(iv.lo).toBeLessThanOrEqual(value);
      expect(iv.hi).toBeGreaterThanOrEqual(value);
    }), { numRuns: 3000 });
  });

  it('is exact where the validator relies on it', () => {
    const k: Expr = { kind: 'var', name: 'k' };
    const env = new Map([['k', { lo: 0, hi: 99 }]]);
    expect(evalInterval({ kind: 'bin', op: '%', left: k, right: { kind: 'num', value: 4 } }, env)).toEqual({ lo: 0, hi: 3 });
    expect(evalInterval({ kind: 'bin', op: '&', left: k, right: { kind: 'num', value: 1 } }, env)).toEqual({ lo: 0, hi: 1 });
    expect(evalInterval({ kind: 'bin', op: '+', left: k, right: { kind: 'num', value: 4 } }, env)).toEqual({ lo: 4, hi: 103 });
  });
});
