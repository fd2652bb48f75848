// Arithmetic, moves and memory instructions of one warp (the non-synchronizing part of PTX).
// Data the lifter does not know (global loads, floats it cannot compute) becomes Unknown with
// the reason; shared memory holds the values threads store (sim.ts), so a value one warp stores
// and another loads after a barrier is known to both.
import {
  bfe, bfi, binary, boolOp, compare, convert, cvta, fit, lop3, mad, notPred, prmt, select, shf, u, unary,
} from './alu.ts';
import { floatOp } from './float.ts';
import { mergeRanges } from './footprint.ts';
import { decides } from './value-uses.ts';
import type { Arg, FlatInstr } from './flatten.ts';
import type { Loc } from '../../ir/program.ts';
import { opType, stateSpace, typeBytes, type Opcode } from './opcode.ts';
import type { Frame, WarpInterp } from './warp.ts';
import { CLUSTER_BASE, CTA_WINDOW } from './shared-windows.ts';
import { mapKey } from './descriptors.ts';
import { firstLane, isLanes, laneOf, plusOffset, SHARED_GENERIC_BASE, SHARED_WINDOW, SymAddr, UNINIT, Unknown, WARP, type Scalar, type Val } from './values.ts';

/** Operand i of an instruction (a plain function: this runs for every instruction executed). */
function operand(w: WarpInterp, fr: Frame, a: readonly (Arg | undefined)[], i: number): Val {
  const x = a[i];
  return x ? w.read(fr, x) : new Unknown('a missing operand');
}

