// Where a role's straight-line code touches what: per object the positions of the ops that touch
// it (and that write it), the positions of its waits with known operands, and what its counting
// ops add to each barrier. Positions are those of positions.ts: pcs, where operands are known when
// constant, or the ops of a role's unrolled sequence, where all are. The reduction (ample.ts,
// stuck.ts) uses it to bound what a role can do before it blocks: on any path of actions outside
// an ample set, a role stops at a wait on a barrier whose phase cannot complete there — so only
// its ops before that wait can conflict with the set. Lifted PTX is one straight line per role,
// and a looped program unrolls into one.
import type { Expr } from '../src/ir/program.ts';
import { arrivalsOf, GLOBAL, type ObjectSpace, type Touch } from './footprint.ts';
import type { OpInstr } from './context.ts';
import type { CExpr, Machine } from './machine.ts';
import { runsInOrder, valueAt, type Positions } from './positions.ts';

export class Horizons {
  /** the position space every position here is in (positions.ts) */
  readonly positions: Positions;
  /** per role: positions of `wait` ops whose barrier and parity are constants, ascending */
  readonly waits: Int32Array[];
  /** per role: the barrier each of those waits names */
  readonly waitBarriers: Int32Array[];
  /** per role: the parity each of those waits names (−1: not a constant 0 or 1) */
  readonly waitParities: Int32Array[];
  /**
   * per role, for each entry of `waits`: the position of the arrive on the same barrier that set
   * the token a `wait.token` (parity TOKEN_WAIT) reads, the last one before it; −1 when that
   * arrive lies before the role's first position (its token is in the state) or is not known
   */
  readonly tokenArrives: Int32Array[];
  // Named barrier id is counter `barrierCount + id` in `waits` (a `bar.sync` with constant
  // operands, parity NAMED_SYNC) and in the effects (a bar.sync or bar.arrive adds its role's
  // threads as arrivals, and names a thread count: `fewestPer`). Aref slot a has two token
  // counters (`slotCounter`): a put waits on its E tokens, which a consumed adds; a get on its F
  // tokens, which a put adds (parity SLOT_TOKEN, one arrival per op).
  /** per role: object → ascending positions of ops that only read it */
  private readonly readAt: Map<number, number[]>[];
  /** per role: object → ascending positions of ops touching it / writing it */
  private readonly touchAt: Map<number, number[]>[];
  private readonly writeAt: Map<number, number[]>[];
  /** per role: positions of ops that touch everything (init, inval, unknown operands) */
  private readonly globalAt: number[][];
  /** per role: what each op does to barriers, flattened (see `effects`) */
  private readonly effectStart: Int32Array[];
  private readonly effectBarrier: Int32Array[];
  private readonly effectCounts: Float64Array[];
  /** per role: the counters its effects touch, with their running sums (unrolled positions only, see `sumsIn`) */
  private readonly sums: RangeSums[][] = [];

