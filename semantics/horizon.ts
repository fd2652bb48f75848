// Where a role's straight-line code touches what: per object the positions of the ops that touch
// it (and that write it), the positions of its waits with constant operands, and what its counting
// ops add to each barrier. The reduction (ample.ts, stuck.ts) uses it to bound what a role can do
// before it blocks: on any path of actions outside an ample set, a role stops at a wait on a
// barrier whose phase cannot complete there — so only its ops before that wait can conflict with
// the set. Lifted PTX is one straight line per role, which is where this pays.
import type { Expr } from '../src/ir/program.ts';
import { arrivalsOf, GLOBAL, type ObjectSpace, type Touch } from './footprint.ts';
import type { OpInstr } from './context.ts';
import type { Machine } from './machine.ts';

export class Horizons {
  /** per role: the first position at or after pc that is not an op (a loop or branch), per pc */
  private readonly straightUntil: Int32Array[];
  /** per role: positions of `wait` ops whose barrier and parity are constants, ascending */
  readonly waits: Int32Array[];
  /** per role: the barrier each of those waits names */
  readonly waitBarriers: Int32Array[];
  /** per role: the parity each of those waits names (−1: not a constant 0 or 1) */
  readonly waitParities: Int32Array[];
  /**
   * Named barrier id is counter `barrierCount + id` in `waits` (a `bar.sync` with constant
   * operands, parity NAMED_SYNC) and in the effects (a bar.sync or bar.arrive adds its role's
   * threads as arrivals). Per id: the fewest threads an op on it names (a generation completes at
   * that many at the least), 0 when some op names a count that is not a constant.
   */
  readonly namedThreads: Float64Array;
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

