// Launch values that cannot change what the lifter records. A scalar parameter or a field of a
// by-value parameter is *inert* when a forward slice from every load of its bytes reaches only
// arithmetic (integer or float) and the data sinks the lifter never looks into: the value stored
// by a st.global, the address of a global load whose result the slice follows on. It then decides
// no branch and no guard, is no shared, local or parameter address, no operand of a synchronizing
// or asynchronous instruction (a TMA copy's global source is recorded: value tags), no value in
// shared memory and nothing another function gets. %ctaid.x, the CTA the lift runs, is sliced
// the same way from every instruction that reads it. The lifter's run is deterministic, so with
// every other launch value fixed each value of an inert one runs the same instructions, records
// the same events and lifts to the same program: a verdict at one value holds for all of them.
// The slice is flow-insensitive over the function's registers, so it over-approximates what the
// value reaches; a use it cannot follow makes the value relevant, never inert.
import type { Arg, FlatFunction, FlatInstr } from './flatten.ts';
import { CTA_INDEX, type LaunchVar } from './launch.ts';
import { opType, stateSpace, typeBytes } from './opcode.ts';
import { decides, forEachLeaf, readersOf, slotsOf } from './value-uses.ts';

/** Inert, or why not (the first use found that may decide something, with its PTX line). */
export type Relevance = { readonly inert: true } | { readonly inert: false; readonly why: string };

/** Integer and predicate ops that compute their destination(s) from their operands alone. */
const INT_OPS = new Set([
  'mov', 'cvt', 'cvta', 'add', 'sub', 'mul', 'mad', 'mul24', 'mad24', 'sad', 'shl', 'shr', 'and', 'or', 'xor', 'not', 'cnot',
  'neg', 'abs', 'min', 'max', 'div', 'rem', 'selp', 'slct', 'setp', 'set', 'bfe', 'bfi', 'prmt', 'lop3', 'shf', 'popc', 'clz',
  'brev', 'bfind', 'fns', 'dp4a', 'dp2a', 'szext', 'bmsk', 'testp', 'copysign',
]);
/** Float arithmetic beyond INT_OPS' names (add, mul, min, … are shared): its result is data like any other. */
const FLOAT_OPS = new Set(['fma', 'rcp', 'sqrt', 'rsqrt', 'ex2', 'lg2', 'sin', 'cos', 'tanh']);
/** Where a tensor map's address may go: the descriptor it names, not an integer field it reads. */
const DESCRIPTOR_USERS = new Set(['cp', 'prefetch', 'fence']);
/** Above this many registers reached, the value counts as relevant (the slice is conservative). */
const MAX_SLOTS = 4096;

/** One load of a parameter's bytes: where it reads, and the register each element lands in. */
interface ParamRead {
  readonly param: string;
  readonly offset: bigint;
  readonly elementBytes: number;
  readonly dests: readonly (Arg | undefined)[];
}

interface ParamUses {
  readonly reads: readonly ParamRead[];
  /** a parameter whose address goes where the slice does not follow it, and the first such line */
  readonly escaped: ReadonlyMap<string, string>;
}

const usesCache = new WeakMap<FlatFunction, ParamUses>();
const noArraysCache = new WeakMap<FlatFunction, boolean>();

const where = (ins: FlatInstr): string => `'${ins.op.text}' at line ${ins.loc.line}`;

/** A frame operand (a parameter's address) anywhere in an argument. */
function framesIn(a: Arg | undefined, out: { name: string; offset: bigint }[]): void {
  forEachLeaf(a, (x) => {
    if (x.k === 'frame') out.push({ name: x.name, offset: x.offset });
  });
}

const isLoad = (ins: FlatInstr): boolean => ins.op.base === 'ld' || ins.op.base === 'ldu';
const regSlot = (a: Arg | undefined): number | undefined => (a?.k === 'reg' ? a.slot : undefined);

/**
 * Every load of the entry's parameters, followed through the registers that hold a parameter's
 * address (`mov %rd, params; add %rd2, %rd, 640; ld.param [%rd2+8]`: CUTLASS's Params), and the
 * parameters whose address goes anywhere else.
 */
