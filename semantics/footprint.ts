// What each transition touches, for partial-order reduction (ample.ts; the argument is in
// docs/checker.md, "Partial-order reduction"). Objects are numbered in one space:
//   slot x (aref or buffer)          → x
//   mbarrier b                        → slotCount + b
//   named barrier n                   → slotCount + barrierCount + n
//   async groups of (role r, unit u)  → slotCount + barrierCount + named + 2r + (u = store)
// A transition "touches" an object when it reads or writes any part of the state that belongs to
// it: a slot's value, flags and access events; a barrier's counters, its pending/done knowledge,
// the phase bits every holder keeps for it and the tokens naming it; a named barrier's count;
// a unit's open and committed groups. Changes that every knowledge holder undergoes alike (a phase
// completion ageing bits of b, a new access event clearing old bits of x) distribute over the
// unions that merge knowledge, so they belong to b or x alone.
import { applyBin, applyUn } from '../src/ir/expr.ts';
import type { Expr, Op } from '../src/ir/program.ts';
import type { CRef, Instr, Machine } from './machine.ts';
import { slotId } from './machine.ts';
import { BAR_RELEASED, type MachineState } from './state.ts';
import { runsInOrder, type Positions } from './positions.ts';
import { wgmmaBatches } from './access.ts';

/** Touches everything: init and inval reset every role's phase knowledge of a barrier. */
export const GLOBAL = 'global' as const;
/**
 * What a transition reads and writes. Two transitions of different processes conflict when one
 * writes an object the other reads or writes (reads of one slot by two roles commute: each records
 * its own read event; so do two waits on one barrier).
 */
export type Touch = { readonly reads: readonly number[]; readonly writes: readonly number[] } | typeof GLOBAL;

export interface ObjectSpace {
  readonly slots: number;
  readonly barriers: number;
  readonly named: number;
  readonly count: number;
}

export function objectSpace(m: Machine): ObjectSpace {
  const named = m.usesNamedBarriers ? m.namedBarriers : 0;
  return { slots: m.slotCount, barriers: m.barrierCount, named, count: m.slotCount + m.barrierCount + named + 2 * m.roles.length };
}

export const barrierObject = (o: ObjectSpace, b: number): number => o.slots + b;
export const namedObject = (o: ObjectSpace, n: number): number => o.slots + o.barriers + n;
export const groupObject = (o: ObjectSpace, r: number, unit: 'mma' | 'store'): number => o.slots + o.barriers + o.named + 2 * r + (unit === 'store' ? 1 : 0);

type OpInstr = Extract<Instr, { kind: 'op' }>;

/** The unit whose groups an op changes, if any. */
function unitOf(op: Op): 'mma' | 'store' | undefined {
  switch (op.kind) {
    case 'wgmma.issue':
    case 'wgmma.commit':
    case 'wgmma.wait':
      return 'mma';
    case 'tma.store':
    case 'bulk.commit':
    case 'bulk.wait':
      return 'store';
    default:
      return undefined;
  }
}

/** An issue that commits no group: it adds a read to the role's open list and touches no group. */
const opensOnly = (op: Op): boolean => (op.kind === 'wgmma.issue' && !op.commit) || op.kind === 'tma.store';
/** Whether op commits a wgmma group: a commit, or an issue with its own commit. */
export const closesMmaGroup = (op: Op): boolean => op.kind === 'wgmma.commit' || (op.kind === 'wgmma.issue' && op.commit);

/** Ops that only read their slot or barrier (the others write it). */
const READS_TARGET: ReadonlySet<Op['kind']> = new Set(['read', 'wgmma.issue', 'tma.store', 'wait', 'wait.token']);

/**
 * The references of an op, in the order of the compiled refs, with whether each is only read.
 * A tma.load writes the slot and only checks that the barrier is valid, which only init and inval
 * (touching everything) change: issuing it does not touch the barrier (undefined: skipped). In a
 * role's future it also stands for the copy it starts, whose landing completes transaction bytes
 * on the barrier: a wait on that barrier depends on the role's future even when no arrive on it is
 * left there.
 */