  /** `touches`: staticTouches(m, o) */
  constructor(m: Machine, o: ObjectSpace, touches: readonly (readonly (Touch | undefined)[])[]) {
    const params = m.params;
    const isConstant = (e: Expr): boolean =>
      e.kind === 'num' || (e.kind === 'var' ? params.has(e.name) : e.kind === 'un' ? isConstant(e.arg) : isConstant(e.left) && isConstant(e.right));
    this.straightUntil = [];
    this.waits = [];
    this.waitBarriers = [];
    this.waitParities = [];
    this.readAt = [];
    this.touchAt = [];
    this.writeAt = [];
    this.globalAt = [];
    this.effectStart = [];
    this.effectBarrier = [];
    this.effectCounts = [];
    const namedThreads = (this.namedThreads = new Float64Array(o.named).fill(Infinity));
    const namedId = (instr: OpInstr): number | undefined => {
      const op = instr.op;
      if ((op.kind !== 'bar.sync' && op.kind !== 'bar.arrive') || !isConstant(op.id)) return undefined;
      const id = constantIndex(() => instr.args[0]!([]));
      return id !== undefined && id < o.named ? id : undefined;
    };
    m.roles.forEach((role) =>
      role.code.forEach((instr) => {
        if (instr.kind !== 'op' || (instr.op.kind !== 'bar.sync' && instr.op.kind !== 'bar.arrive')) return;
        const id = namedId(instr);
        const n = isConstant(instr.op.threads) ? constantIndex(() => instr.args[1]!([])) : undefined;
        for (const x of id === undefined ? Array.from({ length: o.named }, (_, i) => i) : [id]) namedThreads[x] = n === undefined || n <= 0 ? 0 : Math.min(namedThreads[x]!, n);
      }),
    );
    m.roles.forEach((role, r) => {
      const n = role.code.length;
      const until = new Int32Array(n + 1).fill(n);
      for (let pc = n - 1; pc >= 0; pc--) until[pc] = role.code[pc]!.kind === 'op' ? until[pc + 1]! : pc;
      const waits: number[] = [];
      const waitBarriers: number[] = [];
      const waitParities: number[] = [];
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
      role.code.forEach((instr, pc) => {
        if (instr.kind !== 'op') return;
        // the index is a constant (no loop variable, no symbolic parameter): resolve it once
        const ref = instr.refs[0];
        if (instr.op.kind === 'wait' && ref && isConstant(instr.op.target.index) && isConstant(instr.op.parity)) {
          const index = constantIndex(() => ref.index([]));
          if (index !== undefined && index < ref.res.size) {
            waits.push(pc);
            waitBarriers.push(ref.res.base + index);
            waitParities.push(constantIndex(() => instr.args[0]!([])) ?? -1);
          }
        }
        if (instr.op.kind === 'bar.sync' && isConstant(instr.op.threads)) {
          const id = namedId(instr);
          if (id !== undefined) {
            waits.push(pc);
            waitBarriers.push(o.barriers + id);
            waitParities.push(NAMED_SYNC);
          }
        }
        const t = touches[r]?.[pc];
        if (t === undefined) return;
        if (t === GLOBAL) return void globalAt.push(pc);
        for (const x of t.reads) {
          note(touchAt, x, pc);
          note(readAt, x, pc);
        }
        for (const x of t.writes) {
          note(touchAt, x, pc);
          note(writeAt, x, pc);
        }
      });
      role.code.forEach((instr, pc) => {
        effectStart[pc] = effectBarrier.length;
        const t = touches[r]?.[pc];
        if (instr.kind !== 'op' || t === undefined) return;
        if (t === GLOBAL) {
          effectBarrier.push(-1);
          effectCounts.push(Infinity, Infinity, Infinity);
          return;
        }
        const counted = countingOp(instr, isConstant);
        const arrivals = arrivalsOf(o, instr, t);
        for (const x of t.writes) {
          if (x >= o.slots + o.barriers && x < o.slots + o.barriers + o.named) {
            // a named barrier: the op's id may be one of several (then it counts as unknown there)
            effectBarrier.push(x - o.slots);
            effectCounts.push(namedId(instr) === x - o.slots - o.barriers ? role.warps * 32 : Infinity, 0, 0);
            continue;
          }
          if (x < o.slots || x >= o.slots + o.barriers) continue;
          const b = x - o.slots;
          effectBarrier.push(b);
          if (counted?.barrier === b) effectCounts.push(counted.arrivals, counted.expects, counted.lands);
          else effectCounts.push(arrivals === GLOBAL || arrivals.includes(b) ? Infinity : 0, Infinity, Infinity);
        }
      });
      effectStart[n] = effectBarrier.length;
      this.effectStart.push(effectStart);
      this.effectBarrier.push(Int32Array.from(effectBarrier));
      this.effectCounts.push(Float64Array.from(effectCounts));
      this.straightUntil.push(until);
      this.waits.push(Int32Array.from(waits));
      this.waitBarriers.push(Int32Array.from(waitBarriers));
      this.waitParities.push(Int32Array.from(waitParities));
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
    return this.straightUntil[r]?.[pc] ?? pc;
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
   * operand the table cannot tell).
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

/** The parity entry of a `bar.sync` in `waits`. */
export const NAMED_SYNC = 2;

/** An op that only counts on one barrier, with constant operands: what it adds there. */
function countingOp(instr: OpInstr, isConstant: (e: Expr) => boolean): (BarrierUpdates & { barrier: number }) | undefined {
  const op = instr.op;
  const k = op.kind === 'tma.load' ? 1 : op.kind === 'arrive' || op.kind === 'arrive.expect_tx' ? 0 : -1;
  const ref = instr.refs[k];
  if (!ref || (op.kind !== 'tma.load' && op.kind !== 'arrive' && op.kind !== 'arrive.expect_tx')) return undefined;
  const indexExpr = op.kind === 'tma.load' ? op.barrier.index : op.target.index;
  const amountExpr = op.kind === 'arrive' ? op.count : op.bytes;
  if (!isConstant(indexExpr) || !isConstant(amountExpr)) return undefined;
  const index = constantIndex(() => ref.index([]));
  const amount = constantIndex(() => instr.args[0]!([]));
  if (index === undefined || index >= ref.res.size || amount === undefined) return undefined;
  return { barrier: ref.res.base + index, ...updateOf(op.kind, amount) };
}

/** What one counting op adds to its barrier: an arrive's count, an arrive.expect_tx's one arrival and bytes, a copy's bytes. */
export function updateOf(kind: 'tma.load' | 'arrive' | 'arrive.expect_tx', amount: number): BarrierUpdates {
  if (kind === 'tma.load') return { arrivals: 0, expects: 0, lands: amount };
  if (kind === 'arrive') return { arrivals: amount, expects: 0, lands: 0 };
  return { arrivals: 1, expects: amount, lands: 0 };
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

/** A constant index as a non-negative integer, or undefined when it is not one (or cannot be evaluated). */
function constantIndex(evaluate: () => number): number | undefined {
  try {
    const v = evaluate();
    return Number.isInteger(v) && v >= 0 ? v : undefined;
  } catch {
    return undefined;
  }
}