  /** `touches`: positionTouches(m, o, p) */
  constructor(m: Machine, o: ObjectSpace, p: Positions, touches: readonly (readonly (Touch | undefined)[])[]) {
    this.positions = p;
    const params = m.params;
    const isConstant = (e: Expr): boolean =>
      e.kind === 'num' || (e.kind === 'var' ? params.has(e.name) : e.kind === 'un' ? isConstant(e.arg) : isConstant(e.left) && isConstant(e.right));
    // an operand's value at position i of role r: fixed there (unrolled), or a constant
    const value = (r: number, i: number, e: Expr, f: CExpr | undefined): number | undefined => nonNegative(valueAt(p, r, i, f, isConstant(e)));
    this.waits = [];
    this.waitBarriers = [];
    this.waitParities = [];
    this.tokenArrives = [];
    this.readAt = [];
    this.touchAt = [];
    this.writeAt = [];
    this.globalAt = [];
    this.effectStart = [];
    this.effectBarrier = [];
    this.effectCounts = [];
    const namedId = (r: number, i: number, instr: OpInstr): number | undefined => {
      const op = instr.op;
      if (op.kind !== 'bar.sync' && op.kind !== 'bar.arrive') return undefined;
      const id = value(r, i, op.id, instr.args[0]);
      return id !== undefined && id < o.named ? id : undefined;
    };
    // the element of its resource the op's target names here (an aref slot, a barrier), when known
    const targetAt = (r: number, i: number, instr: OpInstr): number | undefined => {
      const ref = instr.refs[0]!;
      const index = 'target' in instr.op ? value(r, i, instr.op.target.index, ref.index) : undefined;
      return index !== undefined && index < ref.res.size ? ref.res.base + index : undefined;
    };
    const opAt = (r: number, i: number): OpInstr | undefined => {
      const instr = p.instr(r, i);
      return instr?.kind === 'op' ? instr : undefined;
    };
    m.roles.forEach((role, r) => {
      const n = p.length(r);
      const waits: number[] = [];
      const waitBarriers: number[] = [];
      const waitParities: number[] = [];
      const tokenArrives: number[] = [];
      // in positions that run in order: per token slot, the last arrive setting it and its barrier
      const inOrder = runsInOrder(p, r);
      const tokenSetAt = new Map<number, { readonly at: number; readonly barrier: number | undefined }>();
      const readAt = new Map<number, number[]>();
      const touchAt = new Map<number, number[]>();
      const writeAt = new Map<number, number[]>();
      const globalAt: number[] = [];
      const effectStart = new Int32Array(n + 1);
      const effectBarrier: number[] = [];
      const effectCounts: number[] = [];
      const note = (map: Map<number, number[]>, x: number, pc: number): void => {
        const list = map.get(x);
        if (list === undefined) map.set(x, [pc]);
        else if (list[list.length - 1] !== pc) list.push(pc);
      };
      for (let pc = 0; pc < n; pc++) {
        const instr = opAt(r, pc);
        if (!instr) continue;
        // the barrier and parity are known here (no loop variable, or unrolled): resolve them once
        const ref = instr.refs[0];
        if (instr.op.kind === 'wait' && ref) {
          const index = value(r, pc, instr.op.target.index, ref.index);
          const parity = value(r, pc, instr.op.parity, instr.args[0]);
          if (index !== undefined && index < ref.res.size && (isConstant(instr.op.parity) || parity !== undefined)) {
            waits.push(pc);
            waitBarriers.push(ref.res.base + index);
            waitParities.push(parity ?? -1);
            tokenArrives.push(-1);
          }
        }
        if (inOrder && instr.token !== undefined && ref?.res.space === 'barrier') {
          const b = targetAt(r, pc, instr);
          if (instr.op.kind !== 'wait.token') tokenSetAt.set(instr.token, { at: pc, barrier: b });
          else if (b !== undefined) {
            // its arrive: one before it on the same barrier (another barrier's token is a protocol
            // error there), or none in the code (set before the role's first position)
            const set = tokenSetAt.get(instr.token);
            if (set === undefined || set.barrier === b) {
              waits.push(pc);
              waitBarriers.push(b);
              waitParities.push(TOKEN_WAIT);
              tokenArrives.push(set?.at ?? -1);
            }
          }
        }
        if ((instr.op.kind === 'put' || instr.op.kind === 'get') && ref?.res.space === 'aref') {
          const slot = targetAt(r, pc, instr);
          if (slot !== undefined) {
            waits.push(pc);
            waitBarriers.push(slotCounter(o, slot, instr.op.kind === 'put' ? 'E' : 'F'));
            waitParities.push(SLOT_TOKEN);
            tokenArrives.push(-1);
          }
        }
        if (instr.op.kind === 'bar.sync' && value(r, pc, instr.op.threads, instr.args[1]) !== undefined) {
          const id = namedId(r, pc, instr);
          if (id !== undefined) {
            waits.push(pc);
            waitBarriers.push(o.barriers + id);
            waitParities.push(NAMED_SYNC);
            tokenArrives.push(-1);
          }
        }
        const t = touches[r]?.[pc];
        if (t === undefined) continue;
        if (t === GLOBAL) {
          globalAt.push(pc);
          continue;
        }
        for (const x of t.reads) {
          note(touchAt, x, pc);
          note(readAt, x, pc);
        }
        for (const x of t.writes) {
          note(touchAt, x, pc);
          note(writeAt, x, pc);
        }
      }
      for (let pc = 0; pc < n; pc++) {
        effectStart[pc] = effectBarrier.length;
        const instr = opAt(r, pc);
        const t = touches[r]?.[pc];
        if (!instr || t === undefined) continue;
        if (t === GLOBAL) {
          effectBarrier.push(-1);
          effectCounts.push(Infinity, Infinity, Infinity);
          continue;
        }
        const counted = countingOp(instr, (e, f) => value(r, pc, e, f));
        const arrivals = arrivalsOf(o, instr, t);
        const kind = instr.op.kind;
        // the aref slot a put or consumed names here, when it is known
        const arefSlot = (kind === 'put' || kind === 'consumed') && instr.refs[0]?.res.space === 'aref' ? targetAt(r, pc, instr) : undefined;
        for (const x of t.writes) {
          if (x < m.arefSlotCount) {
            // only put and consumed add tokens (get and the rest take them or leave F and E alone)
            if (kind !== 'put' && kind !== 'consumed') continue;
            effectBarrier.push(slotCounter(o, x, kind === 'put' ? 'F' : 'E'));
            effectCounts.push(arefSlot === x ? 1 : Infinity, 0, 0);
            continue;
          }
          if (x >= o.slots + o.barriers && x < o.slots + o.barriers + o.named) {
            // a named barrier: the op's id may be one of several (then it counts as unknown there)
            effectBarrier.push(x - o.slots);
            const own = namedId(r, pc, instr) === x - o.slots - o.barriers;
            const threads = instr.op.kind === 'bar.sync' || instr.op.kind === 'bar.arrive' ? value(r, pc, instr.op.threads, instr.args[1]) : undefined;
            effectCounts.push(own ? role.warps * 32 : Infinity, own && threads !== undefined && threads > 0 ? threads : 0, 1);
            continue;
          }
          if (x < o.slots || x >= o.slots + o.barriers) continue;
          const b = x - o.slots;
          effectBarrier.push(b);
          if (counted?.barrier === b) effectCounts.push(counted.arrivals, counted.expects, counted.lands);
          else effectCounts.push(arrivals === GLOBAL || arrivals.includes(b) ? Infinity : 0, Infinity, Infinity);
        }
      }
      effectStart[n] = effectBarrier.length;
      if (p.unrolled) this.sums.push(rangeSums(effectStart, effectBarrier, effectCounts, o.barriers));
      this.effectStart.push(effectStart);
      this.effectBarrier.push(Int32Array.from(effectBarrier));
      this.effectCounts.push(Float64Array.from(effectCounts));
      this.waits.push(Int32Array.from(waits));
      this.waitBarriers.push(Int32Array.from(waitBarriers));
      this.waitParities.push(Int32Array.from(waitParities));
      this.tokenArrives.push(Int32Array.from(tokenArrives));
      this.readAt.push(readAt);
      this.touchAt.push(touchAt);
      this.writeAt.push(writeAt);
      this.globalAt.push(globalAt);
    });
  }