/** Execute a non-synchronizing instruction (isExecInstr says which; it never waits). */
export function execInstr(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): undefined {
  const op = ins.op;
  const a = ins.args;
  const line = ins.loc.line;
  const t = opType(op);
  if (t.float && FLOAT_BASES.has(op.base)) {
    const n = op.base === 'fma' || op.base === 'mad' ? 3 : UNARY_FLOAT.has(op.base) ? 1 : 2;
    const ins3 = [operand(w, fr, a, 1), operand(w, fr, a, 2), operand(w, fr, a, 3)].slice(0, n);
    w.write(fr, a[0], w.map(m, ins3, (xs) => floatOp(op, xs, line)), m);
    return handled();
  }
  switch (op.base) {
    case 'mov':
      mov(w, fr, ins, m);
      return handled();
    case 'add': case 'sub': case 'and': case 'or': case 'xor': case 'shl': case 'shr':
    case 'min': case 'max': case 'div': case 'rem': case 'mul': case 'mul24':
      if (t.name === 'pred') w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1), operand(w, fr, a, 2)], ([x = UNINIT, y = UNINIT]) => boolOp(op.base, x, y)), m);
      else w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1), operand(w, fr, a, 2)], ([x = UNINIT, y = UNINIT]) => binary(op, x, y, line)), m);
      return handled();
    case 'mad': case 'mad24':
      w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1), operand(w, fr, a, 2), operand(w, fr, a, 3)], ([x = UNINIT, y = UNINIT, z = UNINIT]) => mad(op, x, y, z, line)), m);
      return handled();
    case 'not': case 'cnot': case 'neg': case 'abs': case 'popc': case 'clz': case 'brev': case 'bfind':
      if (t.name === 'pred' && op.base === 'not') w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1)], ([x = UNINIT]) => notPred(x)), m);
      else w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1)], ([x = UNINIT]) => unary(op, x, line)), m);
      return handled();
    case 'setp':
      setp(w, fr, ins, m);
      return handled();
    case 'selp':
      w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1), operand(w, fr, a, 2), operand(w, fr, a, 3)], ([x = UNINIT, y = UNINIT, c = UNINIT]) => fit(select(x, y, c), t)), m);
      return handled();
    case 'cvt':
      w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1)], ([x = UNINIT]) => (op.types.some((x) => x.float) ? floatOp(op, [x], line) : convert(op, x, line))), m);
      return handled();
    case 'cvta':
      w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1)], ([x = UNINIT]) => cvta(op, x)), m);
      return handled();
    case 'bfe':
      w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1), operand(w, fr, a, 2), operand(w, fr, a, 3)], ([x = UNINIT, y = UNINIT, z = UNINIT]) => bfe(op, x, y, z)), m);
      return handled();
    case 'bfi':
      w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1), operand(w, fr, a, 2), operand(w, fr, a, 3), operand(w, fr, a, 4)], ([p = UNINIT, x = UNINIT, y = UNINIT, z = UNINIT]) => bfi(op, p, x, y, z)), m);
      return handled();
    case 'lop3':
      w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1), operand(w, fr, a, 2), operand(w, fr, a, 3), operand(w, fr, a, 4)], ([p = UNINIT, x = UNINIT, y = UNINIT, z = UNINIT]) => lop3(p, x, y, z)), m);
      return handled();
    case 'prmt':
      w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1), operand(w, fr, a, 2), operand(w, fr, a, 3)], ([x = UNINIT, y = UNINIT, z = UNINIT]) => (op.parts.length > 1 ? w.unknownResult(ins) : prmt(x, y, z))), m);
      return handled();
    case 'shf':
      w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1), operand(w, fr, a, 2), operand(w, fr, a, 3)], ([x = UNINIT, y = UNINIT, z = UNINIT]) => shf(op, x, y, z)), m);
      return handled();
    case 'ld': case 'ldu':
      load(w, fr, ins, m);
      return handled();
    case 'st':
      store(w, fr, ins, m);
      return handled();
    case 'atom': case 'red':
      if (op.mods.has('async')) w.unsupported(`'${op.text}' at line ${line} (remote shared-memory reductions with mbarrier completion)`, ins.loc);
      atomic(w, fr, ins, m);
      return handled();
    case 'stmatrix':
      smemRange(w, fr, ins, matrixLanes(op, m), a[0], 16, 'write');
      return handled();
    case 'ldmatrix':
      smemRange(w, fr, ins, matrixLanes(op, m), a[1], 16, 'read');
      w.clobber(fr, ins, m);
      return handled();
    case 'activemask':
      w.write(fr, a[0], BigInt(m >>> 0), m);
      return handled();
    case 'getctarank':
      w.write(fr, a[0], w.map(m, [operand(w, fr, a, 1)], ([x = UNINIT]) => (typeof x === 'bigint' && x >= CLUSTER_BASE ? BigInt(Math.floor(Number(x - CLUSTER_BASE) / CTA_WINDOW)) : BigInt(w.cta))), m);
      return handled();
    case 'membar': case 'griddepcontrol': case 'nanosleep': case 'prefetch': case 'prefetchu':
    case 'pmevent': case 'applypriority': case 'discard': case 'createpolicy':
      if (op.base === 'createpolicy') w.clobber(fr, ins, m);
      return handled();
    case 'tensormap':
      descriptorUpdate(w, fr, ins, m);
      return handled();
    case 'tcgen05':
      return w.unsupported(`'${op.text}' at line ${line} (Blackwell tcgen05 is not modelled)`, ins.loc);
    default:
      w.clobber(fr, ins, m);
      return handled();
  }
}

/**
 * In-kernel TMA descriptor updates (Triton's device-side descriptors, CUTLASS grouped GEMM):
 * `tensormap.replace` rewrites a field of a 128-byte descriptor, here staged in shared memory (a
 * write of it), and `tensormap.cp_fenceproxy` copies it to global memory (a read of it). The
 * fields that give the box are followed (descriptors.ts); the lines are kept for the report.
 */
