// Readable resource and role names from PTX symbols.
import { RESERVED } from '../../lang/syntax.ts';

/** `_ZZ10ws_ring_okPKfPfiE4full` (a C++ function-local static, as nvcc mangles it) → `full`. */
export function demangleLocal(name: string): string {
  const m = /^_ZZ.*E(\d+)([A-Za-z_][A-Za-z0-9_]*)$/.exec(name);
  if (m?.[1] && m[2] && Number(m[1]) === m[2].length) return m[2];
  return name;
}

/** An identifier the .aref language accepts (not a keyword). */
export function identifier(name: string): string {
  const s = name.replace(/[^A-Za-z0-9_]/g, '_');
  const id = /^[A-Za-z_]/.test(s) ? s : `_${s}`;
  return RESERVED.has(id) ? `${id}_` : id;
}

/** `warp0`, `warps4_7` (a contiguous range) or `warps0_2_5` (a list). */
export function roleName(warps: readonly number[]): string {
  const sorted = [...warps].sort((a, b) => a - b);
  const first = sorted[0] ?? 0;
  const last = sorted[sorted.length - 1] ?? 0;
  if (sorted.length === 1) return `warp${first}`;
  if (last - first + 1 === sorted.length) return `warps${first}_${last}`;
  return `warps${sorted.join('_')}`;
}