  /** The index in `waits[r]` of role r's first such wait at or after pc. */
  firstWait(r: number, pc: number): number {
    return lowerBound(this.waits[r] ?? [], pc);
  }

  /** The first position at or after pc where control flow (a loop or a branch) starts. */
  straightEnd(r: number, pc: number): number {
    return this.positions.straightEnd(r, pc);
  }

  /** Whether role r's ops at positions lo..hi−1 conflict with a transition touching `t`. */
  conflictsIn(r: number, lo: number, hi: number, t: { readonly reads: readonly number[]; readonly writes: readonly number[] }): boolean {
    if (hi <= lo) return false;
    if (anyIn(this.globalAt[r] ?? [], lo, hi)) return true;
    const touchAt = this.touchAt[r];
    const writeAt = this.writeAt[r];
    for (const x of t.writes) if (anyIn(touchAt?.get(x), lo, hi)) return true;
    for (const x of t.reads) if (anyIn(writeAt?.get(x), lo, hi)) return true;
    return false;
  }

  /**
   * What role r's op at pc does to barriers: for each i in effects(r, pc) = [lo, hi), barrier
   * effectBarrier(r)[i] (−1: every barrier, an init, inval or unknown operand) gets
   * effectCounts(r)[3i..3i+2] arrivals, expected bytes, landed bytes (Infinity: not known: an op
   * that may arrive on b otherwise; bytes when it writes b otherwise — expect_tx, complete_tx, an
   * operand the table cannot tell). A named barrier's counter gets the threads arriving, the
   * threads the op names (0: not known; see `fewestPer`) and 1 (summed: the ops counted).
   */
  effectsFrom(r: number, pc: number): number {
    return this.effectStart[r]![pc]!;
  }
  barrierOfEffect(r: number, i: number): number {
    return this.effectBarrier[r]![i]!;
  }
  countsOfEffect(r: number): Float64Array {
    return this.effectCounts[r]!;
  }

