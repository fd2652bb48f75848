// The semantic state of a Machine: readable, plain data (immer drafts it in the interpreter;
// the checker clones it and packs it into Int32 words, see pack.ts).
import type { Loc } from '../src/ir/program.ts';
import { NO_VALUE, type Machine } from './machine.ts';
import { emptyKnowledge, setBit, type Knowledge } from './bits.ts';
import { READER_KINDS, UNTRACKED } from './events.ts';

/** A TMA copy in flight: it lands later, writing `value` into `slot` and doing complete_tx(bytes) on `barrier`. */
export interface TmaFlight {
  /** the first slot the copy fills; it fills `span` consecutive ones and lands as one unit */
  slot: number;
  span: number;
  barrier: number;
  bytes: number;
  value: number;
  role: number;
}

/** A committed group of async reads (wgmma or TMA store) of one role; retired groups keep what they learned until a wait acquires it. */
export interface AsyncGroup {
  slots: number[];
  retired: boolean;
  know: Knowledge;
}

export const BAR_FREE = 0;
export const BAR_WAITING = 1;
export const BAR_RELEASED = 2;

export interface RoleState {
  /** index into the role's code; code.length = finished */
  pc: number;
  vars: number[];
  /** operations executed so far (progress measure) */
  steps: number;
  /** named-barrier state: BAR_FREE, BAR_WAITING (arrived at bar.sync), BAR_RELEASED */
  barState: number;
  /** wgmma issues not yet committed (slots read) */
  mmaOpen: number[];
  mmaGroups: AsyncGroup[];
  storeOpen: number[];
  storeGroups: AsyncGroup[];
  /**
   * Token variables (arrive … -> t): NO_TOKEN, or barrier × 4 + d where d (0, 1, 2 = 2 or more)
   * is how many phases the barrier completed since the arrive (a wait.token passes at d ≥ 1).
   */
  tokens: number[];
}

export const NO_TOKEN = -1;
export const tokenOf = (b: number, d: number): number => b * 4 + d;

export interface BarrierState {
  valid: number;
  phase: number;
  pending: number;
  expected: number;
  tx: number;
  /** 1 when a wait has observed the completion of the phase before the current one (PTX §9.7.13.15.4) */
  observed: number;
}

export interface Violation {
  kind: 'race' | 'fifo' | 'protocol';
  message: string;
  role: number;
  loc?: Loc;
}

export interface MachineState {
  roles: RoleState[];
  /** aref flags per aref slot: F (full), E (empty) */
  arefF: number[];
  arefE: number[];
  /** value tag per slot (aref slots, then buffer slots): σ(a).buf at aref level */
  slotValue: number[];
  /** 1 if the slot's last write was a generic-proxy store (needs fence.proxy.async before async readers) */
  slotGeneric: number[];
  barriers: BarrierState[];
  /** named barriers (0..m.namedBarriers-1): threads arrived in the current generation, and the thread count it was opened with */
  namedCount: number[];
  namedThreads: number[];
  tma: TmaFlight[];
  hb: HbState;
  /** async completions so far (progress measure) */
  asyncDone: number;
  violation?: Violation;
}

/** Happens-before knowledge per agent (see hb.ts and docs/checker.md). */
export interface HbState {
  /** which events exist (bitset over event ids) */
  present: Knowledge;
  roles: Knowledge[];
  barPending: Knowledge[];
  barDone: Knowledge[];
  arefSlot: Knowledge[];
  named: Knowledge[];
}

export function initialState(m: Machine): MachineState {
  const words = eventWords(m);
  const roles: RoleState[] = m.roles.map((r) => ({
    pc: 0,
    vars: r.varNames.map(() => 0),
    steps: 0,
    barState: BAR_FREE,
    mmaOpen: [],
    mmaGroups: [],
    storeOpen: [],
    storeGroups: [],
    tokens: r.tokenNames.map(() => NO_TOKEN),
  }));
  const barriers: BarrierState[] = m.barrierInit.map((count) =>
    count === undefined
      ? { valid: 0, phase: 0, pending: 0, expected: 0, tx: 0, observed: 1 }
      : { valid: 1, phase: 0, pending: count, expected: count, tx: 0, observed: 1 },
  );
  const namedN = m.usesNamedBarriers ? m.namedBarriers : 0;
  return {
    roles,
    arefF: new Array<number>(m.arefSlotCount).fill(0),
    arefE: new Array<number>(m.arefSlotCount).fill(1),
    slotValue: new Array<number>(m.slotCount).fill(NO_VALUE),
    slotGeneric: new Array<number>(m.slotCount).fill(0),
    barriers,
    namedCount: new Array<number>(namedN).fill(0),
    namedThreads: new Array<number>(namedN).fill(0),
    tma: [],
    hb: {
      present: emptyKnowledge(words),
      // every role knows each barrier starts in phase 0 (d = 0)
      roles: m.roles.map(() => {
        const k = emptyKnowledge(words);
        for (let b = 0; b < m.barrierCount; b++) {
          setBit(k, phaseBit(m, b, 0));
          setBit(k, phaseBit(m, b, 1));
        }
        return k;
      }),
      barPending: barriers.map(() => emptyKnowledge(words)),
      barDone: barriers.map(() => emptyKnowledge(words)),
      arefSlot: Array.from({ length: m.arefSlotCount }, () => emptyKnowledge(words)),
      named: Array.from({ length: namedN }, (_, id) => emptyKnowledge(m.namedUsed[id] ? words : 0)),
    },
    asyncDone: 0,
  };
}