function refModes(op: Op, future: boolean): (boolean | undefined)[] {
  if (op.kind === 'tma.load') return [false, future ? false : undefined];
  return [READS_TARGET.has(op.kind)];
}

function refIndexExprs(op: Op): Expr[] {
  if (!('target' in op)) return [];
  return op.kind === 'tma.load' ? [op.target.index, op.barrier.index] : [op.target.index];
}

/** The value of an index expression free of loop variables, else undefined. */
function constant(e: Expr, m: Machine, loopVars: ReadonlySet<string>): number | undefined {
  switch (e.kind) {
    case 'num':
      return e.value;
    case 'var':
      return loopVars.has(e.name) ? undefined : m.params.get(e.name);
    case 'un': {
      const a = constant(e.arg, m, loopVars);
      return a === undefined ? undefined : safe(() => applyUn(e.op, a));
    }
    case 'bin': {
      const l = constant(e.left, m, loopVars);
      const r = constant(e.right, m, loopVars);
      return l === undefined || r === undefined ? undefined : safe(() => applyBin(e.op, l, r));
    }
  }
}

function safe(f: () => number): number | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}


/** Which elements an op's operands name: statically (futures) or in one state (ample sets). */
interface Resolver {
  /** the element indices ref k may name; undefined when that cannot be told (touches everything) */
  elements(k: number, ref: CRef): readonly number[] | undefined;
  /** the named barrier ids a bar.sync/bar.arrive may name; undefined as above */
  namedIds(): readonly number[] | undefined;
  /** the barriers a wait.token's token may name */
  tokenBarriers(): readonly number[];
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const NO_BARRIERS: readonly number[] = [];

/** The touch of an op, its operands resolved by `at`. */
function touchWith(m: Machine, o: ObjectSpace, r: number, instr: OpInstr, at: Resolver, future: boolean): Touch {
  const op = instr.op;
  if (op.kind === 'init' || op.kind === 'inval') return GLOBAL;
  // A proxy fence only sets bits in the fencer's own knowledge (and their "present" bits, which no
  // other process reads without holding the bit): it commutes with every other process's transition
  // (docs/checker.md, "The independence relation").
  if (op.kind === 'fence.proxy.async') return { reads: [], writes: [] };
  const reads: number[] = [];
  const writes: number[] = [];
  const modes = refModes(op, future);
  // a copy over several slots writes each of them
  const span = op.kind === 'tma.load' && op.slots !== undefined ? (op.slots.kind === 'num' ? op.slots.value : undefined) : 1;
  if (span === undefined) return GLOBAL;
  for (let k = 0; k < instr.refs.length; k++) {
    const ref = instr.refs[k]!;
    if (modes[k] === undefined) continue;
    const elements = at.elements(k, ref);
    if (!elements) return GLOBAL;
    for (const i of elements) {
      if (ref.res.space === 'barrier') (modes[k] ? reads : writes).push(barrierObject(o, ref.res.base + i));
      else for (let j = i; j < Math.min(i + (k === 0 ? span : 1), ref.res.size); j++) (modes[k] ? reads : writes).push(slotId(m, ref.res, j));
    }
  }
  if (op.kind === 'bar.sync' || op.kind === 'bar.arrive') {
    const ids = at.namedIds();
    if (!ids) return GLOBAL;
    for (const n of ids) writes.push(namedObject(o, n));
  }
  if (op.kind === 'wait.token') for (const b of at.tokenBarriers()) reads.push(barrierObject(o, b));
  // an issue only adds to the role's open reads, which nothing but its own commit takes: it
  // commutes with its unit's retirements (they take committed groups) and with its partners' issues
  const unit = unitOf(op);
  if (unit && !opensOnly(op)) writes.push(groupObject(o, r, unit));
  return { reads, writes };
}

/** Per machine, per role: the slots its wgmma.issue ops may name anywhere in its code (static). */
const issueSlots = new WeakMap<Machine, (readonly number[])[]>();
function ownIssueSlots(m: Machine, o: ObjectSpace): (readonly number[])[] {
  let all = issueSlots.get(m);
  if (!all) {
    all = m.roles.map((role, p) => {
      const slots = new Set<number>();
      for (const instr of role.code) {
        if (instr.kind !== 'op' || instr.op.kind !== 'wgmma.issue') continue;
        const touch = staticTouch(m, o, p, instr);
        if (touch === GLOBAL) for (let x = 0; x < o.slots; x++) slots.add(x);
        else for (const x of touch.reads) if (x < o.slots) slots.add(x);
      }
      return [...slots].sort((a, b) => a - b);
    });
    issueSlots.set(m, all);
  }
  return all;
}

/** A value in 0..size-1 as a one-element list, else undefined. */
function inRange(v: number | undefined, size: number): number[] | undefined {
  return v !== undefined && Number.isInteger(v) && v >= 0 && v < size ? [v] : undefined;
}

/**
 * What an op may touch whatever the loop variables are: the element its index names when that is
 * a constant, else every element of the resource (the static footprint futures are made of),
 * with what the asynchronous work it starts will touch.
 */
export function staticTouch(m: Machine, o: ObjectSpace, r: number, instr: OpInstr): Touch {
  const loopVars = new Set(m.roles[r]?.varNames ?? []);
  const exprs = refIndexExprs(instr.op);
  const op = instr.op;
  return touchWith(m, o, r, instr, {
    elements: (k, ref) => {
      const e = exprs[k];
      return inRange(e ? constant(e, m, loopVars) : undefined, ref.res.size) ?? range(ref.res.size);
    },
    namedIds: () => (op.kind === 'bar.sync' || op.kind === 'bar.arrive' ? inRange(constant(op.id, m, loopVars), o.named) : undefined) ?? range(o.named),
    tokenBarriers: () => range(o.barriers), // the token may name any barrier
  }, true);
}

/**
 * A resolver that evaluates operands with fixed loop variables; `token`: the barriers a wait.token
 * may name. A class rather than closures made per call: tsx names every closure it makes
 * (keepNames), and currentTouch runs for roles in every state.
 */
class ResolverAt implements Resolver {
  private readonly o: ObjectSpace;
  private readonly instr: OpInstr;
  private readonly vars: readonly number[];
  private readonly token: readonly number[];