  /**
   * What role r's ops at lo..hi−1 do to each counter, from running sums (unrolled positions, where
   * a straight part is a whole window long): add(counter, arrivals, expects, lands, fewest)
   * once per counter touched there, fewest what `fewestPer` makes of the range's ops on it.
   * False, adding nothing, when an op there touches everything or the space is not unrolled.
   */
  sumsIn(r: number, lo: number, hi: number, add: (b: number, arrivals: number, expects: number, lands: number, fewest: number) => void): boolean {
    const sums = this.sums[r];
    if (sums === undefined || anyIn(this.globalAt[r] ?? [], lo, hi)) return false;
    for (const t of sums) {
      const k0 = lowerBound(t.at, lo);
      const k1 = lowerBound(t.at, hi);
      if (k1 === k0) continue;
      let fewest = Infinity;
      for (let k = k0; k < k1; k++) fewest = Math.min(fewest, t.fewest[k]!);
      add(t.counter, sumBetween(t, k0, k1, 0), sumBetween(t, k0, k1, 1), sumBetween(t, k0, k1, 2), fewest);
    }
    return true;
  }

  /** Whether role r has an op that touches everything (an init, inval, an unknown operand) at pc or later. */
  touchesEverythingFrom(r: number, pc: number): boolean {
    return anyIn(this.globalAt[r] ?? [], pc, Infinity);
  }

  /** Whether role r reads object x (or touches everything) at a position in lo..hi−1. */
  readsIn(r: number, x: number, lo: number, hi: number): boolean {
    return anyIn(this.readAt[r]?.get(x), lo, hi) || anyIn(this.globalAt[r] ?? [], lo, hi);
  }
}

export interface BarrierUpdates {
  readonly arrivals: number;
  readonly expects: number;
  readonly lands: number;
}

/** One counter's effects in one role: their positions, and the sums before each (finite parts and how many were Infinity). */
interface RangeSums {
  readonly counter: number;
  readonly at: Int32Array;
  /** 3 per effect and one more row: arrivals, expects, lands before effect k */
  readonly finite: Float64Array;
  readonly infinite: Int32Array;
  /** per effect: what it gives `fewestPer` on its own */
  readonly fewest: Float64Array;
}

function rangeSums(effectStart: Int32Array, effectBarrier: readonly number[], effectCounts: readonly number[], namedFrom: number): RangeSums[] {
  const lists = new Map<number, { at: number[]; finite: number[]; infinite: number[]; fewest: number[] }>();
  for (let pc = 0; pc + 1 < effectStart.length; pc++) {
    for (let i = effectStart[pc]!; i < effectStart[pc + 1]!; i++) {
      const b = effectBarrier[i]!;
      if (b < 0) continue; // touches everything: sumsIn declines such ranges
      let l = lists.get(b);
      if (l === undefined) lists.set(b, (l = { at: [], finite: [0, 0, 0], infinite: [0, 0, 0], fewest: [] }));
      const k = l.at.length;
      l.at.push(pc);
      for (let j = 0; j < 3; j++) {
        const v = effectCounts[3 * i + j]!;
        l.finite.push(l.finite[3 * k + j]! + (Number.isFinite(v) ? v : 0));
        l.infinite.push(l.infinite[3 * k + j]! + (Number.isFinite(v) ? 0 : 1));
      }
      l.fewest.push(fewestPer(b >= namedFrom, Infinity, effectCounts[3 * i]!, effectCounts[3 * i + 1]!));
    }
  }
  return [...lists].map(([counter, l]) => ({ counter, at: Int32Array.from(l.at), finite: Float64Array.from(l.finite), infinite: Int32Array.from(l.infinite), fewest: Float64Array.from(l.fewest) }));
}

/** The fewest bytes per arrival so far, once an op with `arrivals` arrivals expecting `expects` bytes is counted (0 when its bytes are not known: any number). */
export function fewerPerArrival(fewest: number, arrivals: number, expects: number): number {
  if (!(arrivals > 0)) return fewest;
  return Math.min(fewest, Number.isFinite(expects) && Number.isFinite(arrivals) && expects >= 0 ? expects / arrivals : 0);
}

