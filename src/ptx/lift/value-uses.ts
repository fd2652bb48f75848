// Whether a value a global load brings in can decide anything the lifter records: a branch, the
// guard of an instruction, an address other than a global one, the operand of a synchronizing
// operation, or shared memory (another warp may branch on it). A forward slice over the
// function's registers answers it once per load instruction. An element of a launch array is a
// launch value only when it decides something (FA3's `num_m_blocks_ptr[b]` feeds the tile loop);
// a tile of C read for the epilogue's arithmetic stays data, so it does not crowd the launch
// values the sweep raises.
import type { Arg, FlatFunction, FlatInstr } from './flatten.ts';
import { opType, stateSpace } from './opcode.ts';

/** Ops that compute their destination(s) from their operands (integer or predicate). */
const PROPAGATE = new Set([
  'mov', 'cvt', 'add', 'sub', 'mul', 'mad', 'mul24', 'mad24', 'sad', 'shl', 'shr', 'and', 'or', 'xor', 'not', 'cnot', 'neg',
  'abs', 'min', 'max', 'div', 'rem', 'selp', 'slct', 'setp', 'set', 'bfe', 'bfi', 'prmt', 'lop3', 'shf', 'popc', 'clz', 'brev',
  'bfind', 'fns', 'shfl', 'vote', 'redux', 'match', 'dp4a', 'dp2a', 'szext', 'bmsk', 'cvta',
]);

/** Above this many registers reached, the answer is "it may decide" (the slice is conservative). */
const MAX_SLOTS = 4096;

interface Uses {
  /** per register slot, the instructions that read it */
  readonly bySlot: ReadonlyMap<number, readonly FlatInstr[]>;
}

const usesCache = new WeakMap<FlatFunction, Uses>();
const decidesCache = new WeakMap<FlatInstr, boolean>();

/** Every operand inside `a` that holds no other (an address's base and coordinates, a vector's items, …). */
export function forEachLeaf(a: Arg | undefined, visit: (leaf: Arg) => void): void {
  if (!a) return;
  if (a.k === 'mem') {
    forEachLeaf(a.base, visit);
    for (const c of a.coords ?? []) forEachLeaf(c, visit);
  } else if (a.k === 'vec' || a.k === 'list') for (const x of a.items) forEachLeaf(x, visit);
  else if (a.k === 'pair') {
    forEachLeaf(a.first, visit);
    forEachLeaf(a.second, visit);
  } else visit(a);
}

/** The register slots an operand mentions (an address's base and coordinates too). */
export function slotsOf(a: Arg | undefined, out: number[]): void {
  forEachLeaf(a, (x) => {
    if (x.k === 'reg' || x.k === 'not') out.push(x.slot);
  });
}

/** Whether args[0] is where the instruction writes (not an address or a value it reads). */
function writesFirst(ins: FlatInstr): boolean {
  return PROPAGATE.has(ins.op.base) || ins.op.base === 'ld' || ins.op.base === 'ldu';
}

function usesOf(fn: FlatFunction): Uses {
  const hit = usesCache.get(fn);
  if (hit) return hit;
  const bySlot = new Map<number, FlatInstr[]>();
  for (const ins of fn.code) {
    const read: number[] = [];
    if (ins.guard >= 0) read.push(ins.guard);
    ins.args.forEach((a, i) => {
      if (i === 0 && writesFirst(ins) && a.k !== 'mem') return;
      slotsOf(a, read);
    });
    for (const slot of new Set(read)) {
      const list = bySlot.get(slot) ?? [];
      list.push(ins);
      bySlot.set(slot, list);
    }
  }
  const uses = { bySlot };
  usesCache.set(fn, uses);
  return uses;
}

/** Per register slot, the instructions that read it (a written first operand is not a read). */
export function readersOf(fn: FlatFunction): ReadonlyMap<number, readonly FlatInstr[]> {
  return usesOf(fn).bySlot;
}

/**
 * Does any instruction read what `ins` writes to its first operand (flow-insensitive)? An
 * mbarrier operation's register first operand is where it writes (a try_wait's predicate, an
 * arrive's state), not a read.
 */
export function resultRead(fn: FlatFunction, ins: FlatInstr): boolean {
  // asked at every execution of a try_wait: answered once per instruction
  const hit = resultReadCache.get(ins);
  if (hit !== undefined) return hit;
  const answer = readsResult(fn, ins);
  resultReadCache.set(ins, answer);
  return answer;
}
const resultReadCache = new WeakMap<FlatInstr, boolean>();

