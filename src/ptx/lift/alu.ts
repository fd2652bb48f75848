// Integer and predicate arithmetic of PTX on one lane's Scalars. Known values are bigints,
// unsigned in their width; signed opcodes reinterpret them. Anything the lifter cannot
// compute (floats, unknown inputs, addresses in non-address arithmetic) becomes Unknown,
// keeping the reason of the first unknown input.
import type { Opcode, OpType } from './opcode.ts';
import { opType } from './opcode.ts';
import { keepsTag, plain } from './launch-pointers.ts';
import { SHARED_GENERIC_BASE, SHARED_WINDOW, SymAddr, Unknown, type Scalar } from './values.ts';

export const u = (x: bigint, bits: number): bigint => BigInt.asUintN(bits, x);
export const s = (x: bigint, bits: number): bigint => BigInt.asIntN(bits, x);

/** Why an address cannot be used as an integer. */
export function symReason(a: SymAddr): string {
  if (a.base.startsWith('ptr:')) {
    const name = a.base.slice(4);
    return `param ${name}, which was not given (use --param ${name}=…)`;
  }
  return `the address of ${a.base.replace(/^f\d+:/, '').replace(/^global:/, '')}`;
}

function unknownOf(x: Scalar): Unknown {
  if (x instanceof Unknown) return x;
  if (x instanceof SymAddr) return new Unknown(symReason(x));
  return new Unknown('a value');
}

/** Return the first non-bigint input as Unknown, or undefined when all inputs are known. */
function blocker(...xs: Scalar[]): Unknown | undefined {
  for (const x of xs) if (typeof x !== 'bigint') return unknownOf(x);
  return undefined;
}

function floatUnknown(op: Opcode, line: number): Unknown {
  return new Unknown(`a floating-point value ('${op.text}' at line ${line})`);
}

/** Two-operand integer ops: add sub and or xor shl shr min max div rem mul. */
export function binary(op: Opcode, a0: Scalar, b0: Scalar, line: number): Scalar {
  const t = opType(op);
  if (t.float) return floatUnknown(op, line);
  const bits = t.bits;
  // a launch pointer's tag survives pointer ± integer only (launch-pointers.ts)
  const tagged = (op.base === 'add' || op.base === 'sub') && keepsTag(op.base, a0, b0);
  const a = tagged ? a0 : plain(a0);
  const b = tagged ? b0 : plain(b0);
  if (op.base === 'add' || op.base === 'sub') {
    if (a instanceof SymAddr && typeof b === 'bigint') {
      const d = s(b, bits);
      return new SymAddr(a.base, op.base === 'add' ? a.offset + d : a.offset - d);
    }
    if (op.base === 'add' && b instanceof SymAddr && typeof a === 'bigint') return new SymAddr(b.base, b.offset + s(a, bits));
    if (op.base === 'sub' && a instanceof SymAddr && b instanceof SymAddr && a.base === b.base) return u(a.offset - b.offset, bits);
  }
  const blocked = blocker(a, b);
  if (blocked) return blocked;
  const x = a as bigint;
  const y = b as bigint;
  switch (op.base) {
    case 'add':
      return u(x + y, bits);
    case 'sub':
      return u(x - y, bits);
    case 'and':
      return u(x & y, bits);
    case 'or':
      return u(x | y, bits);
    case 'xor':
      return u(x ^ y, bits);
    case 'shl': {
      const n = u(y, 32);
      return n >= BigInt(bits) ? 0n : u(x << n, bits);
    }
    case 'shr': {
      const n = u(y, 32);
      if (t.signed) return u(s(x, bits) >> (n >= BigInt(bits) ? BigInt(bits - 1) : n), bits);
      return n >= BigInt(bits) ? 0n : u(x, bits) >> n;
    }
    case 'min':
    case 'max': {
      const xv = t.signed ? s(x, bits) : u(x, bits);
      const yv = t.signed ? s(y, bits) : u(y, bits);
      return u(op.base === 'min' ? (xv < yv ? xv : yv) : xv > yv ? xv : yv, bits);
    }
    case 'div':
    case 'rem': {
      const xv = t.signed ? s(x, bits) : u(x, bits);
      const yv = t.signed ? s(y, bits) : u(y, bits);
      if (yv === 0n) return new Unknown(`a division by zero at line ${line}`);
      return u(op.base === 'div' ? xv / yv : xv % yv, bits);
    }
    case 'mul':
    case 'mul24': {
      const xv = t.signed ? s(x, bits) : u(x, bits);
      const yv = t.signed ? s(y, bits) : u(y, bits);
      const p = xv * yv;
      if (op.mods.has('wide')) return u(p, bits * 2);
      if (op.mods.has('hi')) return u(p >> BigInt(op.base === 'mul24' ? 16 : bits), bits);
      return u(p, bits);
    }
  }
  return new Unknown(`the result of '${op.text}' at line ${line}`);
}