  constructor(o: ObjectSpace, instr: OpInstr, vars: readonly number[], token: readonly number[]) {
    this.o = o;
    this.instr = instr;
    this.vars = vars;
    this.token = token;
  }

  elements(_k: number, ref: CRef): number[] | undefined {
    return this.evaluate(ref.index, ref.res.size);
  }

  namedIds(): number[] | undefined {
    return this.evaluate(this.instr.args[0], this.o.named);
  }

  tokenBarriers(): readonly number[] {
    return this.token;
  }

  private evaluate(f: ((vars: readonly number[]) => number) | undefined, size: number): number[] | undefined {
    try {
      return inRange(f?.(this.vars), size);
    } catch {
      return undefined;
    }
  }
}

/**
 * What role r's current op touches in state s: the resolved elements. An index or id that cannot
 * be evaluated or is out of range makes the op report a protocol error: it touches everything.
 */
export function currentTouch(m: Machine, o: ObjectSpace, s: MachineState, r: number, instr: OpInstr): Touch {
  const rs = s.roles[r];
  if (!rs) return GLOBAL;
  // leaving a bar.sync that released the role changes only the role's own pc and flag
  if (instr.op.kind === 'bar.sync' && rs.barState === BAR_RELEASED) return { reads: [], writes: [] };
  const t = instr.token === undefined ? -1 : (rs.tokens[instr.token] ?? -1);
  const touch = touchWith(m, o, r, instr, new ResolverAt(o, instr, rs.vars, t >= 0 ? [t >> 2] : NO_BARRIERS), false);
  const started = touch === GLOBAL ? [] : batchStartedBy(m, o, s, r, instr);
  return started.length === 0 || touch === GLOBAL ? touch : { reads: [...touch.reads, ...started], writes: touch.writes };
}

/**
 * The slots whose wgmma reads role r's current op may start (access.ts `batchStarted`). An op that
 * begins r's batch j (an issue into an empty open list, or an empty commit) starts the partners'
 * batch-j reads when they have all begun it — now, or later on paths the ample set does not take,
 * where a partner's own issues begin its batch j. So it counts every slot a partner's batch j may
 * hold: the batch-j reads of a partner that has begun it, with those a partner whose batch j is
 * still open, or not yet begun, issues before its next commit (read off its code); every slot its
 * issues may name when the partner is further behind, or its code has a loop or branch first.
 */
function batchStartedBy(m: Machine, o: ObjectSpace, s: MachineState, r: number, instr: OpInstr): readonly number[] {
  const partners = m.mmaPartners[r] ?? [r];
  const rs = s.roles[r];
  if (partners.length < 2 || !rs || (instr.op.kind !== 'wgmma.issue' && instr.op.kind !== 'wgmma.commit') || rs.mmaOpen.length > 0) return [];
  const j = wgmmaBatches(rs);
  const slots: number[] = [];
  for (const q of partners) {
    const qs = s.roles[q];
    if (q === r || !qs) continue;
    const live = qs.mmaGroups.filter((g) => !g.retired);
    const begun = wgmmaBatches(qs);
    if (j < live.length) slots.push(...live[j]!.slots);
    else if (begun > j) slots.push(...qs.mmaOpen, ...issuesBeforeCommit(m, o, q, qs.pc));
    else if (begun === j && qs.mmaOpen.length === 0) slots.push(...issuesBeforeCommit(m, o, q, qs.pc));
    else slots.push(...(ownIssueSlots(m, o)[q] ?? []));
  }
  return slots;
}

/** issuesBeforeCommit per machine, role and pc: it reads only the code, and runs for roles at a wgmma in every state. */
const batchIssues = new WeakMap<Machine, Map<number, readonly number[]>[]>();

/** The slots role q's wgmma.issue ops from pc up to its next wgmma.commit may name. */
function issuesBeforeCommit(m: Machine, o: ObjectSpace, q: number, pc: number): readonly number[] {
  let perRole = batchIssues.get(m);
  if (!perRole) batchIssues.set(m, (perRole = m.roles.map(() => new Map())));
  const known = perRole[q]?.get(pc);
  if (known) return known;
  const slots = issueSlotsFrom(m, o, q, pc);
  perRole[q]?.set(pc, slots);
  return slots;
}

function issueSlotsFrom(m: Machine, o: ObjectSpace, q: number, pc: number): readonly number[] {
  const code = m.roles[q]?.code ?? [];
  const slots: number[] = [];
  for (let i = pc; i < code.length; i++) {
    const instr = code[i]!;
    if (instr.kind !== 'op') return ownIssueSlots(m, o)[q] ?? [];
    if (closesMmaGroup(instr.op)) break;
    if (instr.op.kind !== 'wgmma.issue') continue;
    const touch = staticTouch(m, o, q, instr);
    if (touch === GLOBAL) return ownIssueSlots(m, o)[q] ?? [];
    for (const x of touch.reads) if (x < o.slots) slots.push(x);
  }
  return slots;
}

/**
 * What each role's op at each position may touch (undefined where the instruction is not an op),
 * computed once for the futures and the horizons: in code positions the static touch, in unrolled
 * positions the op's operands evaluated with the loop variables it runs with (a wait.token's
 * token may still name any barrier).
 */
export function positionTouches(m: Machine, o: ObjectSpace, p: Positions): (Touch | undefined)[][] {
  const anyBarrier = range(o.barriers);
  const own = m.roles.map((_, r) =>
    Array.from({ length: p.length(r) }, (_, i) => {
      const instr = p.instr(r, i);
      if (instr?.kind !== 'op') return undefined;
      const vars = p.varsAt(r, i);
      return vars === undefined ? staticTouch(m, o, r, instr) : touchWith(m, o, r, instr, new ResolverAt(o, instr, vars, anyBarrier), true);
    }),
  );
  const batches = m.roles.map((_, r) => batchTable(m, p, r, own[r]!));
  return own.map((touches, r) => {
    const partners = (m.mmaPartners[r] ?? [r]).filter((q) => q !== r);
    if (partners.length === 0) return touches;
    const mine = batches[r];
    return touches.map((t, i) => {
      const kind = t === undefined ? undefined : (p.instr(r, i) as OpInstr).op.kind;
      const k = mine ? mine.begins[i]! : kind === 'wgmma.issue' || kind === 'wgmma.commit' ? 0 : -1;
      if (t === undefined || t === GLOBAL || k < 0) return t;
      // an op that may begin batch k starts the partners' batch-k reads (batchStartedBy)
      const extra = new Set<number>();
      for (const q of partners) for (const x of (mine && batches[q]?.slots[k]) ?? ownIssueSlots(m, o)[q] ?? []) extra.add(x);
      return extra.size === 0 ? t : { reads: [...t.reads, ...extra], writes: t.writes };
    });
  });
}

/**
 * A role's wgmma batches along its positions, when they run in that order (straight-line code or
 * unrolled positions): which batch (counted from the start) each position begins, −1 where it
 * begins none, and each batch's slots. Partners retire together, so their k-th batches are one
 * operation. Undefined when control flow makes the order unknown.
 */
function batchTable(m: Machine, p: Positions, r: number, touches: readonly (Touch | undefined)[]): { begins: Int32Array; slots: number[][] } | undefined {
  const n = p.length(r);
  if (!runsInOrder(p, r)) return undefined;
  const begins = new Int32Array(n).fill(-1);
  const slots: number[][] = [[]];
  let open = false;
  for (let i = 0; i < n; i++) {
    const instr = p.instr(r, i);
    if (instr?.kind !== 'op') continue;
    const kind = instr.op.kind;
    if (kind !== 'wgmma.issue' && kind !== 'wgmma.commit') continue;
    if (!open) begins[i] = slots.length - 1;
    const t = touches[i];
    if (kind === 'wgmma.issue' && t !== undefined && t !== GLOBAL) slots[slots.length - 1]!.push(...t.reads.filter((x) => x < m.slotCount));
    if (kind === 'wgmma.issue' && t === GLOBAL) return undefined;
    open = true;
    if (closesMmaGroup(instr.op)) {
      slots.push([]);
      open = false;
    }
  }
  return { begins, slots };
}

/**
 * The barriers an op with static touch `t` may arrive on: the only ops that count down a phase's
 * pending arrivals (a landing or complete_tx only counts bytes). Init and inval reset a barrier: GLOBAL.
 */
export function arrivalsOf(o: ObjectSpace, instr: OpInstr, t: Touch): readonly number[] | typeof GLOBAL {
  const kind = instr.op.kind;
  if (kind === 'init' || kind === 'inval' || t === GLOBAL) return GLOBAL;
  if (kind !== 'arrive' && kind !== 'arrive.expect_tx') return [];
  return t.writes.filter((x) => x >= o.slots && x < o.slots + o.barriers).map((x) => x - o.slots);
}

/**
 * For every role and pc, the objects its ops from pc on may touch (pc included), as two bitsets of
 * `words` 32-bit words: all touched objects and the written ones; init or inval sets every bit.
 * A third bitset, over barriers, holds those it may arrive on (arrivalsOf).
 */
export class Futures {
  readonly words: number;
  /** per role: rows of 2 × words (touched, written), one row per pc and one for "finished" */
  private readonly sets: Uint32Array[];
  private readonly barrierWords: number;
  /** per role: rows of barrierWords (may arrive on), one per pc and one for "finished" */
  private readonly arriveSets: Uint32Array[];