function readsResult(fn: FlatFunction, ins: FlatInstr): boolean {
  const slots: number[] = [];
  slotsOf(ins.args[0], slots);
  const { bySlot } = usesOf(fn);
  const reads = (reader: FlatInstr, slot: number): boolean => {
    if (reader.guard === slot) return true;
    const rest: number[] = [];
    reader.args.forEach((a, i) => {
      if (i > 0 || reader.op.base !== 'mbarrier' || a.k === 'mem') slotsOf(a, rest);
    });
    return rest.includes(slot);
  };
  return slots.some((slot) => (bySlot.get(slot) ?? []).some((reader) => reads(reader, slot)));
}

/** Does the value `load` writes reach a decision (see the head of this file)? */
export function decides(fn: FlatFunction, load: FlatInstr): boolean {
  const hit = decidesCache.get(load);
  if (hit !== undefined) return hit;
  const answer = reaches(fn, load);
  decidesCache.set(load, answer);
  return answer;
}

function inAddress(ins: FlatInstr, i: number, slot: number): boolean {
  const a = ins.args[i];
  const slots: number[] = [];
  if (a?.k === 'mem') slotsOf(a, slots);
  return slots.includes(slot);
}

/**
 * A forward slice from `slots` over the function's readers: per reader of a reached slot, `step`
 * says whether that answers yes, or the slice goes on through what the reader writes, or stops
 * there. Yes, too, once it has reached more than MAX_SLOTS slots.
 */
function sliceReaches(fn: FlatFunction, slots: readonly number[], step: (ins: FlatInstr, slot: number) => 'yes' | 'follow' | 'stop'): boolean {
  const { bySlot } = usesOf(fn);
  const work = [...slots];
  const seen = new Set<number>();
  while (work.length > 0) {
    const slot = work.pop() ?? -1;
    if (seen.has(slot)) continue;
    seen.add(slot);
    if (seen.size > MAX_SLOTS) return true;
    for (const ins of bySlot.get(slot) ?? []) {
      const next = step(ins, slot);
      if (next === 'yes') return true;
      if (next === 'follow') slotsOf(ins.args[0], work);
    }
  }
  return false;
}

function reaches(fn: FlatFunction, load: FlatInstr): boolean {
  const start: number[] = [];
  slotsOf(load.args[0], start);
  return sliceReaches(fn, start, (ins, slot) => {
    if (ins.guard === slot) return 'yes';
    const base = ins.op.base;
    // what a global load at this address reads depends on it; any other address is recorded
    if (base === 'ld' || base === 'ldu') return stateSpace(ins.op) !== 'global' && inAddress(ins, 1, slot) ? 'yes' : 'follow';
    // a store anywhere but global memory: an address the lifter records, or a value other warps may read
    if (base === 'st') return stateSpace(ins.op) !== 'global' ? 'yes' : 'stop';
    // arithmetic on data (floats) decides nothing
    if (PROPAGATE.has(base)) return opType(ins.op).float || ins.op.types.some((t) => t.float) ? 'stop' : 'follow';
    // a branch, a call, a synchronizing or asynchronous operation, an atomic: it may decide
    return 'yes';
  });
}

/**
 * Whether a 64-bit scalar kernel parameter is used as a pointer: what `ld.param` reads of it
 * reaches, through integer arithmetic, an address operand, a `cvta`, a call or anything but
 * arithmetic and comparisons. PTX types a `size_t` count and a pointer alike (`.u64`); only the
 * uses tell them apart (the Programming Guide's histogram loops to its `size_t array_size`).
 * A parameter no instruction loads is not a pointer either; the answer is "pointer" whenever the
 * slice grows past its bound.
 */
export function usedAsPointer(fn: FlatFunction, param: string): boolean {
  const hit = pointerCache.get(fn)?.get(param);
  if (hit !== undefined) return hit;
  const answer = pointerUse(fn, param);
  const m = pointerCache.get(fn) ?? new Map<string, boolean>();
  m.set(param, answer);
  pointerCache.set(fn, m);
  return answer;
}
const pointerCache = new WeakMap<FlatFunction, Map<string, boolean>>();

/** Integer ops through which a count stays a count (no cvta: that makes an address). */
const COUNT_OPS = new Set([...PROPAGATE].filter((b) => b !== 'cvta'));

function pointerUse(fn: FlatFunction, param: string): boolean {
  const start: number[] = [];
  for (const ins of fn.code) {
    if (ins.op.base !== 'ld' || stateSpace(ins.op) !== 'param') continue;
    const a = ins.args[1];
    if (a?.k === 'mem' && a.base?.k === 'frame' && a.base.name === param) slotsOf(ins.args[0], start);
  }
  return sliceReaches(fn, start, (ins, slot) => {
    if (ins.guard === slot) return 'stop'; // a predicate computed from it guards: still a count
    if (ins.args.some((a, i) => a.k === 'mem' && inAddress(ins, i, slot))) return 'yes';
    return COUNT_OPS.has(ins.op.base) ? 'follow' : 'yes';
  });
}