function paramUses(fn: FlatFunction): ParamUses {
  const hit = usesCache.get(fn);
  if (hit) return hit;
  const params = new Set(fn.fn.kind === 'entry' ? fn.fn.params.map((p) => p.name) : []);
  const reads: ParamRead[] = [];
  const escaped = new Map<string, string>();
  const escape = (param: string, ins: FlatInstr): void => {
    if (!escaped.has(param)) escaped.set(param, where(ins));
  };
  const readAt = (ins: FlatInstr, param: string, offset: bigint): void => {
    const d = ins.args[0];
    reads.push({ param, offset, elementBytes: typeBytes(opType(ins.op).name) || 4, dests: d?.k === 'vec' ? d.items : [d] });
  };
  // registers holding a parameter's address: slot → parameter and offset (one definition each)
  const addrs = new Map<number, { param: string; offset: bigint }>();
  const defines = (slot: number, param: string, offset: bigint, ins: FlatInstr): boolean => {
    const prev = addrs.get(slot);
    if (prev && (prev.param !== param || prev.offset !== offset)) {
      escape(param, ins);
      escape(prev.param, ins);
      return false;
    }
    if (prev) return false;
    addrs.set(slot, { param, offset });
    return true;
  };
  // direct uses of the parameters' names
  for (const ins of fn.code) {
    const frames: { name: string; offset: bigint }[] = [];
    ins.args.forEach((a) => framesIn(a, frames));
    for (const f of frames) {
      if (!params.has(f.name)) continue;
      const src = ins.args[1];
      if (isLoad(ins) && src?.k === 'mem' && src.base?.k === 'frame' && src.base.name === f.name) readAt(ins, f.name, src.offset + src.base.offset);
      else if ((ins.op.base === 'mov' || ins.op.base === 'cvta') && src?.k === 'frame' && regSlot(ins.args[0]) !== undefined) defines(regSlot(ins.args[0]) ?? -1, f.name, f.offset, ins);
      else escape(f.name, ins);
    }
  }
  // uses of the address registers, to a fixpoint (an add of a constant makes another one)
  const readers = readersOf(fn);
  const work = [...addrs.keys()];
  const seen = new Set<number>();
  while (work.length > 0) {
    const slot = work.pop() ?? -1;
    if (seen.has(slot)) continue;
    seen.add(slot);
    const at = addrs.get(slot);
    if (!at) continue;
    for (const ins of readers.get(slot) ?? []) {
      const [d, x, y] = ins.args;
      const base = ins.op.base;
      const dest = regSlot(d);
      if (ins.guard === slot) escape(at.param, ins);
      else if (isLoad(ins) && x?.k === 'mem' && regSlot(x.base) === slot && !(x.coords ?? []).some((c) => mentions(c, slot))) readAt(ins, at.param, at.offset + x.offset);
      else if ((base === 'mov' || base === 'cvta') && regSlot(x) === slot && dest !== undefined) {
        if (defines(dest, at.param, at.offset, ins)) work.push(dest);
      } else if ((base === 'add' || base === 'sub') && dest !== undefined && regSlot(x) === slot && y?.k === 'imm') {
        if (defines(dest, at.param, base === 'add' ? at.offset + y.v : at.offset - y.v, ins)) work.push(dest);
      } else if (base === 'add' && dest !== undefined && regSlot(y) === slot && x?.k === 'imm') {
        if (defines(dest, at.param, at.offset + x.v, ins)) work.push(dest);
      } else if (DESCRIPTOR_USERS.has(base) && onlyAsAddress(ins, slot)) continue;
      else escape(at.param, ins);
    }
  }
  // an address register that any other instruction may write (a first operand that is a bare
  // register: most opcodes write it) is not that address everywhere
  for (const ins of fn.code) {
    const dest = regSlot(ins.args[0]);
    const at = dest === undefined ? undefined : addrs.get(dest);
    if (at !== undefined && !definesAddress(ins, addrs)) escape(at.param, ins);
  }
  const uses = { reads, escaped };
  usesCache.set(fn, uses);
  return uses;
}

function mentions(a: Arg, slot: number): boolean {
  const slots: number[] = [];
  slotsOf(a, slots);
  return slots.includes(slot);
}

/** The register appears in the instruction only as the base of a memory operand (a tensor map's address). */
function onlyAsAddress(ins: FlatInstr, slot: number): boolean {
  if (ins.guard === slot) return false;
  return ins.args.every((a) => {
    if (a.k === 'mem') return !(a.coords ?? []).some((c) => mentions(c, slot)) && (regSlot(a.base) === slot || !mentions(a, slot));
    return !mentions(a, slot);
  });
}

/** The instruction is one of the address definitions paramUses follows. */
function definesAddress(ins: FlatInstr, addrs: ReadonlyMap<number, unknown>): boolean {
  const [, x, y] = ins.args;
  const base = ins.op.base;
  if ((base === 'mov' || base === 'cvta') && (x?.k === 'frame' || (regSlot(x) !== undefined && addrs.has(regSlot(x) ?? -1)))) return true;
  if (base === 'add' || base === 'sub') return (regSlot(x) !== undefined && addrs.has(regSlot(x) ?? -1) && y?.k === 'imm') || (base === 'add' && x?.k === 'imm' && addrs.has(regSlot(y) ?? -1));
  return false;
}

/**
 * No global load of the program decides anything, so no element of a launch array is read as a
 * launch value: which global bytes a store writes (lift.ts marks written elements as the kernel's
 * data) then changes nothing. Asked of every function, since a callee's loads count too.
 */