/**
 * What bounds a counter's later completions from below, once an op's effect on it (`arrivals`,
 * `second`: its second effect count) is counted: an mbarrier's fewest expected bytes per arrival
 * (`fewerPerArrival`); a named barrier's (`named`) fewest threads an op names, which no generation
 * these ops make can be smaller than: every arrival in a generation names the count it was opened
 * for, or the path ends in a protocol error (named.ts). 0: not known (any size).
 */
export function fewestPer(named: boolean, fewest: number, arrivals: number, second: number): number {
  return named ? Math.min(fewest, second) : fewerPerArrival(fewest, arrivals, second);
}

/** The parity entry of a `bar.sync` in `waits`. */
export const NAMED_SYNC = 2;
/** The parity entry of a put or get in `waits`: its j-th from a position needs j tokens of its slot counter. */
export const SLOT_TOKEN = 3;
/** The parity entry of a `wait.token` in `waits`: it passes once the phase its arrive joined completes. */
export const TOKEN_WAIT = 4;

/**
 * The counter of aref slot a's tokens after the mbarriers and named barriers: E, which a put
 * takes and a consumed gives, and F, which a get takes and a put gives. On any path the puts into
 * a number at most E + the consumed of a, and the gets at most F + the puts (aref.ts: only those
 * three rules change F and E, and each take needs the flag at 1 and leaves it at 0).
 */
export function slotCounter(o: ObjectSpace, a: number, token: 'E' | 'F'): number {
  return o.barriers + o.named + 2 * a + (token === 'F' ? 1 : 0);
}

/** An op that only counts on one barrier, with known operands (`value`: an operand's value, if known): what it adds there. */
function countingOp(instr: OpInstr, value: (e: Expr, f: CExpr | undefined) => number | undefined): (BarrierUpdates & { barrier: number }) | undefined {
  const op = instr.op;
  const k = op.kind === 'tma.load' ? 1 : op.kind === 'arrive' || op.kind === 'arrive.expect_tx' ? 0 : -1;
  const ref = instr.refs[k];
  if (!ref || (op.kind !== 'tma.load' && op.kind !== 'arrive' && op.kind !== 'arrive.expect_tx')) return undefined;
  const index = value(op.kind === 'tma.load' ? op.barrier.index : op.target.index, ref.index);
  const amount = value(op.kind === 'arrive' ? op.count : op.bytes, instr.args[0]);
  if (index === undefined || index >= ref.res.size || amount === undefined) return undefined;
  return { barrier: ref.res.base + index, ...updateOf(op.kind, amount) };
}

/** What one counting op adds to its barrier: an arrive's count, an arrive.expect_tx's one arrival and bytes, a copy's bytes. */
export function updateOf(kind: 'tma.load' | 'arrive' | 'arrive.expect_tx', amount: number): BarrierUpdates {
  if (kind === 'tma.load') return { arrivals: 0, expects: 0, lands: amount };
  if (kind === 'arrive') return { arrivals: amount, expects: 0, lands: 0 };
  return { arrivals: 1, expects: amount, lands: 0 };
}

/** Counter j of range sums t between its entries k0 and k1 (Infinity when an infinite count lies between). A function, not a closure per call: tsx names every closure it makes (keepNames). */
function sumBetween(t: RangeSums, k0: number, k1: number, j: number): number {
  return t.infinite[3 * k1 + j]! > t.infinite[3 * k0 + j]! ? Infinity : t.finite[3 * k1 + j]! - t.finite[3 * k0 + j]!;
}

/** The first index of an ascending list whose element is at least x (the length when none is). */
function lowerBound(list: ArrayLike<number>, x: number): number {
  let a = 0;
  let b = list.length;
  while (a < b) {
    const mid = (a + b) >> 1;
    if (list[mid]! < x) a = mid + 1;
    else b = mid;
  }
  return a;
}

/** Whether an ascending list has an element in lo..hi−1. */
function anyIn(list: readonly number[] | undefined, lo: number, hi: number): boolean {
  if (list === undefined) return false;
  const a = lowerBound(list, lo);
  return a < list.length && list[a]! < hi;
}

/** A value as a non-negative integer index, or undefined when it is not one. */
function nonNegative(v: number | undefined): number | undefined {
  return v !== undefined && Number.isInteger(v) && v >= 0 ? v : undefined;
}
