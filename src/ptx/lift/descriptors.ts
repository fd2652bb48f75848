// TMA descriptors a kernel builds itself (Triton's device-side tensor descriptors, CUTLASS's
// grouped GEMM): `tensormap.replace` sets a field of a 128-byte descriptor staged in shared (or
// global) memory, `tensormap.cp_fenceproxy` copies a staged one to global memory, where copies
// name it. When the kernel itself sets the rank, every box dimension and the element type, the
// box is known exactly: copies through that descriptor move Π box_dim × element bytes.
import type { WarpInterp } from './warp.ts';
import { isTagged, taggedField } from './launch-pointers.ts';
import { SymAddr, type Scalar } from './values.ts';

/**
 * Element bytes by the `.elemtype` code of `tensormap.replace`. Codes 8–10 are f32.ftz, f64 and
 * bf16 here, not the driver's CUtensorMapDataType order (f64, bf16, f32_ftz): measured on an H200,
 * a 16-element box lands 64, 128 and 32 bytes (gpu/tensormap-elemtype/,
 * traces/gpu/tensormap-elemtype-h200/). Codes that pack sub-byte elements are left out.
 */
const ELEMENT_BYTES: ReadonlyMap<number, number> = new Map([[0, 1], [1, 2], [2, 4], [3, 4], [4, 8], [5, 8], [6, 2], [7, 4], [8, 4], [9, 8], [10, 2], [11, 4], [12, 4]]);

/** Identity of a tensor map operand (the address of the CUtensorMap). */
export function mapKey(w: WarpInterp, x: Scalar): string | undefined {
  if (x instanceof SymAddr) return `${x.base.replace(/^f\d+:/, '').replace(/^ptr:/, '')}+${x.offset}`;
  // a descriptor in global memory behind a pointer field left open (CUTLASS grouped GEMM's
  // per-group descriptors in its workspace): named as that array's element, as launch values are
  if (typeof x === 'bigint' && isTagged(x)) {
    const { param, field, offset } = taggedField(x);
    return `${w.launch.paramName(param)}+${field}[${offset}]`;
  }
  if (typeof x === 'bigint') return String(x);
  return undefined;
}

export class KernelDescriptors {
  /** fields set so far, by where the descriptor is staged (`cta:address` in shared memory, a map key in global) */
  private readonly staged = new Map<string, Map<string, number>>();
  /** by map key: the box bytes of the descriptor last published there; undefined once two disagree */
  private readonly published = new Map<string, number | undefined>();

  /** `tensormap.replace` of `field` (box_dim and the like with their ordinal) to a known value, or to an unknown one. */
  set(where: string, field: string, value: number | undefined): void {
    const fields = this.staged.get(where) ?? new Map<string, number>();
    this.staged.set(where, fields);
    if (value === undefined) fields.delete(field);
    else fields.set(field, value);
  }

  /** `tensormap.cp_fenceproxy` from `where` to the map `key`; the staging starts over. */
  publish(where: string, key: string): void {
    const bytes = boxBytes(this.staged.get(where));
    this.staged.delete(where);
    // one map key must mean one box: a key republished with another box is not taken
    this.published.set(key, this.published.has(key) && this.published.get(key) !== bytes ? undefined : bytes);
  }

  /** Box bytes by map key, for the maps whose every descriptor the kernel wrote in full. */
  boxes(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [k, b] of this.published) if (b !== undefined) out.set(k, b);
    return out;
  }
}

/** Π box_dim × element bytes, when the rank (stored as rank − 1), each box dimension below it and the element type were all set. */
function boxBytes(fields: ReadonlyMap<string, number> | undefined): number | undefined {
  const rank = fields?.get('rank');
  const elem = fields?.get('elemtype');
  const eb = elem === undefined ? undefined : ELEMENT_BYTES.get(elem);
  if (!fields || rank === undefined || eb === undefined || rank < 0 || rank > 4) return undefined;
  let bytes = eb;
  for (let d = 0; d <= rank; d++) {
    const n = fields.get(`box_dim${d}`);
    if (n === undefined || n < 1 || n > 256) return undefined;
    bytes *= n;
  }
  return bytes;
}
