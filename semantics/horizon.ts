// Where a role's straight-line code touches what: per object the positions of the ops that touch
// it (and that write it), and the positions of its waits with constant operands. The reduction
// (ample.ts) uses it to bound what a role can do before it blocks: on any path of actions outside
// an ample set, a role stops at a wait that is blocked now on a barrier that only processes of the
// set (or the role itself, before that wait) could change — so only its ops before that wait can
// conflict with the set. Lifted PTX is one straight line per role, which is where this pays.
import type { Expr } from '../src/ir/program.ts';
import { GLOBAL, staticTouch, type ObjectSpace } from './footprint.ts';
import type { Machine } from './machine.ts';

export class Horizons {
  /** per role: the first position at or after pc that is not an op (a loop or branch), per pc */
  private readonly straightUntil: Int32Array[];
  /** per role: positions of `wait` ops whose barrier and parity are constants, ascending */
  readonly waits: Int32Array[];
  /** per role: the barrier each of those waits names */
  readonly waitBarriers: Int32Array[];
  /** per role: object → ascending positions of ops touching it / writing it */
  private readonly touchAt: Map<number, number[]>[];
  private readonly writeAt: Map<number, number[]>[];
  /** per role: positions of ops that touch everything (init, inval, unknown operands) */
  private readonly globalAt: number[][];

  constructor(m: Machine, o: ObjectSpace) {
    const params = m.params;
    const isConstant = (e: Expr): boolean =>
      e.kind === 'num' || (e.kind === 'var' ? params.has(e.name) : e.kind === 'un' ? isConstant(e.arg) : isConstant(e.left) && isConstant(e.right));
    this.straightUntil = [];
    this.waits = [];
    this.waitBarriers = [];
    this.touchAt = [];
    this.writeAt = [];
    this.globalAt = [];
    m.roles.forEach((role, r) => {
      const n = role.code.length;
      const until = new Int32Array(n + 1).fill(n);
      for (let pc = n - 1; pc >= 0; pc--) until[pc] = role.code[pc]!.kind === 'op' ? until[pc + 1]! : pc;
      const waits: number[] = [];
      const waitBarriers: number[] = [];
      const touchAt = new Map<number, number[]>();
      const writeAt = new Map<number, number[]>();
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
          }
        }
        const t = staticTouch(m, o, r, instr);
        if (t === GLOBAL) return void globalAt.push(pc);
        for (const x of t.reads) note(touchAt, x, pc);
        for (const x of t.writes) {
          note(touchAt, x, pc);
          note(writeAt, x, pc);
        }
      });
      this.straightUntil.push(until);
      this.waits.push(Int32Array.from(waits));
      this.waitBarriers.push(Int32Array.from(waitBarriers));
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

  /** Whether role r writes object x at a position in lo..hi−1. */
  writesIn(r: number, x: number, lo: number, hi: number): boolean {
    return anyIn(this.writeAt[r]?.get(x), lo, hi) || anyIn(this.globalAt[r] ?? [], lo, hi);
  }
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
