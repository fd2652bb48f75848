// Refinement: every execution of a lowered (mbarrier-level) program must be one the aref
// level allows. The mbarrier-level model runs in product with a monitor that holds the aref
// state σ(A[s]) = ⟨buf, F, E⟩ and replays the observable aref events the lowering defines:
//
// | mbarrier-level event                         | aref event  | monitor premise            |
// | a TMA copy lands in A_buf[s] with value v    | put(A[s],v) | E = 1 → buf := v, F=1, E=0 |
// | a role passes `wait A_full[s]`               | get(A[s])   | F = 1 → F = 0, E = 0       |
// | a role executes `arrive A_empty[s]`          | consumed    | F = E = 0 → E = 1          |
//
// The first event whose premise fails is reported as a `refinement` violation: an execution
// of the mbarrier program that no execution of the aref program allows. When the mbarrier
// program has finished, σ must be empty everywhere, as the aref level demands at its end: a
// slot still full lost its value, one still borrowed misses its consumed (protocol, with the
// aref level's words).
import type { Model } from '../../checker/model.ts';
import { InputError } from '../diag.ts';
import type { Program } from '../ir/program.ts';
import { loweredNames } from '../lower.ts';
import { currentOp, NO_VALUE, type Action, type Machine, type MachineState } from '../../semantics/index.ts';
import { modelOfMachine } from './model.ts';

export interface RefinementState {
  readonly inner: MachineState;
  /** per monitored slot: buf, F, E */
  readonly mon: readonly number[];
  readonly bad?: string;
  /** σ is not empty everywhere when the program has finished (a protocol violation). */
  readonly end?: string;
}

export interface WatchedAref {
  readonly aref: string;
  readonly depth: number;
  /** global slot id of A_buf[0] in the lowered machine, and barrier ids of A_full[0], A_empty[0] */
  readonly bufBase: number;
  readonly fullBase: number;
  readonly emptyBase: number;
  /** index of A[0] in the monitor array */
  readonly monBase: number;
}

/** The arefs of `arefProgram` as the lowered machine implements them (the standard lowering's names). */
export function watchedArefs(arefProgram: Program, lowered: Machine): WatchedAref[] {
  const watched: WatchedAref[] = [];
  let monSize = 0;
  for (const r of arefProgram.resources) {
    if (r.kind !== 'aref') continue;
    const names = loweredNames(r.name);
    const buf = lowered.resources.get(names.buffer);
    const full = lowered.resources.get(names.full);
    const empty = lowered.resources.get(names.empty);
    if (!buf || !full || !empty) {
      const missing = [names.buffer, names.full, names.empty].filter((n) => !lowered.resources.has(n));
      throw new InputError(`refinement: the mbarrier program has no ${missing.join(', ')}: it does not implement aref ${r.name} by the standard lowering (expected ${names.buffer}, ${names.full} and ${names.empty})`, r.loc);
    }
    watched.push({ aref: r.name, depth: r.depth, bufBase: lowered.arefSlotCount + buf.base, fullBase: full.base, emptyBase: empty.base, monBase: monSize });
    monSize += r.depth;
  }
  return watched;
}

