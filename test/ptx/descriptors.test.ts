// In-kernel TMA descriptors (descriptors.ts): a box is taken from tensormap.replace only when the
// kernel set the rank, every box dimension and a known element type before publishing it.
import { describe, expect, it } from 'vitest';
import { KernelDescriptors } from '../../src/ptx/lift/descriptors.ts';

function build(fields: Record<string, number>): KernelDescriptors {
  const d = new KernelDescriptors();
  for (const [f, v] of Object.entries(fields)) d.set('0:82048', f, v);
  d.publish('0:82048', 'params+0');
  return d;
}

describe('boxes of descriptors the kernel builds', () => {
  it('rank 2 (stored as 1), a 64 × 64 box of f16: 8192 bytes', () => {
    expect(build({ rank: 1, box_dim0: 64, box_dim1: 64, elemtype: 6 }).boxes().get('params+0')).toBe(8192);
    expect(build({ rank: 2, box_dim0: 32, box_dim1: 8, box_dim2: 4, elemtype: 7 }).boxes().get('params+0')).toBe(4096);
  });

  it('sizes codes 8–10 as the H200 does (f32.ftz, f64, bf16), not as the driver enum orders them', () => {
    // traces/gpu/tensormap-elemtype-h200/elemtype.txt: a 16-element box landed 64, 128 and 32 bytes
    expect([8, 9, 10].map((elemtype) => build({ rank: 1, box_dim0: 16, box_dim1: 1, elemtype }).boxes().get('params+0'))).toEqual([64, 128, 32]);
  });

  it('takes no box when a field is missing, unknown, or of an element type whose size is not certain', () => {
    expect(build({ rank: 1, box_dim0: 64, elemtype: 6 }).boxes().size).toBe(0);
    expect(build({ box_dim0: 64, box_dim1: 64, elemtype: 6 }).boxes().size).toBe(0);
    expect(build({ rank: 1, box_dim0: 64, box_dim1: 64 }).boxes().size).toBe(0);
    expect(build({ rank: 1, box_dim0: 64, box_dim1: 64, elemtype: 13 }).boxes().size).toBe(0); // packed 4-bit
    const d = new KernelDescriptors();
    d.set('0:0', 'rank', 1);
    d.set('0:0', 'box_dim0', 64);
    d.set('0:0', 'box_dim1', undefined); // a value the lifter does not know
    d.set('0:0', 'elemtype', 6);
    d.publish('0:0', 'k');
    expect(d.boxes().size).toBe(0);
  });

  it('a staging starts over after it is published, and a map published with two boxes has none', () => {
    const d = build({ rank: 1, box_dim0: 64, box_dim1: 64, elemtype: 6 });
    d.set('0:82048', 'global_address', 0); // the next descriptor staged at the same place sets only its address
    d.publish('0:82048', 'params+128');
    expect(d.boxes().has('params+128')).toBe(false);
    for (const rows of [64, 128]) {
      for (const [f, v] of Object.entries({ rank: 1, box_dim0: 64, box_dim1: rows, elemtype: 6 })) d.set('0:0', f, v);
      d.publish('0:0', 'params+256');
    }
    expect(d.boxes().has('params+256')).toBe(false);
    expect(d.boxes().get('params+0')).toBe(8192);
  });
});
