// The every-K model: one state graph for all values of a parameter K at once (docs/checker.md,
// "A proof for every K"). Each role's variable slot 0 holds a representative of K. A state is
// either *exact* (K is that value) or *open* (K is that value plus any multiple of the far period).
// Two moves keep the graph finite and exact for the fragment of fragment.ts:
//  - shift: once every role is deep in its last K-loop (or past it), K, the counters and the
//    stored value tags all go back by one period: the future is the same up to that renaming;
//  - open K: while every K-loop has at least the distance cutoff to go, no expression can tell
//    K from K + L; at the edge the state must choose: "K is this value" or "K is larger".
import type { Invariant, Model } from '../../checker/model.ts';
import { NO_VALUE, cloneState, initialState, settleAll, type Action, type Machine, type MachineState } from '../../semantics/index.ts';
import { modelOfMachine } from '../verify/model.ts';
import type { Fragment } from './fragment.ts';

export interface KState {
  readonly s: MachineState;
  /** K is s's representative plus any multiple of the period (not yet fixed) */
  readonly open: boolean;
}

export type KAction =
  | { readonly kind: 'step'; readonly action: Action }
  /** an open K is the representative itself */
  | { readonly kind: 'fix' }
  /** an open K is at least one period larger than the representative */
  | { readonly kind: 'grow' };

interface LoopRange {
  readonly slot: number;
  /** first and last pc of the body (the last is the loop-next) */
  readonly first: number;
  readonly last: number;
  readonly to: (vars: readonly number[]) => number;
}

export interface EveryKModel extends Model<KState, KAction> {
  readonly machine: Machine;
  /** K's representative past which a state is not expanded (the roles drift apart without bound) */
  readonly horizon: number;
  /** some state was cut at the horizon: the graph is not complete, so no proof */
  horizonReached(): boolean;
  /** K of the concrete run a trace of this model stands for (at its last state, K fixed there). */
  concreteK(trace: readonly { readonly state: KState; readonly action?: KAction }[]): number;
}

const FIX: KAction = { kind: 'fix' };
const GROW: KAction = { kind: 'grow' };