function descriptorUpdate(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  w.sim.descriptorUpdates.add(ins.loc.line);
  const [first, second, third] = ins.args;
  const lane = firstLane(m);
  // where a descriptor is staged: `cta:address` in shared memory, its map key in global memory
  const where = (arg: Arg, shared: boolean): string | undefined => {
    const v = laneOf(w.address(fr, arg), lane);
    if (!shared) return mapKey(w, v);
    return typeof v === 'bigint' ? `${w.cta}:${v}` : undefined;
  };
  const known = (arg: Arg | undefined): number | undefined => {
    const v = arg ? laneOf(w.read(fr, arg), lane) : undefined;
    return typeof v === 'bigint' ? Number(v) : undefined;
  };
  if (ins.op.parts[0] === 'replace' && first) {
    const field = ins.op.parts[2] ?? '';
    const shared = classify(ins.op, w.address(fr, first)) === 'shared';
    const at = where(first, shared);
    const ordinal = ['box_dim', 'global_dim', 'global_stride', 'element_stride'].includes(field);
    if (at !== undefined) w.sim.descriptors.set(at, ordinal ? `${field}${known(second) ?? '?'}` : field, known(ordinal ? third : second));
    if (shared) smemRange(w, fr, ins, m, first, 128, 'write');
  } else if (ins.op.parts[0] === 'cp_fenceproxy' && first && second) {
    const from = where(second, true); // the source of cp_fenceproxy is always shared::cta
    const to = mapKey(w, laneOf(w.address(fr, first), lane));
    if (from !== undefined && to !== undefined) w.sim.descriptors.publish(from, to);
    smemRange(w, fr, ins, m, second, 128, 'read');
  }
}

/** execInstr's "handled, nothing to wait for" (a separate function keeps the switch readable). */
function handled(): undefined {
  return undefined;
}

const FLOAT_BASES = new Set(['add', 'sub', 'mul', 'fma', 'mad', 'div', 'min', 'max', 'neg', 'abs', 'rcp', 'sqrt', 'rsqrt', 'ex2', 'lg2', 'sin', 'cos', 'tanh', 'copysign', 'testp']);
const UNARY_FLOAT = new Set(['neg', 'abs', 'rcp', 'sqrt', 'rsqrt', 'ex2', 'lg2', 'sin', 'cos', 'tanh', 'testp']);

/** Is this one of execInstr's instructions? (sync-ops.ts handles the rest.) */
export function isExecInstr(op: Opcode): boolean {
  if (opType(op).float && FLOAT_BASES.has(op.base)) return true;
  // st.async signals an mbarrier: sync-ops.ts
  if (op.base === 'st' && op.mods.has('async')) return false;
  return EXEC_BASES.has(op.base);
}

const EXEC_BASES = new Set([
  'mov', 'add', 'sub', 'and', 'or', 'xor', 'shl', 'shr', 'min', 'max', 'div', 'rem', 'mul', 'mul24', 'mad', 'mad24', 'not', 'cnot',
  'neg', 'abs', 'popc', 'clz', 'brev', 'bfind', 'setp', 'selp', 'cvt', 'cvta', 'bfe', 'bfi', 'lop3', 'prmt', 'shf', 'ld', 'ldu', 'st',
  'atom', 'red', 'stmatrix', 'ldmatrix', 'activemask', 'getctarank', 'membar', 'griddepcontrol', 'nanosleep', 'prefetch', 'prefetchu',
  'pmevent', 'applypriority', 'discard', 'tensormap', 'createpolicy', 'tcgen05',
]);

function mov(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  const [d, s0] = ins.args;
  if (!d || !s0) return;
  const t = opType(ins.op);
  if (d.k === 'vec' && s0.k !== 'vec') {
    // unpack: mov.b64 {%r1, %r2}, %rd
    const src = w.read(fr, s0);
    const n = d.items.length;
    const eb = t.bits / n;
    d.items.forEach((item, i) => {
      w.write(fr, item, w.map(m, [src], ([x = UNINIT]) => (typeof x === 'bigint' ? u(x >> BigInt(eb * i), eb) : x instanceof Unknown ? x : w.unknownResult(ins))), m);
    });
    return;
  }
  if (s0.k === 'vec' && d.k !== 'vec') {
    const vals = s0.items.map((x) => w.read(fr, x));
    const eb = t.bits / Math.max(1, vals.length);
    w.write(fr, d, w.map(m, vals, (xs) => {
      let out = 0n;
      for (let i = 0; i < xs.length; i++) {
        const x = xs[i] ?? UNINIT;
        if (typeof x !== 'bigint') return x instanceof Unknown ? x : w.unknownResult(ins);
        out |= u(x, eb) << BigInt(eb * i);
      }
      return out;
    }), m);
    return;
  }
  if (s0.k === 'label' || s0.k === 'func' || s0.k === 'targets') {
    w.write(fr, d, w.unknownResult(ins), m);
    return;
  }
  const v = w.read(fr, s0);
  w.write(fr, d, isLanes(v) ? v.map((x) => fit(x, t)) : fit(v, t), m);
}