export function refinementModel(arefProgram: Program, lowered: Machine): Model<RefinementState, Action> {
  const inner = modelOfMachine(lowered);
  const watched = watchedArefs(arefProgram, lowered);
  const monSize = watched.reduce((n, w) => n + w.depth, 0);

  const find = (pick: (w: WatchedAref) => number, id: number): { w: WatchedAref; i: number } | undefined => {
    for (const w of watched) {
      const i = id - pick(w);
      if (i >= 0 && i < w.depth) return { w, i };
    }
    return undefined;
  };

  /** The aref event an action performs, judged in the state before it. */
  const eventOf = (s: MachineState, a: Action): { kind: 'put' | 'get' | 'consumed'; slot: number; value: number; name: string } | undefined => {
    if (a.kind === 'land') {
      const t = s.tma[a.index];
      const hit = t ? find((w) => w.bufBase, t.slot) : undefined;
      return hit && t ? { kind: 'put', slot: hit.w.monBase + hit.i, value: t.value, name: `${hit.w.aref}[${hit.i}]` } : undefined;
    }
    if (a.kind !== 'role') return undefined;
    const instr = currentOp(lowered, s, a.role);
    if (!instr || (instr.op.kind !== 'wait' && instr.op.kind !== 'arrive')) return undefined;
    const ref = instr.refs[0];
    if (!ref) return undefined;
    let idx: number;
    try {
      idx = ref.index(s.roles[a.role]?.vars ?? []);
    } catch {
      return undefined;
    }
    const id = ref.res.base + idx;
    if (instr.op.kind === 'wait') {
      const hit = find((w) => w.fullBase, id);
      return hit ? { kind: 'get', slot: hit.w.monBase + hit.i, value: NO_VALUE, name: `${hit.w.aref}[${hit.i}]` } : undefined;
    }
    const hit = find((w) => w.emptyBase, id);
    return hit ? { kind: 'consumed', slot: hit.w.monBase + hit.i, value: NO_VALUE, name: `${hit.w.aref}[${hit.i}]` } : undefined;
  };

  const sigma = (mon: readonly number[], slot: number): string => {
    const buf = mon[3 * slot];
    return `⟨${buf === NO_VALUE ? '⊥' : buf}, ${mon[3 * slot + 1]}, ${mon[3 * slot + 2]}⟩`;
  };

  const initialMon = (): number[] => {
    const mon: number[] = [];
    for (let i = 0; i < monSize; i++) mon.push(NO_VALUE, 0, 1);
    return mon;
  };

  /** σ of every monitored slot must be ⟨_, 0, 1⟩ once everything has finished (the aref level's end check). */
  const endCheck = (next: MachineState, mon: readonly number[]): string | undefined => {
    if (next.violation || !inner.isFinal(next)) return undefined;
    for (const w of watched) {
      for (let i = 0; i < w.depth; i++) {
        const at = 3 * (w.monBase + i);
        const name = `${w.aref}[${i}]`;
        if (mon[at + 1] === 1) return `at the end ${name} is still full: the value ${mon[at]} put into it was never taken (lost data)`;
        if (mon[at + 2] === 0) return `at the end ${name} is still borrowed: a consumed is missing (the next use of the ring would block on it)`;
      }
    }
    return undefined;
  };
  const withEnd = (state: RefinementState): RefinementState => {
    if (state.bad !== undefined) return state;
    const end = endCheck(state.inner, state.mon);
    return end === undefined ? state : { ...state, end };
  };

  return {
    initialStates: () => inner.initialStates().map((s) => withEnd({ inner: s, mon: initialMon() })),
    actions: (s, out) => {
      if (s.bad === undefined && s.end === undefined) inner.actions(s.inner, out);
    },
    nextState: (s, a) => withEnd(step(s, a)),
    invariants: [
      ...inner.invariants.map((inv) => ({ kind: inv.kind, check: (s: RefinementState) => inv.check(s.inner) })),
      { kind: 'refinement', check: (s: RefinementState) => s.bad },
      { kind: 'protocol', check: (s: RefinementState) => s.end },
    ],
    isFinal: (s) => s.bad !== undefined || s.end !== undefined || inner.isFinal(s.inner),
    explainDeadlock: (s) => inner.explainDeadlock(s.inner),
    // the monitor's words follow the inner state's: its open-ended last block takes them in
    ...(inner.blocks ? { blocks: inner.blocks } : {}),
    encode(s) {
      const w = inner.encode(s.inner);
      const out = new Int32Array(w.length + s.mon.length + 1);
      out.set(w);
      out.set(s.mon, w.length);
      out[out.length - 1] = (s.bad === undefined ? 0 : 1) | (s.end === undefined ? 0 : 2);
      return out;
    },
    decode(words) {
      const tail = 3 * monSize + 1;
      const innerState = inner.decode(words.subarray(0, words.length - tail));
      const mon = Array.from(words.subarray(words.length - tail, words.length - 1));
      const flags = words[words.length - 1] ?? 0;
      // the messages are rebuilt by replaying the last step (see verify.ts); decoded states are never expanded further
      return {
        inner: innerState,
        mon,
        ...((flags & 1) !== 0 ? { bad: 'refinement violated' } : {}),
        ...((flags & 2) !== 0 ? { end: 'σ not empty at the end' } : {}),
      };
    },
    formatAction: (a) => inner.formatAction(a),
    ...(inner.actor ? { actor: inner.actor } : {}),
    ...(inner.actorName ? { actorName: inner.actorName } : {}),
    progress: (s) => inner.progress?.(s.inner) ?? 0,
  };

  function step(s: RefinementState, a: Action): RefinementState {
    const ev = eventOf(s.inner, a);
    const next = inner.nextState(s.inner, a);
    if (!ev || next.violation) return { inner: next, mon: s.mon };
    const mon = s.mon.slice();
    const at = 3 * ev.slot;
    const who = a.kind === 'role' ? lowered.roles[a.role]?.name : 'a TMA copy';
    if (ev.kind === 'put') {
      if (mon[at + 2] !== 1) return { inner: next, mon, bad: `${who} writes ${ev.name} (put) while at the aref level σ(${ev.name}) = ${sigma(mon, ev.slot)} is not empty` };
      mon[at] = ev.value;
      mon[at + 1] = 1;
      mon[at + 2] = 0;
    } else if (ev.kind === 'get') {
      if (mon[at + 1] !== 1) return { inner: next, mon, bad: `${who} passes the full wait of ${ev.name} (get) while at the aref level σ(${ev.name}) = ${sigma(mon, ev.slot)} is not full` };
      mon[at + 1] = 0;
      mon[at + 2] = 0;
    } else {
      if (mon[at + 1] !== 0 || mon[at + 2] !== 0) return { inner: next, mon, bad: `${who} releases ${ev.name} (consumed) while at the aref level σ(${ev.name}) = ${sigma(mon, ev.slot)} is not borrowed` };
      mon[at + 2] = 1;
    }
    return { inner: next, mon };
  }
}