  /** `touches`: positionTouches(m, o, p) */
  constructor(m: Machine, o: ObjectSpace, p: Positions, touches: readonly (readonly (Touch | undefined)[])[]) {
    const w = (this.words = Math.max(1, Math.ceil(o.count / 32)));
    this.sets = m.roles.map((_, r) =>
      backwardUnion(p, r, 2 * w, (pc, sets, row) => {
        const t = touches[r]?.[pc];
        if (t === undefined) return;
        if (t === GLOBAL) return void sets.fill(0xffffffff, row, row + 2 * w);
        for (const x of t.reads) setBit(sets, row, x);
        for (const x of t.writes) {
          setBit(sets, row, x);
          setBit(sets, row + w, x);
        }
      }),
    );
    const bw = (this.barrierWords = Math.max(1, Math.ceil(o.barriers / 32)));
    this.arriveSets = m.roles.map((_, r) =>
      backwardUnion(p, r, bw, (pc, sets, row) => {
        const instr = p.instr(r, pc);
        const t = touches[r]?.[pc];
        if (instr?.kind !== 'op' || t === undefined) return;
        const bs = arrivalsOf(o, instr, t);
        if (bs === GLOBAL) return void sets.fill(0xffffffff, row, row + bw);
        for (const b of bs) setBit(sets, row, b);
      }),
    );
  }