function setp(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  const [d, a0, b0, c0] = ins.args;
  if (!d || !a0 || !b0) return;
  const comb = ins.op.parts[1];
  const combine = comb === 'and' || comb === 'or' || comb === 'xor' ? comb : undefined;
  const x = w.read(fr, a0);
  const y = w.read(fr, b0);
  const c = c0 && combine ? w.read(fr, c0) : undefined;
  const line = ins.loc.line;
  const float = opType(ins.op).float;
  const cmp = float ? floatCompare : compare;
  const p = w.map(m, c ? [x, y, c] : [x, y], ([xa = UNINIT, ya = UNINIT, ca]) => {
    const r0 = cmp(ins.op, xa, ya, line);
    return ca !== undefined && combine ? boolOp(combine, r0, ca) : r0;
  });
  if (d.k === 'pair') {
    const q = w.map(m, c ? [x, y, c] : [x, y], ([xa = UNINIT, ya = UNINIT, ca]) => {
      const r0 = notPred(cmp(ins.op, xa, ya, line));
      return ca !== undefined && combine ? boolOp(combine, r0, ca) : r0;
    });
    w.write(fr, d.first, p, m);
    w.write(fr, d.second, q, m);
  } else {
    w.write(fr, d, p, m);
  }
}

function floatCompare(op: Opcode, x: Scalar, y: Scalar, line: number): Scalar {
  return floatOp(op, [x, y], line);
}

/** stmatrix/ldmatrix .x1/.x2/.x4: lanes 0..8n−1 give the row addresses; the others' are ignored (PTX §9.7.14.5.15). */
function matrixLanes(op: Opcode, m: number): number {
  const n = op.mods.has('x1') ? 1 : op.mods.has('x2') ? 2 : 4;
  return n === 4 ? m : m & ((1 << (8 * n)) - 1);
}

/** Shared-memory addresses of the active lanes: CTA rank and byte offset each. */
export function smemLanes(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number, addrArg: Arg | undefined): { cta: number; addr: number }[] {
  if (!addrArg) w.unsupported(`missing address in '${ins.op.text}' at line ${ins.loc.line}`, ins.loc);
  const v = w.address(fr, addrArg);
  if (!isLanes(v)) return [w.smem(v, ins, 'shared-memory')];
  const out: { cta: number; addr: number }[] = [];
  for (let l = 0; l < WARP; l++) if ((m >>> l) & 1) out.push(w.smem(v[l] ?? UNINIT, ins, 'shared-memory'));
  return out;
}

/**
 * Record a generic shared-memory access of the warp: one event per CTA it touches, with the
 * lanes' bytes as merged runs when they are not one (a swizzled epilogue store: warps interleave).
 */
export function smemRange(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number, addrArg: Arg | undefined, bytes: number, kind: 'read' | 'write' | 'atomic', data?: string): void {
  const byCta = new Map<number, [number, number][]>();
  for (const x of smemLanes(w, fr, ins, m, addrArg)) {
    const r = byCta.get(x.cta) ?? [];
    r.push([x.addr, x.addr + bytes]);
    byCta.set(x.cta, r);
    if (kind !== 'read') w.sim.cta(x.cta).smem.forget(x.addr, x.addr + bytes);
    if (x.cta !== w.cta) w.sim.remoteAccesses.add(ins.loc.line);
  }
  recordAccesses(w, byCta, kind, ins.loc, data);
  // a load lands in its destination registers (ld, ldmatrix); a read without one is never known over
  if (kind === 'read') w.loads.issued(fr.regs, ins.op.base === 'ld' || ins.op.base === 'ldmatrix' ? ins.args[0] : undefined);
}