export function everyKModel(machine: Machine, fragment: Fragment, minK: number): EveryKModel {
  const base = modelOfMachine(machine);
  const L = fragment.period;
  const ranges: LoopRange[][] = machine.roles.map((role) =>
    role.code.flatMap((instr, pc) => (instr.kind === 'loop-init' ? [{ slot: instr.slot, first: pc + 1, last: instr.exit - 1, to: instr.to }] : [])),
  );
  /** per role: the body of each of its K-loops */
  const kRanges = fragment.loops.map((loops, r) => loops.map((l) => ranges[r]?.find((x) => x.slot === l.slot)));
  const kOf = (s: MachineState): number => s.roles[0]?.vars[0] ?? 0;
  const inside = (pc: number, x: LoopRange | undefined): boolean => x !== undefined && pc >= x.first && pc <= x.last;

  /** Open K is safe to leave open here: K and every running K-loop are past the cutoffs. */
  const stableOpen = (s: MachineState): boolean => {
    if (kOf(s) < fragment.kCutoff) return false;
    return s.roles.every((rs, r) =>
      (kRanges[r] ?? []).every((range) => !range || !inside(rs.pc, range) || range.to(rs.vars) - (rs.vars[range.slot] ?? 0) >= fragment.distanceCutoff),
    );
  };

  /** Every role is deep in its last K-loop or past it, far enough that one shift keeps it past the cutoffs. */
  const shiftable = (s: MachineState): boolean => {
    if (kOf(s) - L < fragment.kCutoff) return false;
    return s.roles.every((rs, r) => {
      const loops = kRanges[r] ?? [];
      if (loops.length === 0) return true;
      const range = loops[loops.length - 1];
      if (!range) return false;
      if (rs.pc > range.last) return true;
      if (!inside(rs.pc, range)) return false;
      return (rs.vars[range.slot] ?? 0) - (fragment.slotShift[r]?.[range.slot] ?? 0) >= fragment.counterCutoff;
    });
  };

  const live = (r: number, slot: number, pc: number): boolean => slot === 0 || (ranges[r] ?? []).some((x) => x.slot === slot && inside(pc, x));

  /** Canonical form: shifted down while possible; phases, progress counters and dead variables forgotten. */
  const normalize = (s: MachineState): MachineState => {
    while (shiftable(s)) {
      s.roles.forEach((rs, r) => {
        const moves = fragment.slotShift[r] ?? [];
        for (let v = 0; v < rs.vars.length; v++) rs.vars[v] = (rs.vars[v] ?? 0) - (moves[v] ?? 0);
      });
      const tags = fragment.tagShift;
      for (let i = 0; i < s.slotValue.length; i++) if (s.slotValue[i] !== NO_VALUE) s.slotValue[i] = (s.slotValue[i] ?? 0) - tags;
      for (const t of s.tma) if (t.value !== NO_VALUE) t.value -= tags;
    }
    s.roles.forEach((rs, r) => {
      rs.steps = 0;
      for (let v = 1; v < rs.vars.length; v++) if (!live(r, v, rs.pc)) rs.vars[v] = 0;
    });
    s.asyncDone = 0;
    // the semantics reads a phase only as "≥ 1" and by its parity
    for (const b of s.barriers) if (b.phase >= 2) b.phase = 2 + (b.phase & 1);
    return s;
  };

  const withK = (k: number): MachineState => {
    const s = initialState(machine);
    for (const rs of s.roles) rs.vars[0] = k;
    return normalize(settleAll(machine, s));
  };

  /** The first representative left open: every smaller K is started exactly. */
  let openFrom = Math.max(minK, fragment.kCutoff, fragment.entryK);
  const F = fragment.farPeriod;
  while (!Array.from({ length: F }, (_, i) => withK(openFrom + i)).every(stableOpen)) openFrom += 1;

  // A correct pipeline keeps its roles within a ring's depth of each other, so K's representative
  // stays within a few periods of openFrom; a program whose roles drift apart without bound would
  // need ever larger representatives. Past the horizon a state is not expanded (and no proof given).
  const widest = Math.max(machine.roles.length, ...machine.program.resources.map((r) => (r.kind === 'aref' ? r.depth : r.kind === 'mbarrier' ? r.size : r.slots)));
  const horizon = openFrom + L + F + 8 * (widest + 8);
  let cut = false;
  const beyond = (x: KState): boolean => {
    if (kOf(x.s) <= horizon) return false;
    cut = true;
    return true;
  };

  const invariants: Invariant<KState>[] = base.invariants.map((inv) => ({ kind: inv.kind, check: (x: KState) => inv.check(x.s) }));
  const scratch: Action[] = [];
  const stepScratch: Action[] = [];

  return {
    machine,
    initialStates: () => [
      ...Array.from({ length: openFrom - minK }, (_, i) => ({ s: withK(minK + i), open: false })),
      ...Array.from({ length: F }, (_, i) => ({ s: withK(openFrom + i), open: true })),
    ],
    horizon,
    horizonReached: () => cut,
    actions(x, out) {
      if (beyond(x)) return;
      if (x.open && x.s.violation === undefined && !stableOpen(x.s)) {
        out.push(FIX, GROW);
        return;
      }
      scratch.length = 0;
      base.actions(x.s, scratch);
      for (const action of scratch) out.push({ kind: 'step', action });
    },
    nextState(x, a) {
      if (a.kind === 'fix') return { s: x.s, open: false };
      if (a.kind === 'grow') {
        const s = cloneState(x.s);
        for (const rs of s.roles) rs.vars[0] = (rs.vars[0] ?? 0) + F;
        return { s, open: true };
      }
      return { s: normalize(base.nextState(x.s, a.action)), open: x.open };
    },
    invariants,
    isFinal: (x) => beyond(x) || base.isFinal(x.s),
    explainDeadlock: (x) => base.explainDeadlock(x.s),
    // the open flag follows the state's words: the open-ended last block takes it in
    ...(base.blocks ? { blocks: base.blocks } : {}),
    encode(x) {
      const words = base.encode(x.s);
      const out = new Int32Array(words.length + 1);
      out.set(words);
      out[words.length] = x.open ? 1 : 0;
      return out;
    },
    decode(words) {
      const n = words.length - 1;
      return { s: base.decode(words.subarray(0, n)), open: words[n] === 1 };
    },
    // only a shift takes K's representative down: between two shifts every action moves some
    // role, copy or wgmma group forward, so every cycle contains a shift
    cycleEdge: (from, to) => kOf(to.s) < kOf(from.s),
    ample(x, actions) {
      if (actions[0]?.kind !== 'step') return undefined;
      stepScratch.length = 0;
      for (const a of actions) if (a.kind === 'step') stepScratch.push(a.action);
      return base.ample?.(x.s, stepScratch);
    },
    formatAction: (a) => (a.kind === 'step' ? base.formatAction(a.action) : a.kind === 'fix' ? 'K is fixed' : 'K grows by a period'),
    actor: (a) => (a.kind === 'step' ? (base.actor?.(a.action) ?? 0) : 31),
    actorName: (actor) => (actor === 31 ? 'the choice of K' : (base.actorName?.(actor) ?? `party ${actor}`)),
    concreteK(trace) {
      // each shift renamed K down by L; the run itself kept one K throughout
      let shifts = 0;
      for (let i = 1; i < trace.length; i++) {
        const before = trace[i - 1]?.state.s;
        const step = trace[i];
        if (!before || !step || step.action?.kind !== 'step') continue;
        shifts += (kOf(before) - kOf(step.state.s)) / L;
      }
      const last = trace[trace.length - 1]?.state.s;
      return (last ? kOf(last) : minK) + shifts * L;
    },
  };
}