  /** Whether role r's future from pc may arrive on barrier b (or reset it). */
  arrives(r: number, pc: number, b: number): boolean {
    const sets = this.arriveSets[r];
    if (!sets) return false;
    const bw = this.barrierWords;
    const row = Math.min(pc, sets.length / bw - 1) * bw;
    return ((sets[row + (b >>> 5)]! >>> (b & 31)) & 1) === 1;
  }

  /** Whether role r's future from pc may write object x. */
  writes(r: number, pc: number, x: number): boolean {
    const sets = this.sets[r];
    if (!sets) return false;
    const w = this.words;
    const row = Math.min(pc, sets.length / (2 * w) - 1) * 2 * w;
    return ((sets[row + w + (x >>> 5)]! >>> (x & 31)) & 1) === 1;
  }

  /** Whether role r's future from pc conflicts with a transition touching `t`. */
  conflicts(r: number, pc: number, t: Exclude<Touch, typeof GLOBAL>): boolean {
    const sets = this.sets[r];
    if (!sets) return false;
    const w = this.words;
    const row = Math.min(pc, sets.length / (2 * w) - 1) * 2 * w;
    for (const x of t.writes) if (((sets[row + (x >>> 5)]! >>> (x & 31)) & 1) === 1) return true;
    for (const x of t.reads) if (((sets[row + w + (x >>> 5)]! >>> (x & 31)) & 1) === 1) return true;
    return false;
  }
}

const setBit = (sets: Uint32Array, row: number, x: number): void => {
  sets[row + (x >>> 5)]! |= 1 << (x & 31);
};

/**
 * Rows of `width` words per position of role r (and one, empty, for "finished"): row(i) = own(i) ∪
 * the row of every successor, iterated to a fixed point (loops jump back; unrolled positions need
 * one pass). `own` sets i's own bits in its row; it is called once per position, before the iteration.
 */
function backwardUnion(p: Positions, r: number, width: number, own: (pc: number, sets: Uint32Array, row: number) => void): Uint32Array {
  const n = p.length(r);
  const sets = new Uint32Array((n + 1) * width);
  for (let pc = 0; pc < n; pc++) own(pc, sets, pc * width);
  for (let changed = true; changed; ) {
    changed = false;
    for (let pc = n - 1; pc >= 0; pc--) {
      const row = pc * width;
      for (const next of p.successors(r, pc)) {
        const nrow = Math.min(next, n) * width;
        for (let i = 0; i < width; i++) {
          const merged = (sets[row + i]! | sets[nrow + i]!) >>> 0;
          if (merged !== sets[row + i]) {
            sets[row + i] = merged;
            changed = true;
          }
        }
      }
    }
  }
  return sets;
}