/** mad{.lo,.hi,.wide} and mad24. */
export function mad(op: Opcode, a0: Scalar, b0: Scalar, c: Scalar, line: number): Scalar {
  const t = opType(op);
  if (t.float) return floatUnknown(op, line);
  const a = plain(a0);
  const b = plain(b0);
  const blocked = blocker(a, b, c);
  if (blocked) return blocked;
  const bits = t.bits;
  const xv = t.signed ? s(a as bigint, bits) : u(a as bigint, bits);
  const yv = t.signed ? s(b as bigint, bits) : u(b as bigint, bits);
  const p = xv * yv;
  if (op.mods.has('wide')) return u(p + (c as bigint), bits * 2);
  if (op.mods.has('hi')) return u((p >> BigInt(bits)) + (c as bigint), bits);
  return u(p + (c as bigint), bits);
}

export function unary(op: Opcode, a0: Scalar, line: number): Scalar {
  const a = plain(a0);
  const t = opType(op);
  if (t.float) return floatUnknown(op, line);
  const blocked = blocker(a);
  if (blocked) return blocked;
  const x = a as bigint;
  const bits = t.bits;
  switch (op.base) {
    case 'not':
      return u(~x, bits);
    case 'cnot':
      return u(x, bits) === 0n ? 1n : 0n;
    case 'neg':
      return u(-s(x, bits), bits);
    case 'abs': {
      const v = s(x, bits);
      return u(v < 0n ? -v : v, bits);
    }
    case 'popc': {
      let v = u(x, bits);
      let n = 0n;
      while (v) {
        n += v & 1n;
        v >>= 1n;
      }
      return n;
    }
    case 'clz': {
      const v = u(x, bits);
      return BigInt(v === 0n ? bits : bits - v.toString(2).length);
    }
    case 'brev': {
      const v = u(x, bits).toString(2).padStart(bits, '0');
      return BigInt('0b' + [...v].reverse().join(''));
    }
    case 'bfind': {
      const v = t.signed ? s(x, bits) : u(x, bits);
      const w = v < 0n ? ~v : v;
      if (w === 0n) return 0xffffffffn;
      const pos = BigInt(w.toString(2).length - 1);
      return op.mods.has('shiftamt') ? BigInt(bits - 1) - pos : pos;
    }
  }
  return new Unknown(`the result of '${op.text}' at line ${line}`);
}

const CMP_SIGNED = new Set(['lt', 'le', 'gt', 'ge']);

function isNonNull(x: Scalar): boolean {
  return x instanceof SymAddr && (x.base.startsWith('ptr:') || x.base.startsWith('global:'));
}