/** One access event per CTA of `byCta`, its byte ranges merged (runs as parts when they are not one). */
export function recordAccesses(w: WarpInterp, byCta: ReadonlyMap<number, [number, number][]>, kind: 'read' | 'write' | 'atomic', loc: Loc, data?: string): void {
  for (const [cta, ranges] of byCta) {
    const runs = mergeRanges(ranges);
    const lo = runs[0]?.[0] ?? 0;
    const hi = runs.at(-1)?.[1] ?? 0;
    if (lo < hi) w.event({ k: kind === 'read' ? 'read' : 'write', cta, lo, hi, ...(runs.length > 1 ? { parts: runs } : {}), ...(data !== undefined ? { data } : {}), ...(kind === 'atomic' ? { atomic: true as const } : {}), loc });
  }
}

/** Which memory an address operand points to, per its state space and value. */
function classify(op: Opcode, v: Val): 'shared' | 'frame' | 'global' {
  const space = stateSpace(op);
  if (space === 'shared') return 'shared';
  if (space === 'global' || space === 'const') return 'global';
  if (space === 'param' || space === 'local') return 'frame';
  const x = isLanes(v) ? (v.find((e) => !(e instanceof Unknown)) ?? UNINIT) : v;
  if (x instanceof SymAddr) return x.base.startsWith('f') ? 'frame' : 'global';
  if (typeof x === 'bigint' && x >= SHARED_GENERIC_BASE && x < SHARED_GENERIC_BASE + SHARED_WINDOW) return 'shared';
  // generic `mapa.u64` of a shared address: another CTA's shared memory (the Guide's distributed histogram)
  if (typeof x === 'bigint' && x >= CLUSTER_BASE && x < CLUSTER_BASE + BigInt(CTA_WINDOW) * 64n) return 'shared';
  return 'global';
}

function load(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  const [d, addrArg] = ins.args;
  if (!d || !addrArg) return;
  const t = opType(ins.op);
  const eb = typeBytes(t.name) || 4;
  const n = ins.op.vector;
  const addr = w.address(fr, addrArg);
  const where = classify(ins.op, addr);
  const items = d.k === 'vec' ? d.items : [d];
  if (where === 'shared') {
    smemRange(w, fr, ins, m, addrArg, eb * n, 'read');
    items.forEach((item, i) => {
      const v = w.map(m, [addr], ([x = UNINIT]) => {
        if (typeof x !== 'bigint') return new Unknown(`shared-memory data loaded at line ${ins.loc.line}`);
        const at = w.smem(x, ins, 'shared-memory');
        const got = w.sim.cta(at.cta).smem.load(at.addr + i * eb, eb);
        return got !== undefined && !isLanes(got) ? got : new Unknown(`shared-memory data loaded at line ${ins.loc.line}`);
      });
      w.write(fr, item, v, m);
    });
    return;
  }
  if (where === 'global') {
    // an integer element of an array a launch pointer points to is a launch value when it decides
    // something; other global data, and flags other CTAs write (loads with memory-order
    // qualifiers: stream-K's ld.acquire spin), are unknown
    const ordered = ORDERED.find((q) => ins.op.mods.has(q));
    const input = !t.float && eb <= 4 && ordered === undefined && decides(fr.fn, ins);
    const data = new Unknown(
      ordered === undefined
        ? `data loaded at line ${ins.loc.line}`
        : `a flag loaded with ld.${ordered} at line ${ins.loc.line} (other threads write it: synchronization through global memory is not modelled)`,
      ordered === undefined ? undefined : ins.loc.line,
    );
    items.forEach((item, i) => {
      const v = w.map(m, [addr], ([x = UNINIT]) => {
        const at = input ? w.launch.arrayElement(plusOffset(x, BigInt(i * eb))) : undefined;
        return at ? w.launch.element(at, eb, ins.loc.line) : data;
      });
      w.write(fr, item, v, m);
    });
    return;
  }
  items.forEach((item, i) => {
    // a uniform address may hold a per-lane value (local memory): keep its lanes
    if (!isLanes(addr) && addr instanceof SymAddr) {
      w.write(fr, item, w.memLoad(new SymAddr(addr.base, addr.offset + BigInt(i * eb)), eb, t.float), m);
      return;
    }
    const v = w.map(m, [addr], ([x = UNINIT]) => {
      if (x instanceof SymAddr) {
        const got = w.memLoad(new SymAddr(x.base, x.offset + BigInt(i * eb)), eb, t.float);
        return isLanes(got) ? laneOf(got, 0) : got;
      }
      return new Unknown(`data loaded at line ${ins.loc.line}`);
    });
    w.write(fr, item, v, m);
  });
}

