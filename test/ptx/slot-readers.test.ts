// A scattered slot gathers bytes written together only when they are read alike. FlashMLA's sparse
// FP8 decode stages a K tile that a wgmma reads and, after its proxy fence, a validity mask that
// generic loads read, both under the extent of one TMA store (the buffer is a union with the
// output tile). One slot of both made the mask's write after the fence a write the wgmma raced
// with: a false race, gone since 2026-11-27.
import { describe, expect, it } from 'vitest';
import type { Loc } from '../../src/ir/program.ts';
import type { WarpEvent } from '../../src/ptx/lift/events.ts';
import { buildResources } from '../../src/ptx/lift/resources.ts';
import { layoutSharedMemory } from '../../src/ptx/lift/smem-layout.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';

const MODULE = ['.version 8.4', '.target sm_90a', '.address_size 64', '.shared .align 1024 .b8 buf[4096];', '.visible .entry k()', '.reqntid 64', '{', '\tret;', '}', ''].join('\n');
const at = (line: number): Loc => ({ file: 'k.ptx', line, col: 1 });

/** Warp 0 writes a tile row (0..128) and a mask (2048..2112) in one epoch; the whole buffer is one TMA store's source. */
function warps(maskReader: 'generic' | 'wgmma'): WarpEvent[][] {
  const writer: WarpEvent[] = [
    { k: 'write', cta: 0, lo: 0, hi: 128, loc: at(1) },
    { k: 'fence.proxy.async', loc: at(2) },
    { k: 'write', cta: 0, lo: 2048, hi: 2112, loc: at(3) },
    { k: 'tma.store', cta: 0, src: 0, bytes: 4096, lane: 0, copies: 1, loc: at(4) },
  ];
  const reader: WarpEvent[] = [
    { k: 'mma', cta: 0, addrs: [0], loc: at(5) },
    maskReader === 'generic' ? { k: 'read', cta: 0, lo: 2048, hi: 2112, loc: at(6) } : { k: 'mma', cta: 0, addrs: [2048], loc: at(6) },
  ];
  return [writer, reader];
}

const slotOf = (w: WarpEvent[][], lo: number, hi: number): string[] => {
  const res = buildResources(w, [0, 0], 1, layoutSharedMemory(parsePtx(MODULE, 'k.ptx')), new Map());
  return res.slots(0, [[lo, hi]]).map((s) => `${s.ref.name}[${s.ref.index.kind === 'num' ? s.ref.index.value : '?'}]`);
};

describe('scattered slots gather bytes read alike', () => {
  it('keeps a row a wgmma reads and a mask generic loads read apart, though one warp wrote both in one epoch', () => {
    const w = warps('generic');
    expect(slotOf(w, 0, 128)).toHaveLength(1);
    expect(slotOf(w, 2048, 2112)).toHaveLength(1);
    expect(slotOf(w, 0, 128)).not.toEqual(slotOf(w, 2048, 2112));
  });

  it('still gathers them when the same kind of access reads both', () => {
    const w = warps('wgmma');
    expect(slotOf(w, 0, 128)).toEqual(slotOf(w, 2048, 2112));
  });
});
