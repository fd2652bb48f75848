// Where a role is in its future, for partial-order reduction (footprint.ts Futures, horizon.ts,
// stuck.ts, ample.ts). Two position spaces:
//   - code positions: a position is a pc; loops and branches join paths, so an op's operands are
//     known only when they are constants, and straight-line stretches end at every loop;
//   - unrolled positions: a role's control flow reads its loop variables alone (branches and loop
//     bounds name no shared state, and no op writes a loop variable), so each role executes one
//     fixed sequence of ops whatever the interleaving. Position i is its i-th op, with the loop
//     variables it runs with: every operand is known, and the whole future is straight-line.
//     A role at an op has executed `steps` ops before it, a bar.sync counting two (its arrival,
//     then leaving once released), so its position is read off its step count.
// The unrolled space is used when some role has a loop or branch and every role's sequence is
// short enough (UNROLL_LIMIT positions in all) and can be computed: not for a machine with a
// symbolic parameter (every-K), whose loop bounds live in the state.
import type { CExpr, Instr, Machine } from './machine.ts';
import type { OpInstr } from './context.ts';
import type { RoleState } from './state.ts';
import { controlStep, SETTLE_LIMIT } from './step.ts';

/** The most unrolled positions over all roles (per position a touch and a row of the futures). */
export const UNROLL_LIMIT = 1 << 18;

/**
 * How far ahead of a role the reduction looks op by op in unrolled positions: its straight part
 * ends this many positions on, and what lies past that counts through the futures (everything it
 * may touch), as past a loop in code positions. Without it a role that nothing stops would be
 * walked to its end in every state; a few rounds of a ring fit in it.
 */
export const UNROLL_WINDOW = 256;

export interface Positions {
  readonly unrolled: boolean;
  /** role r's positions are 0..length(r)−1; length(r) is "finished" */
  length(r: number): number;
  /** the instruction at position i (in the unrolled space always an op) */
  instr(r: number, i: number): Instr | undefined;
  /** positions control can go to from i (length(r) for the end) */
  successors(r: number, i: number): readonly number[];
  /** the first position at or after i where control flow (a loop or branch) starts, or length(r) */
  straightEnd(r: number, i: number): number;
  /** the loop variables every visit of position i runs with, when they are fixed (unrolled); undefined in code positions */
  varsAt(r: number, i: number): readonly number[] | undefined;
  /** where role r is in state rs */
  of(r: number, rs: RoleState): number;
}

/** pcs as positions (the space every machine has). */
export class CodePositions implements Positions {
  readonly unrolled = false;
  private readonly m: Machine;
  /** per role, per pc: the first non-op position at or after it */
  private readonly until: Int32Array[];

  constructor(m: Machine) {
    this.m = m;
    this.until = m.roles.map((role) => {
      const n = role.code.length;
      const until = new Int32Array(n + 1).fill(n);
      for (let pc = n - 1; pc >= 0; pc--) until[pc] = role.code[pc]!.kind === 'op' ? until[pc + 1]! : pc;
      return until;
    });
  }

  length(r: number): number {
    return this.m.roles[r]?.code.length ?? 0;
  }
  instr(r: number, i: number): Instr | undefined {
    return this.m.roles[r]?.code[i];
  }
  successors(r: number, i: number): readonly number[] {
    const instr = this.instr(r, i);
    if (!instr) return [];
    switch (instr.kind) {
      case 'op':
        return [i + 1];
      case 'loop-init':
        return [i + 1, instr.exit];
      case 'loop-next':
        return [instr.body, i + 1];
      case 'branch':
        return [i + 1, instr.target];
      case 'jump':
        return [instr.target];
    }
  }
  straightEnd(r: number, i: number): number {
    return this.until[r]?.[i] ?? i;
  }
  varsAt(): undefined {
    return undefined;
  }
  of(_r: number, rs: RoleState): number {
    return rs.pc;
  }
}

/** One role's ops in execution order. */
interface RoleTrace {
  /** position → pc of the op */
  readonly pcs: Int32Array;
  /** position → the loop variables, `width` per position */
  readonly vars: Float64Array;
  readonly width: number;
  /** step count → position (a bar.sync takes two steps); steps past the end → the end */
  readonly positionOfStep: Int32Array;
}

/** Whether role r's positions run in order: unrolled, or straight-line code with no loop or branch. */
export function runsInOrder(p: Positions, r: number): boolean {
  return p.unrolled || p.straightEnd(r, 0) >= p.length(r);
}

/** Whether every role of m is straight-line code, with no loop or branch (lifted PTX): its own unrolling. */
export function isStraightLine(m: Machine): boolean {
  return m.roles.every((role) => role.code.every((instr) => instr.kind === 'op'));
}