/** Loads that synchronize with other threads: what they read is not the host's. */
const ORDERED = ['acquire', 'relaxed', 'volatile', 'mmio'] as const;

function store(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  const [addrArg, src] = ins.args;
  if (!addrArg || !src) return;
  const eb = typeBytes(opType(ins.op).name) || 4;
  const n = ins.op.vector;
  const addr = w.address(fr, addrArg);
  const where = classify(ins.op, addr);
  const items = src.k === 'vec' ? src.items : [src];
  if (where === 'shared') {
    smemRange(w, fr, ins, m, addrArg, eb * n, 'write', storedData(w, fr, ins, m, addr, items, eb));
    items.forEach((item, i) => {
      const v = w.read(fr, item);
      for (let l = 0; l < WARP; l++) {
        if (((m >>> l) & 1) === 0) continue;
        const x = laneOf(addr, l);
        if (typeof x !== 'bigint') continue;
        const at = w.smem(x, ins, 'shared-memory');
        const val = laneOf(v, l);
        w.sim.cta(at.cta).smem.store(at.addr + i * eb, eb, typeof val === 'bigint' ? u(val, eb * 8) : undefined);
      }
    });
    return;
  }
  if (where === 'global') {
    wroteGlobal(w, addr, m, items.length, eb, ins.loc.line);
    return;
  }
  items.forEach((item, i) => {
    const v = w.read(fr, item);
    if (!isLanes(addr)) {
      if (addr instanceof SymAddr) w.memStore(new SymAddr(addr.base, addr.offset + BigInt(i * eb)), v, eb, m);
      return;
    }
    for (let l = 0; l < WARP; l++) {
      const x = addr[l];
      if ((m >>> l) & 1 && x instanceof SymAddr) w.memStore(new SymAddr(x.base, x.offset + BigInt(i * eb)), laneOf(v, l), eb, 1 << l);
    }
  });
}

/** Every byte address and value a shared store writes, when all are known: warps storing the same data at the same bytes do not race (a broadcast flag). */
function storedData(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number, addr: Val, items: readonly Arg[], eb: number): string | undefined {
  const out: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!item) return undefined;
    const v = w.read(fr, item);
    for (let l = 0; l < WARP; l++) {
      if (((m >>> l) & 1) === 0) continue;
      const x = laneOf(addr, l);
      const val = laneOf(v, l);
      if (typeof x !== 'bigint' || typeof val !== 'bigint') return undefined;
      out.push(`${x + BigInt(i * eb)}=${u(val, eb * 8)}`);
    }
  }
  return [...new Set(out)].sort().join(',');
}

/** A global write of `n` elements of `eb` bytes: elements of launch arrays it hits are the kernel's data, not inputs. */
function wroteGlobal(w: WarpInterp, addr: Val, m: number, n: number, eb: number, line: number): void {
  for (let l = 0; l < WARP; l++) {
    if (((m >>> l) & 1) === 0) continue;
    for (let i = 0; i < n; i++) {
      const at = w.launch.arrayElement(plusOffset(laneOf(addr, l), BigInt(i * eb)));
      if (at) w.launch.wroteElement(at, line);
    }
  }
}

/** An address `d` bytes further (a vector's i-th element). */
function atomic(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number): void {
  const hasDest = ins.op.base === 'atom';
  const addrArg = ins.args[hasDest ? 1 : 0];
  const eb = typeBytes(opType(ins.op).name) || 4;
  const addr = addrArg ? w.address(fr, addrArg) : UNINIT;
  const where = classify(ins.op, addr);
  if (addrArg && where === 'shared') {
    const after = sharedCombined(w, fr, ins, m, addr, eb);
    smemRange(w, fr, ins, m, addrArg, eb, 'atomic');
    for (const [at, v] of after ?? []) w.sim.cta(at.cta).smem.store(at.addr, eb, v);
  }
  if (where === 'global') wroteGlobal(w, addr, m, 1, eb, ins.loc.line);
  if (hasDest && !(addrArg && counterAdd(w, fr, ins, m, addrArg))) w.clobber(fr, ins, m);
}