export { READER_KINDS, READ_ATOMIC, READ_GENERIC, READ_WGMMA, READ_STORE } from './events.ts';

/**
 * Words of one knowledge bitset: the tracked slot events (events.ts), then two phase-knowledge bits
 * per barrier (hb.ts, "phase knowledge": how far the barrier has moved past the last completion the
 * holder knows of).
 */
export function eventWords(m: Machine): number {
  return Math.max(1, Math.ceil((m.events.count + PHASE_BITS * m.barrierCount) / 32));
}
/** Phase-knowledge bits per barrier: FRESH_0 "d < 1", FRESH_1 "d < 2" (d = phase − completions known). */
export const PHASE_BITS = 2;
export const phaseBit = (m: Machine, b: number, t: 0 | 1): number => m.events.count + PHASE_BITS * b + t;
// Event ids of a slot, UNTRACKED (−1) where no op of the program can create the event.
export const writeEvent = (m: Machine, slot: number): number => m.events.write[slot] ?? UNTRACKED;
/** Role `role`'s proxy fence after the slot's last (generic) write. */
export const fenceEvent = (m: Machine, slot: number, role: number): number => m.events.fence[slot * m.roles.length + role] ?? UNTRACKED;
/** The last read of the slot by reader class `kind` of role `role`. */
export const readEvent = (m: Machine, slot: number, kind: number, role: number): number =>
  m.events.read[(slot * READER_KINDS + kind) * m.roles.length + role] ?? UNTRACKED;
/** Known to an agent when some proxy fence lies between role `reader`'s last generic read of the slot and it. */
export const readFenceEvent = (m: Machine, slot: number, reader: number): number => m.events.readFence[slot * m.roles.length + reader] ?? UNTRACKED;

export function roleDone(m: Machine, s: MachineState, r: number): boolean {
  return (s.roles[r]?.pc ?? 0) >= (m.roles[r]?.code.length ?? 0);
}

export function allRolesDone(m: Machine, s: MachineState): boolean {
  return m.roles.every((_, r) => roleDone(m, s, r));
}

/** A deep copy (the checker's hot path; cheaper than structuredClone for these small arrays). */
export function cloneState(s: MachineState): MachineState {
  const copy: MachineState = {
    roles: s.roles.map((r) => ({
      pc: r.pc,
      vars: r.vars.slice(),
      steps: r.steps,
      barState: r.barState,
      mmaOpen: r.mmaOpen.slice(),
      mmaGroups: r.mmaGroups.map(cloneGroup),
      storeOpen: r.storeOpen.slice(),
      storeGroups: r.storeGroups.map(cloneGroup),
      tokens: r.tokens.slice(),
    })),
    arefF: s.arefF.slice(),
    arefE: s.arefE.slice(),
    slotValue: s.slotValue.slice(),
    slotGeneric: s.slotGeneric.slice(),
    barriers: s.barriers.map((b) => ({ ...b })),
    namedCount: s.namedCount.slice(),
    namedThreads: s.namedThreads.slice(),
    tma: s.tma.map((t) => ({ ...t })),
    hb: {
      present: s.hb.present.slice(),
      roles: s.hb.roles.map((k) => k.slice()),
      barPending: s.hb.barPending.map((k) => k.slice()),
      barDone: s.hb.barDone.map((k) => k.slice()),
      arefSlot: s.hb.arefSlot.map((k) => k.slice()),
      named: s.hb.named.map((k) => k.slice()),
    },
    asyncDone: s.asyncDone,
  };
  if (s.violation) copy.violation = { ...s.violation };
  return copy;
}

function cloneGroup(g: AsyncGroup): AsyncGroup {
  return { slots: g.slots.slice(), retired: g.retired, know: g.know.slice() };
}
