// Tagged null pointers (launch-pointers.ts) live in a window of 64-bit values; plain integers a
// kernel computes must not fall into it. Triton's Hopper warp specialization keeps a phase in the
// sign of a 64-bit counter stepped by 2^62: 0, 2^62, 2^63, 3·2^62, and `shr.s64 63` reads it.
import { describe, expect, it } from 'vitest';
import { binary } from '../../src/ptx/lift/alu.ts';
import { isTagged, nullPointer, plain, taggedField } from '../../src/ptx/lift/launch-pointers.ts';
import { parseOpcode } from '../../src/ptx/lift/opcode.ts';

describe('tagged null pointers', () => {
  it('name their field, and read as the offset from null', () => {
    const p = nullPointer(3, 1656) + 40n;
    expect(isTagged(p)).toBe(true);
    expect(plain(p)).toBe(40n);
    expect(taggedField(p)).toEqual({ param: 3, field: 1656, offset: 40n });
    expect(taggedField(nullPointer(0, 0))).toEqual({ param: 0, field: 0, offset: 0n });
  });

  it('are not the round numbers kernels compute', () => {
    for (const x of [1n << 63n, 3n << 62n, (1n << 64n) - 1n, 1n << 62n]) expect(isTagged(x), x.toString(16)).toBe(false);
  });

  it("Triton's phase counter: the sign of 0, 2^62, 2^63, 3·2^62 gives parities 0, 0, 1, 1", () => {
    const add = parseOpcode('add.s64');
    const shr = parseOpcode('shr.s64');
    let x: bigint = 0n;
    const parities: bigint[] = [];
    for (let i = 0; i < 5; i++) {
      parities.push((binary(shr, x, 63n, 1) as bigint) & 1n);
      x = binary(add, x, 1n << 62n, 1) as bigint;
    }
    expect(parities).toEqual([0n, 0n, 1n, 1n, 0n]);
  });
});
