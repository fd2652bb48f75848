// The few floating-point operations a kernel's control flow can depend on: an epilogue's
// `beta != 0` (in f16 where the kernel's scalars are half: CUTLASS example 65), a scale converted
// to an integer. Values are IEEE bit patterns (f64, f32, f16, bf16) in bigints, computed with JS
// doubles and rounded to the result's format (to nearest, ties to even). Anything else (packed
// pairs, fp8, tf32, transcendental functions) is unknown, with the reason.
import { bitsFloat, floatBits } from './launch.ts';
import type { Opcode, OpType } from './opcode.ts';
import { Unknown, type Scalar } from './values.ts';

const supported = (t: OpType): boolean => t.name === 'f32' || t.name === 'f64' || t.name === 'f16' || t.name === 'bf16';

function unknown(op: Opcode, line: number): Unknown {
  return new Unknown(`a floating-point value ('${op.text}' at line ${line})`);
}

function value(x: Scalar, t: OpType): number | undefined {
  if (typeof x !== 'bigint') return undefined;
  if (t.name === 'f16') return halfValue(Number(BigInt.asUintN(16, x)));
  // bf16 is the top half of an f32
  if (t.name === 'bf16') return bitsFloat(BigInt.asUintN(16, x) << 16n, 4);
  return bitsFloat(x, t.bits === 64 ? 8 : 4);
}

function result(x: number, t: OpType): bigint {
  if (t.name === 'f16') return BigInt(halfBits(x));
  if (t.name === 'bf16') {
    if (Number.isNaN(x)) return 0x7fc0n;
    // through f32 (a tie there may round twice), then to nearest, ties to even, on the 16 bits dropped
    const b = Number(floatBits(Math.fround(x), 4));
    return BigInt(Math.floor((b + 0x7fff + ((b >>> 16) & 1)) / 0x10000) & 0xffff);
  }
  return t.bits === 64 ? floatBits(x, 8) : floatBits(Math.fround(x), 4);
}

/** An IEEE binary16 bit pattern's value. */
export function halfValue(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac !== 0 ? Number.NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** The binary16 bit pattern nearest x (ties to even; past the largest finite value, infinity). */
export function halfBits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === Infinity) return sign | 0x7c00;
  const even = (r: number): number => {
    const f = Math.floor(r);
    const d = r - f;
    return d > 0.5 || (d === 0.5 && f % 2 === 1) ? f + 1 : f;
  };
  // subnormal: a multiple of 2^-24 (rounding up to 1024 of them is the smallest normal, bits 0x400)
  if (a < 2 ** -14) return sign | even(a / 2 ** -24);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  let frac = even((a / 2 ** e - 1) * 1024);
  if (frac === 1024) {
    frac = 0;
    e++;
  }
  if (e + 15 >= 31) return sign | 0x7c00;
  return sign | ((e + 15) << 10) | frac;
}

/** A float instruction on known operands: arithmetic, setp, cvt. */
export function floatOp(op: Opcode, xs: readonly Scalar[], line: number): Scalar {
  const blocked = xs.find((x) => typeof x !== 'bigint');
  if (blocked !== undefined) return blocked instanceof Unknown ? blocked : unknown(op, line);
  if (op.base === 'cvt') return convert(op, xs[0] ?? 0n, line);
  const t = op.types[op.types.length - 1];
  if (!t || !supported(t)) return unknown(op, line);
  const v = xs.map((x) => value(x, t) ?? Number.NaN);
  const [a = Number.NaN, b = Number.NaN, c = Number.NaN] = v;
  switch (op.base) {
    case 'setp':
      return compare(op, a, b) ? 1n : 0n;
    case 'add': return result(a + b, t);
    case 'sub': return result(a - b, t);
    case 'mul': return result(a * b, t);
    case 'div': return result(a / b, t);
    case 'fma':
    case 'mad': return result(a * b + c, t);
    case 'min': return result(Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.min(a, b), t);
    case 'max': return result(Number.isNaN(a) ? b : Number.isNaN(b) ? a : Math.max(a, b), t);
    case 'neg': return result(-a, t);
    case 'abs': return result(Math.abs(a), t);
    case 'rcp': return result(1 / a, t);
    case 'sqrt': return result(Math.sqrt(a), t);
    default:
      return unknown(op, line);
  }
}

function compare(op: Opcode, a: number, b: number): boolean {
  const unordered = Number.isNaN(a) || Number.isNaN(b);
  const cmp = op.parts[0] ?? '';
  switch (cmp) {
    case 'eq': return !unordered && a === b;
    case 'ne': return !unordered && a !== b;
    case 'lt': return !unordered && a < b;
    case 'le': return !unordered && a <= b;
    case 'gt': return !unordered && a > b;
    case 'ge': return !unordered && a >= b;
    case 'equ': return unordered || a === b;
    case 'neu': return unordered || a !== b;
    case 'ltu': return unordered || a < b;
    case 'leu': return unordered || a <= b;
    case 'gtu': return unordered || a > b;
    case 'geu': return unordered || a >= b;
    case 'num': return !unordered;
    case 'nan': return unordered;
    default: return false;
  }
}

/** cvt between floats and integers (round to nearest; .rzi/.rmi/.rpi for float → int). */
function convert(op: Opcode, x: Scalar, line: number): Scalar {
  const [to, from] = op.types;
  if (!to || !from || typeof x !== 'bigint') return unknown(op, line);
  if (from.float && !supported(from)) return unknown(op, line);
  if (to.float && !supported(to)) return unknown(op, line);
  const n = from.float ? (value(x, from) ?? Number.NaN) : Number(from.signed ? BigInt.asIntN(from.bits, x) : BigInt.asUintN(from.bits, x));
  if (to.float) return result(n, to);
  if (!Number.isFinite(n)) return unknown(op, line);
  const mode = op.parts.find((p) => /^r[nzmp]i?$/.test(p)) ?? 'rzi';
  const r = mode.startsWith('rm') ? Math.floor(n) : mode.startsWith('rp') ? Math.ceil(n) : mode.startsWith('rn') ? Math.round(n) : Math.trunc(n);
  return BigInt.asUintN(to.bits, BigInt(r));
}