/** Integer read-modify-writes whose result does not depend on the order the threads apply them in. */
const COMMUTING: Readonly<Record<string, (a: bigint, b: bigint) => bigint>> = {
  add: (a, b) => a + b,
  and: (a, b) => a & b,
  or: (a, b) => a | b,
  xor: (a, b) => a ^ b,
};

/**
 * What an integer `atom`/`red` on shared memory leaves in its cells, when the cells hold known
 * values and the lanes' operands are known (libcu++'s `cuda::make_pipeline` counts its producer
 * threads with `atom.add` on a shared word that thread 0 zeroed; thread 0 then reads the count as
 * the stage barriers' arrival count, after a `bar.sync`). Only operations that commute: any order
 * of the threads leaves the same value. What each thread gets back does depend on that order, so
 * the destination stays unknown (`clobber`). Undefined when something is not known.
 */
function sharedCombined(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number, addr: Val, eb: number): Map<{ cta: number; addr: number }, bigint> | undefined {
  const kind = ins.op.parts.find((p) => p in COMMUTING);
  const src = ins.args[ins.op.base === 'atom' ? 2 : 1];
  if (kind === undefined || !src || opType(ins.op).float || ins.args.length > (ins.op.base === 'atom' ? 3 : 2)) return undefined;
  const f = COMMUTING[kind]!;
  const amount = w.read(fr, src);
  const cells = new Map<string, { at: { cta: number; addr: number }; v: bigint }>();
  for (let l = 0; l < WARP; l++) {
    if (((m >>> l) & 1) === 0) continue;
    const x = laneOf(addr, l);
    const v = laneOf(amount, l);
    if (typeof x !== 'bigint' || typeof v !== 'bigint') return undefined;
    const at = w.smem(x, ins, 'shared-memory');
    const key = `${at.cta}:${at.addr}`;
    const old = cells.get(key)?.v ?? w.sim.cta(at.cta).smem.load(at.addr, eb);
    if (typeof old !== 'bigint') return undefined;
    cells.set(key, { at, v: BigInt.asUintN(eb * 8, f(old, v)) });
  }
  return new Map([...cells.values()].map((c) => [c.at, c.v]));
}

/**
 * `atom.global.add` on one known address with known operands: a work counter (FA3's dynamic tile
 * scheduler takes its next tile from one). Each active lane, in lane order, gets the counter's
 * value and adds its operand; the counter starts at 0 and only this launch's CTAs advance it (the
 * lifter reports that assumption). False when the address or an operand is not known.
 */
function counterAdd(w: WarpInterp, fr: Frame, ins: FlatInstr, m: number, addrArg: Arg): boolean {
  const addr = w.address(fr, addrArg);
  const src = ins.args[2];
  if (!ins.op.parts.includes('add') || classify(ins.op, addr) !== 'global' || !src || opType(ins.op).float) return false;
  const bits = typeBytes(opType(ins.op).name) * 8 || 32;
  let key: string | undefined;
  for (let l = 0; l < WARP; l++) {
    if (((m >>> l) & 1) === 0) continue;
    const x = laneOf(addr, l);
    const k = typeof x === 'bigint' ? `${x}` : x instanceof SymAddr ? `${x.base}+${x.offset}` : undefined;
    if (k === undefined || (key !== undefined && k !== key)) return false;
    key = k;
  }
  const amount = w.read(fr, src);
  if (key === undefined) return false;
  const out: Scalar[] = new Array<Scalar>(WARP).fill(UNINIT);
  for (let l = 0; l < WARP; l++) {
    if (((m >>> l) & 1) === 0) continue;
    const v = laneOf(amount, l);
    if (typeof v !== 'bigint') return false;
    out[l] = w.launch.counterAdd(key, v, bits, ins.loc.line);
  }
  const d = ins.args[0];
  if (!d) return false;
  w.write(fr, d, out, m);
  return true;
}