/** setp's comparison (before any .and/.or/.xor combination). */
export function compare(op: Opcode, a0: Scalar, b0: Scalar, line: number): Scalar {
  const a = plain(a0);
  const b = plain(b0);
  const t = opType(op);
  if (t.float) return floatUnknown(op, line);
  const cmp = op.parts[0] ?? '';
  if ((cmp === 'eq' || cmp === 'ne') && a instanceof SymAddr && b instanceof SymAddr && a.base === b.base) {
    return (a.offset === b.offset) === (cmp === 'eq') ? 1n : 0n;
  }
  // a pointer the launch passes and the address of a declared variable are never null
  if ((cmp === 'eq' || cmp === 'ne') && isNonNull(a) !== isNonNull(b) && (a === 0n || b === 0n)) return cmp === 'ne' ? 1n : 0n;
  const blocked = blocker(a, b);
  if (blocked) return blocked;
  const bits = t.bits;
  const signed = t.signed && CMP_SIGNED.has(cmp);
  const x = signed ? s(a as bigint, bits) : u(a as bigint, bits);
  const y = signed ? s(b as bigint, bits) : u(b as bigint, bits);
  switch (cmp) {
    case 'eq': return x === y ? 1n : 0n;
    case 'ne': return x !== y ? 1n : 0n;
    case 'lt': case 'lo': return x < y ? 1n : 0n;
    case 'le': case 'ls': return x <= y ? 1n : 0n;
    case 'gt': case 'hi': return x > y ? 1n : 0n;
    case 'ge': case 'hs': return x >= y ? 1n : 0n;
  }
  return new Unknown(`the result of '${op.text}' at line ${line}`);
}

/** Predicate combination for setp.cmp.{and,or,xor} and and/or/xor.pred. */
export function boolOp(kind: string, a: Scalar, b: Scalar): Scalar {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (kind === 'and') return a & b & 1n;
    if (kind === 'or') return (a | b) & 1n;
    return (a ^ b) & 1n;
  }
  // short-circuit on a known deciding input
  if (kind === 'and' && (a === 0n || b === 0n)) return 0n;
  if (kind === 'or' && (a === 1n || b === 1n)) return 1n;
  return typeof a === 'bigint' ? unknownOf(b) : unknownOf(a);
}

export function notPred(a: Scalar): Scalar {
  return typeof a === 'bigint' ? (a === 0n ? 1n : 0n) : unknownOf(a);
}

export function select(a: Scalar, b: Scalar, c: Scalar): Scalar {
  if (c === 1n) return a;
  if (c === 0n) return b;
  if (typeof a === 'bigint' && a === b) return a;
  return unknownOf(c);
}

export function bfe(op: Opcode, a0: Scalar, b0: Scalar, c0: Scalar): Scalar {
  const a = plain(a0);
  const b = plain(b0);
  const c = plain(c0);
  const blocked = blocker(a, b, c);
  if (blocked) return blocked;
  const t = opType(op);
  const bits = t.bits;
  const pos = Number(u(b as bigint, 8));
  const len = Number(u(c as bigint, 8));
  const x = u(a as bigint, bits);
  if (len === 0) return 0n;
  if (!t.signed) return pos >= bits ? 0n : (x >> BigInt(pos)) & ((1n << BigInt(len)) - 1n);
  const sbitPos = Math.min(pos + len - 1, bits - 1);
  const sbit = (x >> BigInt(sbitPos)) & 1n;
  let out = 0n;
  for (let i = 0; i < bits; i++) {
    const bit = i < len && pos + i <= bits - 1 ? (x >> BigInt(pos + i)) & 1n : sbit;
    out |= bit << BigInt(i);
  }
  return out;
}

export function bfi(op: Opcode, f0: Scalar, b0: Scalar, c0: Scalar, d0: Scalar): Scalar {
  const f = plain(f0);
  const b = plain(b0);
  const c = plain(c0);
  const d = plain(d0);
  const blocked = blocker(f, b, c, d);
  if (blocked) return blocked;
  const bits = opType(op).bits;
  const pos = Number(u(c as bigint, 8));
  const len = Number(u(d as bigint, 8));
  let out = u(b as bigint, bits);
  for (let i = 0; i < len && pos + i < bits; i++) {
    const bit = ((f as bigint) >> BigInt(i)) & 1n;
    out = (out & ~(1n << BigInt(pos + i))) | (bit << BigInt(pos + i));
  }
  return u(out, bits);
}