function noLaunchArrays(fns: Iterable<FlatFunction>): boolean {
  for (const fn of fns) {
    let answer = noArraysCache.get(fn);
    if (answer === undefined) {
      answer = fn.code.every((ins) => !isLoad(ins) || ['shared', 'param', 'local'].includes(stateSpace(ins.op)) || opType(ins.op).float || !decides(fn, ins));
      noArraysCache.set(fn, answer);
    }
    if (!answer) return false;
  }
  return true;
}

/**
 * Which instructions of a function a run executed (`runRelevance`): `ran(ins)`, or every one.
 * A reader the run never executed is not on its path, and with the value changed the path stays
 * the same (the head of `runRelevance`).
 */
type Ran = (ins: FlatInstr) => boolean;
const everyInstr: Ran = () => true;

/** The first use the forward slice from these registers cannot show to be data (see the head of this file). */
function firstDecision(fn: FlatFunction, sources: readonly number[], storesFree: boolean, ran: Ran = everyInstr): string | undefined {
  const readers = readersOf(fn);
  const work = [...sources];
  const seen = new Set<number>();
  while (work.length > 0) {
    const slot = work.pop() ?? -1;
    if (seen.has(slot)) continue;
    seen.add(slot);
    if (seen.size > MAX_SLOTS) return `its forward slice reaches more than ${MAX_SLOTS} registers`;
    for (const ins of readers.get(slot) ?? []) {
      if (!ran(ins)) continue;
      if (ins.guard === slot) return `it decides the guard of ${where(ins)}`;
      const base = ins.op.base;
      const space = stateSpace(ins.op);
      if (isLoad(ins)) {
        if (space !== 'global' && space !== 'const') return `it is in the address of ${where(ins)}`;
        slotsOf(ins.args[0], work); // the load's result depends on it: followed on
        continue;
      }
      if (base === 'st') {
        const address = ins.args[0];
        if (space !== 'global') return `it reaches ${where(ins)}`;
        if (address && mentions(address, slot) && !storesFree) return `it is in the address of ${where(ins)}, and the kernel reads launch arrays`;
        continue; // a value stored to global memory is never read back by the lifter
      }
      if (INT_OPS.has(base) || FLOAT_OPS.has(base)) {
        slotsOf(ins.args[0], work);
        continue;
      }
      const data = dataOperand(ins, slot);
      if (data === 'accumulates') slotsOf(ins.args[0], work);
      if (data === undefined) return `it reaches ${where(ins)}`;
    }
  }
  return undefined;
}

/**
 * Operands of synchronizing instructions the lifter never reads, each checked against the code
 * that records the instruction (sync-ops.ts, exec.ts): the values an stmatrix stores (only its
 * address is recorded), the coordinates of a TMA store (its tensor map and shared source are),
 * a wgmma's accumulators, register A and scale operands (its descriptors are; the accumulators
 * it writes are data, `accumulates`). Undefined: the slot is in an operand that is recorded.
 */
function dataOperand(ins: FlatInstr, slot: number): 'stored' | 'accumulates' | undefined {
  const a = ins.args;
  const base = ins.op.base;
  const outside = (i: number): boolean => !a.some((x, j) => j !== i && mentions(x, slot));
  if (base === 'stmatrix') return ins.guard !== slot && a[0] !== undefined && !mentions(a[0], slot) ? 'stored' : undefined;
  if (base === 'cp' && ins.op.parts.includes('tensor') && /\.global\.shared/.test(ins.op.text)) {
    const dst = a[0];
    if (dst?.k !== 'mem' || (dst.base && mentions(dst.base, slot)) || !outside(0)) return undefined;
    return 'stored'; // in the coordinates only
  }
  if (base === 'wgmma' && ins.op.parts[0] === 'mma_async') {
    const descriptor = (i: number): boolean => a[i] !== undefined && a[i]?.k !== 'vec' && mentions(a[i] as Arg, slot);
    return descriptor(1) || descriptor(2) ? undefined : 'accumulates';
  }
  return undefined;
}

/**
 * %ctaid.x, the CTA the lift runs: inert when every instruction reading it (or %clusterid.x,
 * which moves with it) is arithmetic whose result the slice shows to be data (a kernel that only
 * offsets its global addresses by it), in every function — the same program for every CTA of
 * the grid.
 */
function ctaRelevance(fn: FlatFunction, fns: Iterable<FlatFunction>, ranIn: (f: FlatFunction) => Ran = () => everyInstr): Relevance {
  const all = [...fns];
  const storesFree = noLaunchArrays(all);
  for (const f of all.includes(fn) ? all : [fn, ...all]) {
    const sources: number[] = [];
    const ran = ranIn(f);
    for (const ins of f.code) {
      if (!ran(ins) || !ins.args.some((a) => readsSreg(a, CTA_SREGS))) continue;
      if (!INT_OPS.has(ins.op.base) || readsSreg(ins.args[0], CTA_SREGS)) return { inert: false, why: `it reaches ${where(ins)}` };
      slotsOf(ins.args[0], sources);
    }
    const why = firstDecision(f, sources, storesFree, ran);
    if (why !== undefined) return { inert: false, why };
  }
  return { inert: true };
}

