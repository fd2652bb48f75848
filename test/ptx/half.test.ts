// The lifter's binary16 conversions (src/ptx/lift/float.ts): an f16 launch scalar such as CUTLASS
// example 65's beta decides a branch only if its value and its comparisons are exact.
import { describe, expect, it } from 'vitest';
import { halfBits, halfValue } from '../../src/ptx/lift/float.ts';

describe('binary16', () => {
  it('every finite bit pattern converts to its value and back', () => {
    let checked = 0;
    for (let bits = 0; bits < 0x10000; bits++) {
      const v = halfValue(bits);
      if (Number.isNaN(v)) continue;
      expect(halfBits(v)).toBe(bits);
      checked++;
    }
    expect(checked).toBe(0x10000 - 2 * 1023); // all but the NaNs
  });

  it('rounds to nearest, ties to even, into subnormals and to infinity', () => {
    expect(halfValue(0x3c00)).toBe(1);
    expect(halfValue(0x0001)).toBe(2 ** -24); // the smallest subnormal
    expect(halfBits(0.1)).toBe(0x2e66);
    expect(halfBits(1 + 2 ** -11)).toBe(0x3c00); // a tie: to the even 1.0
    expect(halfBits(1 + 3 * 2 ** -11)).toBe(0x3c02); // a tie: to the even 1 + 2^-9
    expect(halfBits(3 * 2 ** -25)).toBe(0x0002); // a subnormal tie
    expect(halfBits(2 ** -25)).toBe(0x0000); // half the smallest subnormal: to even 0
    expect(halfBits(65504)).toBe(0x7bff); // the largest finite
    expect(halfBits(65520)).toBe(0x7c00); // halfway past it: infinity
    expect(halfBits(-0)).toBe(0x8000);
    expect(halfBits(Number.NaN) & 0x7c00).toBe(0x7c00);
  });
});
