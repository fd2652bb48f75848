// The few floating-point operations a kernel's control flow can depend on: an epilogue's
// `beta != 0`, a scale converted to an integer. Values are IEEE bit patterns (f32, f64) in
// bigints, computed with JS doubles (f32 results rounded with Math.fround). Anything else
// (f16, bf16, transcendental functions) is unknown, with the reason.
import { bitsFloat, floatBits } from './launch.ts';
import type { Opcode, OpType } from './opcode.ts';
import { Unknown, type Scalar } from './values.ts';

const isWide = (t: OpType): boolean => t.bits === 64;
const supported = (t: OpType): boolean => t.name === 'f32' || t.name === 'f64';

function unknown(op: Opcode, line: number): Unknown {
  return new Unknown(`a floating-point value ('${op.text}' at line ${line})`);
}

function value(x: Scalar, t: OpType): number | undefined {
  if (typeof x !== 'bigint') return undefined;
  return bitsFloat(x, isWide(t) ? 8 : 4);
}

function result(x: number, t: OpType): bigint {
  return floatBits(isWide(t) ? x : Math.fround(x), isWide(t) ? 8 : 4);
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
