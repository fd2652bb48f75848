// Pointers in by-value parameters the user did not give. Such a 64-bit field is null for the
// kernel's own checks (CUTLASS's optional `ptr_C`, FA3's `cu_seqlens` tested against 0), exactly
// as before, but it remembers which field it came from: the value is 0 plus a tag in bits 36–63
// that names the field. Address arithmetic (pointer ± integer) keeps the tag; every other use sees
// the untagged number, so computations give what they gave with a plain 0. A global load through
// a tagged address reads an element of an array the launch passes (FA3's varlen scheduler reads
// `num_m_blocks_ptr[b]`): a launch value `params+68[4]`, not unknown data.
import type { Scalar } from './values.ts';

/**
 * Tagged values are [MARK, MARK + 2^58): bits 63–58 are 101011, the tag is bits 36–57 and the
 * offset bits 0–35. A plain integer in that window would be misread as a tagged null, so the
 * window avoids the round numbers kernels compute: Triton's Hopper warp specialization keeps a
 * phase in the sign of a 64-bit counter stepped by 2^62, which passes through 2^63 (the old mark).
 */
const MARK = 0b101011n << 58n;
const WINDOW = 1n << 58n;
const TAG_SHIFT = 36n;
const OFFSET_MASK = (1n << TAG_SHIFT) - 1n;
/** Param index below 64, field offset below 65,536: 22 bits of tag. */
const FIELD_BITS = 16n;
const MAX_PARAMS = 64;
const MAX_FIELD = 1 << 16;

/** The tagged null of field `offset` of parameter number `param`, or 0 when it does not fit a tag. */
export function nullPointer(param: number, offset: number): bigint {
  if (param < 0 || param >= MAX_PARAMS || offset < 0 || offset >= MAX_FIELD) return 0n;
  return MARK | (((BigInt(param) << FIELD_BITS) | BigInt(offset)) << TAG_SHIFT);
}

export function isTagged(x: Scalar): x is bigint {
  return typeof x === 'bigint' && x >= MARK && x < MARK + WINDOW;
}

/** The number a tagged value stands for (its offset from null); other values as they are. */
export function plain(x: Scalar): Scalar {
  return isTagged(x) ? x & OFFSET_MASK : x;
}

/** Which field a tagged address points into, and the byte offset from that field's pointer. */
export function taggedField(x: bigint): { readonly param: number; readonly field: number; readonly offset: bigint } {
  const tag = (x - MARK) >> TAG_SHIFT;
  return { param: Number(tag >> FIELD_BITS), field: Number(tag & BigInt(MAX_FIELD - 1)), offset: x & OFFSET_MASK };
}

/** Whether an add or sub keeps the tag: pointer ± integer, or the distance of two pointers into one array. */
export function keepsTag(op: 'add' | 'sub', a: Scalar, b: Scalar): boolean {
  const ta = isTagged(a);
  const tb = isTagged(b);
  if (!ta && !tb) return true;
  if (op === 'add') return ta !== tb;
  if (ta && tb) return (a as bigint) >> TAG_SHIFT === (b as bigint) >> TAG_SHIFT;
  return ta;
}
