import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteBudget } from '../../checker/growable.ts';
import { PagedArray } from '../../checker/paged.ts';

describe('PagedArray', () => {
  it('reads back what was set, in and across pages, for each element type', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20_000 }), fc.integer({ min: 0, max: 1000 }), (n, salt) => {
        const budget = new ByteBudget(Number.POSITIVE_INFINITY);
        const ints = new PagedArray(Int32Array, budget);
        const shorts = new PagedArray(Uint16Array, budget);
        for (let i = 0; i < n; i++) {
          ints.set(i, i % 3 === 0 ? -1 - i : i * 7 + salt);
          shorts.set(i, (i + salt) & 0xffff);
        }
        let wrong = 0;
        for (let i = 0; i < n; i++) {
          if (ints.get(i) !== (i % 3 === 0 ? -1 - i : i * 7 + salt)) wrong++;
          if (shorts.get(i) !== ((i + salt) & 0xffff)) wrong++;
        }
        expect(wrong).toBe(0);
      }),
      { numRuns: 40 },
    );
  });

  it('copies nothing past its first page and leaves at most a page unused', () => {
    const budget = new ByteBudget(Number.POSITIVE_INFINITY);
    const a = new PagedArray(Uint32Array, budget);
    const n = 100_000;
    for (let i = 0; i < n; i++) a.set(i, i);
    // 25 pages of 4,096 four-byte entries: what a doubling array (up to 2^17 entries) would not give
    expect(budget.used).toBe(Math.ceil(n / 4096) * 4096 * 4);
    expect(budget.used - 4 * n).toBeLessThan(4096 * 4);
  });

  it('starts small: a few entries take the first allocation only', () => {
    const budget = new ByteBudget(Number.POSITIVE_INFINITY);
    const a = new PagedArray(Int32Array, budget);
    for (let i = 0; i < 20; i++) a.set(i, i);
    expect(budget.used).toBeLessThanOrEqual(32 * 4);
  });
});