/** An operand that is (or addresses through) one of these special registers. */
function readsSreg(a: Arg | undefined, names: ReadonlySet<string>): boolean {
  let found = false;
  forEachLeaf(a, (x) => {
    found ||= x.k === 'sreg' && names.has(x.name);
  });
  return found;
}

/** The special registers whose value depends on the CTA the lift runs (warp.ts sets them from its %ctaid). */
const CTA_SREGS: ReadonlySet<string> = new Set([CTA_INDEX, '%clusterid.x']);

/**
 * Whether launch value `v` is inert in this kernel (`fn` its entry, `fns` every function with a
 * body). Scalar parameters, fields of by-value parameters and %ctaid.x are analysed: grid and
 * cluster dimensions and elements of launch arrays are reported relevant.
 */
export function launchRelevance(fn: FlatFunction, fns: Iterable<FlatFunction>, v: LaunchVar): Relevance {
  // asked for every value a lifted point read, and again by each round of the sweep: once per kernel
  let known = relevanceCache.get(fn);
  if (!known) relevanceCache.set(fn, (known = new Map()));
  const key = `${v.key}:${v.bytes}:${v.element ?? ''}`;
  const hit = known.get(key);
  if (hit) return hit;
  const answer = relevanceOf(fn, fns, v);
  known.set(key, answer);
  return answer;
}
const relevanceCache = new WeakMap<FlatFunction, Map<string, Relevance>>();

/**
 * Whether changing launch value `v` alone, every other value as in one run, gives that same run:
 * the slice of `launchRelevance` over the instructions the run executed (`executed`, per
 * function: ClusterRun.executed). By induction on the run's steps: the same instruction runs at
 * each step, since every one the run executed that reads the value (or what it reaches) uses it
 * as data, so no branch, guard, address, recorded operand or scheduling choice on the path
 * differs; instructions off the path stay off it, and are not looked at. The sweep (sweep.ts)
 * then skips probing such a value: each probe would repeat the run. Not cached (a run's path is
 * its own); the entry's parameter uses (escapes, address registers) are still the whole code's.
 */
export function runRelevance(fn: FlatFunction, fns: Iterable<FlatFunction>, v: LaunchVar, executed: ReadonlyMap<FlatFunction, Uint8Array>): Relevance {
  const ranIn = (f: FlatFunction): Ran => {
    const marks = executed.get(f);
    if (!marks) return () => false;
    const pcs = pcsOf(f);
    return (ins) => marks[pcs.get(ins) ?? -1] === 1;
  };
  return relevanceOf(fn, fns, v, ranIn);
}

/** Each instruction's pc in its function. */
function pcsOf(fn: FlatFunction): ReadonlyMap<FlatInstr, number> {
  let pcs = pcCache.get(fn);
  if (!pcs) pcCache.set(fn, (pcs = new Map(fn.code.map((ins, pc) => [ins, pc] as const))));
  return pcs;
}
const pcCache = new WeakMap<FlatFunction, ReadonlyMap<FlatInstr, number>>();

function relevanceOf(fn: FlatFunction, fns: Iterable<FlatFunction>, v: LaunchVar, ranIn: (f: FlatFunction) => Ran = () => everyInstr): Relevance {
  if (v.key === CTA_INDEX) return ctaRelevance(fn, fns, ranIn);
  if (v.param === undefined || v.element !== undefined) return { inert: false, why: 'it is not a parameter the slice covers' };
  const uses = paramUses(fn);
  const escaped = uses.escaped.get(v.param);
  if (escaped) return { inert: false, why: `the address of its parameter goes to ${escaped}, which the slice does not follow` };
  const lo = BigInt(v.offset ?? 0);
  const hi = v.offset === undefined ? undefined : lo + BigInt(v.bytes);
  const sources: number[] = [];
  for (const r of uses.reads) {
    if (r.param !== v.param) continue;
    r.dests.forEach((d, i) => {
      const from = r.offset + BigInt(i * r.elementBytes);
      const to = from + BigInt(r.elementBytes);
      if (hi === undefined || (from < hi && lo < to)) slotsOf(d, sources);
    });
  }
  // a scalar parameter the kernel never loads (Triton passes shapes and strides its descriptors
  // already hold): nothing reads it, since its address goes nowhere either
  const why = firstDecision(fn, sources, noLaunchArrays(fns), ranIn(fn));
  return why === undefined ? { inert: true } : { inert: false, why };
}