export function lop3(a0: Scalar, b0: Scalar, c0: Scalar, lut0: Scalar): Scalar {
  const a = plain(a0);
  const b = plain(b0);
  const c = plain(c0);
  const lut = plain(lut0);
  const blocked = blocker(a, b, c, lut);
  if (blocked) return blocked;
  const m = 0xffffffffn;
  const x = u(a as bigint, 32);
  const y = u(b as bigint, 32);
  const z = u(c as bigint, 32);
  let out = 0n;
  for (let i = 0; i < 8; i++) {
    if (((lut as bigint) >> BigInt(i)) & 1n) {
      out |= (i & 4 ? x : ~x & m) & (i & 2 ? y : ~y & m) & (i & 1 ? z : ~z & m);
    }
  }
  return out;
}

export function prmt(a0: Scalar, b0: Scalar, c0: Scalar): Scalar {
  const a = plain(a0);
  const b = plain(b0);
  const c = plain(c0);
  const blocked = blocker(a, b, c);
  if (blocked) return blocked;
  const bytes = (u(b as bigint, 32) << 32n) | u(a as bigint, 32);
  const sel = u(c as bigint, 32);
  let out = 0n;
  for (let i = 0; i < 4; i++) {
    const nib = Number((sel >> BigInt(4 * i)) & 0xfn);
    let byte = (bytes >> BigInt(8 * (nib & 7))) & 0xffn;
    if (nib & 8) byte = byte & 0x80n ? 0xffn : 0n;
    out |= byte << BigInt(8 * i);
  }
  return out;
}

export function shf(op: Opcode, a0: Scalar, b0: Scalar, c0: Scalar): Scalar {
  const a = plain(a0);
  const b = plain(b0);
  const c = plain(c0);
  const blocked = blocker(a, b, c);
  if (blocked) return blocked;
  const n0 = u(c as bigint, 32);
  const n = op.mods.has('clamp') ? (n0 > 32n ? 32n : n0) : n0 & 31n;
  const wide = (u(b as bigint, 32) << 32n) | u(a as bigint, 32);
  return op.mods.has('l') ? u((wide << n) >> 32n, 32) : u(wide >> n, 32);
}

/** cvt between integer types (sign- or zero-extension from the source type, then truncation). */
export function convert(op: Opcode, a: Scalar, line: number): Scalar {
  const [dst, src] = op.types;
  if (!dst || !src || dst.float || src.float) return floatUnknown(op, line);
  if (a instanceof SymAddr) return a;
  const blocked = blocker(a);
  if (blocked) return blocked;
  let v = src.signed ? s(a as bigint, src.bits) : u(a as bigint, src.bits);
  if (op.mods.has('sat')) {
    const lo = dst.signed ? -(1n << BigInt(dst.bits - 1)) : 0n;
    const hi = dst.signed ? (1n << BigInt(dst.bits - 1)) - 1n : (1n << BigInt(dst.bits)) - 1n;
    v = v < lo ? lo : v > hi ? hi : v;
  }
  return u(v, dst.bits);
}

/** cvta between generic and shared addresses; other spaces keep symbolic addresses as they are. */
export function cvta(op: Opcode, a: Scalar): Scalar {
  if (!op.mods.has('shared') && !op.parts.some((p) => p.startsWith('shared'))) return a;
  if (typeof a !== 'bigint') return a;
  if (op.mods.has('to')) {
    if (a >= SHARED_GENERIC_BASE && a < SHARED_GENERIC_BASE + SHARED_WINDOW) return a - SHARED_GENERIC_BASE;
    return a < SHARED_WINDOW ? a : new Unknown('a generic address outside shared memory');
  }
  return a < SHARED_WINDOW ? a + SHARED_GENERIC_BASE : a;
}

/** Value of a typed immediate or register read for an op type: wrap into the width. */
export function fit(x: Scalar, t: OpType): Scalar {
  return typeof x === 'bigint' && !t.float ? u(x, t.bits) : x;
}
