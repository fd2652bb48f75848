// The shared-memory bytes one wgmma.mma_async reads through a matrix descriptor: its footprint.
// Descriptor (PTX ISA, "Matrix Descriptor Format"): start address (bits 0–13), leading byte
// offset LBO (16–29) and stride byte offset SBO (32–45), all in 16-byte units, and the swizzle
// (62–63: 0 none, 1 128B, 2 64B, 3 32B). The canonical layouts (as CuTe's make_gmma_desc builds
// them), in 16-byte units, for an operand of MN rows (M of A, N of B) and the 32 bytes of K one
// instruction reads, T elements per 16 bytes and W = 1, 2, 4, 8 for none/32B/64B/128B:
//
//   K-major,  no swizzle: ((8,n),2):((1,SBO),LBO)      8-row groups at SBO, the two K halves at LBO
//   K-major,  swizzled:   ((8,n),2):((W,SBO),1)        8 rows of W×16 bytes per group, groups at SBO
//   MN-major, no swizzle: ((1,n),(8,k)):((X,SBO),(1,LBO))
//   MN-major, swizzled:   ((W,n),(8,k)):((1,LBO),(W,SBO))   W×16-byte rows of MN, n groups at LBO,
//                                                            8 K rows each, k groups at SBO
// A swizzle permutes 16-byte chunks inside a W×16-byte row, so every row's bytes stay in it: the
// footprint is the union of whole rows, a slight over-approximation only inside an atom.

import type { WarpEvent } from './events.ts';
import type { SmemLayout } from './smem-layout.ts';

export interface MmaOperand {
  readonly desc: bigint;
  readonly operand: 'a' | 'b';
}

/** Byte ranges [lo, hi) read through one descriptor, merged and sorted. */
export function footprint(op: MmaOperand, shape: string, elementBytes: number, mnMajor: boolean): [number, number][] {
  const d = op.desc;
  const field = (shift: bigint): number => Number(((d >> shift) & 0x3fffn) << 4n);
  const start = field(0n);
  const lbo = field(16n);
  const sbo = field(32n);
  const swizzle = Number((d >> 62n) & 3n);
  const w = swizzle === 1 ? 8 : swizzle === 2 ? 4 : swizzle === 3 ? 2 : 1;
  const m = /^m(\d+)n(\d+)k(\d+)$/.exec(shape);
  const mn = m ? Number(op.operand === 'a' ? m[1] : m[2]) : 64;
  const t = Math.max(1, Math.floor(16 / Math.max(1, elementBytes)));
  const out: [number, number][] = [];
  const add = (lo: number, bytes: number): void => void out.push([lo, lo + bytes]);
  if (!mnMajor) {
    const groups = Math.max(1, Math.ceil(mn / 8));
    if (w === 1) {
      for (let i = 0; i < groups; i++) {
        add(start + i * sbo, 128);
        add(start + i * sbo + lbo, 128);
      }
    } else {
      const row = w * 16;
      const base = start - (start % row);
      for (let i = 0; i < groups; i++) add(base + i * sbo, 8 * row);
    }
  } else {
    // one instruction reads 32 bytes of K: that many element rows, in groups of 8
    const kRows = Math.max(1, Math.floor(32 / Math.max(1, elementBytes)));
    const kg = Math.max(1, Math.ceil(kRows / 8));
    if (w === 1) {
      const chunks = Math.max(1, Math.ceil(mn / t));
      for (let j = 0; j < chunks; j++) for (let b = 0; b < kg; b++) add(start + j * sbo + b * lbo, 128);
    } else {
      const row = w * 16;
      const base = start - (start % row);
      const groups = Math.max(1, Math.ceil(mn / (w * t)));
      for (let a = 0; a < groups; a++) for (let b = 0; b < kg; b++) add(base + a * lbo + b * sbo, 8 * row);
    }
  }
  return mergeRanges(out);
}

export function mergeRanges(ranges: readonly (readonly [number, number])[]): [number, number][] {
  // most callers pass ranges already in order (a warp's lanes, runs merged before): sort only when not
  let ordered = true;
  for (let i = 1; i < ranges.length && ordered; i++) ordered = ranges[i - 1]![0] <= ranges[i]![0];
  const sorted = ordered ? ranges : [...ranges].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    if (hi <= lo) continue;
    const last = out[out.length - 1];
    if (last && lo <= last[1]) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** Element size of a wgmma operand type (`f16` → 2, `e4m3` → 1, `tf32` → 4). */
export function elementBytes(type: string | undefined): number {
  switch (type) {
    case 'e4m3':
    case 'e5m2':
    case 's8':
    case 'u8':
      return 1;
    case 'tf32':
    case 'f32':
    case 's32':
      return 4;
    default:
      return 2;
  }
}

/** What a wgmma event reads (`operand`: through that operand's descriptor only): each descriptor's footprint, cut at the end of the shared variable
 *  it starts in (an operand never spans two variables; past the end is our over-approximation of
 *  the last rows), or its plain addresses when the descriptors are unknown. */
export function mmaReads(e: Extract<WarpEvent, { k: 'mma' }>, layout: SmemLayout, operand?: 'a' | 'b'): [number, number][] {
  if (!e.descs || !e.shape) return operand === 'b' ? [] : e.addrs.map((a) => [a, a + 1]);
  const bytes = elementBytes(e.types?.[1]);
  const out: [number, number][] = [];
  for (const d of e.descs) {
    if (operand !== undefined && d.operand !== operand) continue;
    const mnMajor = d.operand === 'a' ? (e.mnMajor?.a ?? false) : (e.mnMajor?.b ?? false);
    const ranges = footprint(d, e.shape, bytes, mnMajor);
    const sym = ranges[0] ? layout.symbolAt(ranges[0][0]) : undefined;
    const end = sym ? sym.start + sym.size : Infinity;
    for (const [lo, hi] of ranges) if (lo < end) out.push([lo, Math.min(hi, end)]);
  }
  return out;
}