/** Each role's op sequence, unrolled (see the top of this file). */
export class UnrolledPositions implements Positions {
  readonly unrolled = true;
  private readonly m: Machine;
  private readonly traces: readonly RoleTrace[];

  private constructor(m: Machine, traces: readonly RoleTrace[]) {
    this.m = m;
    this.traces = traces;
  }

  /** The unrolled space of m, or undefined when it has a symbolic parameter, a loop bound or condition that cannot be evaluated, or more than `limit` positions. */
  static of(m: Machine, limit = UNROLL_LIMIT): UnrolledPositions | undefined {
    if (m.symbolic !== undefined) return undefined;
    // straight-line code (lifted PTX) is its own unrolling: the code positions say the same, unwindowed
    if (isStraightLine(m)) return undefined;
    const traces: RoleTrace[] = [];
    let budget = limit;
    for (const role of m.roles) {
      const trace = unrollRole(role.code, role.varNames.length, budget);
      if (!trace) return undefined;
      budget -= trace.pcs.length;
      traces.push(trace);
    }
    return new UnrolledPositions(m, traces);
  }

  length(r: number): number {
    return this.traces[r]?.pcs.length ?? 0;
  }
  instr(r: number, i: number): OpInstr | undefined {
    const pc = this.traces[r]?.pcs[i];
    const instr = pc === undefined ? undefined : this.m.roles[r]?.code[pc];
    return instr?.kind === 'op' ? instr : undefined;
  }
  successors(r: number, i: number): readonly number[] {
    return i < this.length(r) ? [i + 1] : [];
  }
  straightEnd(r: number, i: number): number {
    return Math.min(this.length(r), i + UNROLL_WINDOW);
  }
  varsAt(r: number, i: number): readonly number[] | undefined {
    const t = this.traces[r];
    if (!t || i >= t.pcs.length) return undefined;
    // a plain copy by index: Array.from over a subarray cost more than the rest of the setup
    const vars = new Array<number>(t.width);
    for (let k = 0, at = i * t.width; k < t.width; k++) vars[k] = t.vars[at + k]!;
    return vars;
  }
  of(r: number, rs: RoleState): number {
    const t = this.traces[r]!;
    const i = t.positionOfStep[Math.min(rs.steps, t.positionOfStep.length - 1)]!;
    // the step count and the pc must agree: a role off its sequence would make every claim wrong
    if (i < t.pcs.length ? t.pcs[i] !== rs.pc : rs.pc < (this.m.roles[r]?.code.length ?? 0))
      throw new Error(`internal: ${this.m.roles[r]?.name} at pc ${rs.pc} after ${rs.steps} steps is off its unrolled sequence`);
    return i;
  }
}

/**
 * Run a role's control flow from the start (the initial state: every variable 0, then settled),
 * recording each op reached and the variables it runs with. Undefined past `budget` ops, past
 * SETTLE_LIMIT control steps between two ops, or when a bound or condition cannot be evaluated
 * (the role reports a protocol error there; the code positions stay in use).
 */
function unrollRole(code: readonly Instr[], width: number, budget: number): RoleTrace | undefined {
  const vars: number[] = new Array<number>(width).fill(0);
  const pcs: number[] = [];
  const values: number[] = [];
  const positionOfStep: number[] = [];
  let pc = 0;
  for (;;) {
    for (let guard = 0; ; guard++) {
      const instr = code[pc];
      if (!instr || instr.kind === 'op') break;
      if (guard >= SETTLE_LIMIT) return undefined;
      try {
        pc = controlStep(instr, vars, pc);
      } catch {
        return undefined;
      }
    }
    const instr = code[pc];
    if (!instr) break;
    if (pcs.length >= budget) return undefined;
    const at = pcs.length;
    pcs.push(pc);
    values.push(...vars);
    positionOfStep.push(at);
    if (instr.kind === 'op' && instr.op.kind === 'bar.sync') positionOfStep.push(at);
    pc += 1;
  }
  positionOfStep.push(pcs.length);
  return { pcs: Int32Array.from(pcs), vars: Float64Array.from(values), width, positionOfStep: Int32Array.from(positionOfStep) };
}

/** The value of an operand at position i: fixed when the space gives the variables there, else only when it is a constant (`isConstant`). */
export function valueAt(p: Positions, r: number, i: number, f: CExpr | undefined, isConstant: boolean): number | undefined {
  if (!f) return undefined;
  const vars = p.varsAt(r, i);
  if (vars === undefined && !isConstant) return undefined;
  try {
    return f(vars ?? []);
  } catch {
    return undefined;
  }
}
