// Where a role's straight-line code touches what: per object the positions of the ops that touch
// it (and that write it), and the positions of its waits with constant operands. The reduction
// (ample.ts) uses it to bound what a role can do before it blocks: on any path of actions outside
// an ample set, a role stops at a wait that is blocked now on a barrier that only processes of the
// set (or the role itself, before that wait) could change — so only its ops before that wait can
// conflict with the set. Lifted PTX is one straight line per role, which is where this pays.
import type { Expr } from '../src/ir/program.ts';
import { arrivalsOf, GLOBAL, type ObjectSpace, type Touch } from './footprint.ts';
import type { Machine } from './machine.ts';

export class Horizons {
  /** per role: the first position at or after pc that is not an op (a loop or branch), per pc */
  private readonly straightUntil: Int32Array[];
  /** per role: positions of `wait` ops whose barrier and parity are constants, ascending */
  readonly waits: Int32Array[];
  /** per role: the barrier each of those waits names */
  readonly waitBarriers: Int32Array[];
  /** per role: the parity each of those waits names */
  private readonly waitParities: Int32Array[];
  /** per role: object → ascending positions of ops that only read it */
  private readonly readAt: Map<number, number[]>[];
  /** per role: object → ascending positions of ops touching it / writing it */
  private readonly touchAt: Map<number, number[]>[];
  private readonly writeAt: Map<number, number[]>[];
  /** per role: barrier → ascending positions of ops that may arrive on it (arrivalsOf) */
  private readonly arriveAt: Map<number, number[]>[];
  /** per role: barrier → the ops with constant operands that only count on it (tma.load, arrive, arrive.expect_tx) */
  private readonly countAt: Map<number, CountOps>[];
  /** per role: positions of ops that touch everything (init, inval, unknown operands) */
  private readonly globalAt: number[][];

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
    this.arriveAt = [];
    this.countAt = [];
    this.globalAt = [];
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
      const arriveAt = new Map<number, number[]>();
      const countAt = new Map<number, CountOps>();
      const globalAt: number[] = [];
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
        const counted = countingOp(instr, isConstant);
        if (counted) {
          const list = countAt.get(counted.barrier) ?? { at: [], arrivals: [], expects: [], lands: [] };
          list.at.push(pc);
          list.arrivals.push(counted.arrivals);
          list.expects.push(counted.expects);
          list.lands.push(counted.lands);
          countAt.set(counted.barrier, list);
        }
        const t = touches[r]?.[pc];
        if (t === undefined) return;
        if (t === GLOBAL) return void globalAt.push(pc);
        const arrivals = arrivalsOf(o, instr, t);
        if (arrivals !== GLOBAL) for (const b of arrivals) note(arriveAt, b, pc);
        for (const x of t.reads) {
          note(touchAt, x, pc);
          note(readAt, x, pc);
        }
        for (const x of t.writes) {
          note(touchAt, x, pc);
          note(writeAt, x, pc);
        }
      });
      this.straightUntil.push(until);
      this.waits.push(Int32Array.from(waits));
      this.waitBarriers.push(Int32Array.from(waitBarriers));
      this.waitParities.push(Int32Array.from(waitParities));
      this.readAt.push(readAt);
      this.touchAt.push(touchAt);
      this.writeAt.push(writeAt);
      this.arriveAt.push(arriveAt);
      this.countAt.push(countAt);
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

  /** Whether role r may arrive on barrier b (or reset it) at a position in lo..hi−1. */
  arrivesIn(r: number, b: number, lo: number, hi: number): boolean {
    return anyIn(this.arriveAt[r]?.get(b), lo, hi) || anyIn(this.globalAt[r] ?? [], lo, hi);
  }

  /**
   * What role r's code from pc to its end may do to barrier b (object x) in all: arrivals, bytes
   * expected, bytes landed by its copies — when that code is straight-line and changes b only
   * through tma.loads, arrives and arrive.expect_tx with constant operands; else undefined (a
   * loop, an expect_tx or complete_tx on b, an operand the table cannot tell).
   */
  barrierUpdates(r: number, b: number, x: number, pc: number): BarrierUpdates | undefined {
    const n = this.straightUntil[r]?.length ?? 1;
    if (this.straightEnd(r, pc) < n - 1) return undefined;
    if (anyIn(this.globalAt[r] ?? [], pc, n)) return undefined;
    const writes = this.writeAt[r]?.get(x) ?? [];
    const w = writes.length - lowerBound(writes, pc);
    const total = { arrivals: 0, expects: 0, lands: 0 };
    if (w === 0) return total;
    const ops = this.countAt[r]?.get(b);
    if (!ops) return undefined;
    const first = lowerBound(ops.at, pc);
    if (ops.at.length - first !== w) return undefined; // some other op writes b
    for (let i = first; i < ops.at.length; i++) {
      total.arrivals += ops.arrivals[i]!;
      total.expects += ops.expects[i]!;
      total.lands += ops.lands[i]!;
    }
    return total;
  }

  /**
   * Whether role r's first read of barrier object x from pc on (if any) is a wait with constant
   * parity `parity`: one that is blocked while b stays in a phase of that parity, so nothing after
   * it runs before b completes that phase.
   */
  firstReadWaits(r: number, x: number, pc: number, parity: number): boolean {
    if (this.straightEnd(r, pc) < (this.straightUntil[r]?.length ?? 1) - 1) return false; // a loop may come back to an earlier read
    const reads = this.readAt[r]?.get(x);
    if (!reads) return true;
    const k = lowerBound(reads, pc);
    if (k === reads.length) return true;
    const at = reads[k]!;
    const waits = this.waits[r]!;
    const w = lowerBound(waits, at);
    return w < waits.length && waits[w] === at && this.waitParities[r]![w] === parity;
  }

  /** Whether role r writes object x at a position in lo..hi−1. */
  writesIn(r: number, x: number, lo: number, hi: number): boolean {
    return anyIn(this.writeAt[r]?.get(x), lo, hi) || anyIn(this.globalAt[r] ?? [], lo, hi);
  }
}

export interface BarrierUpdates {
  readonly arrivals: number;
  readonly expects: number;
  readonly lands: number;
}

interface CountOps {
  readonly at: number[];
  readonly arrivals: number[];
  readonly expects: number[];
  readonly lands: number[];
}

/** An op that only counts on one barrier, with constant operands: what it adds there. */
function countingOp(instr: Extract<Machine['roles'][number]['code'][number], { kind: 'op' }>, isConstant: (e: Expr) => boolean): (BarrierUpdates & { barrier: number }) | undefined {
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
