// Happens-before as knowledge bits (docs/checker.md, "Races").
//
// Instead of vector clocks (counters that grow without bound and split states), every agent
// (role, barrier phase, aref slot, named barrier, retired async group) holds the set of
// *tracked events* that happen-before its current point. Only the events a race check can
// ask about are tracked: per shared slot, its last write, the proxy fence after that write, the
// fact "a proxy fence follows each role's last generic read", and the last read of each reader
// class (a later read by the same reader class is ordered after the earlier one, so it supersedes
// it). A new event clears its bit everywhere and is set in the agent that performed it; release
// ORs the releaser's bits into the sync object, acquire ORs the sync object's bits into the acquirer. By induction over the run,
// `has(K(a), e)` ⇔ e →hb the current point of a — exact, and bounded by agents × events bits.
import { clearBit, has, setBit, type Knowledge } from './bits.ts';
import type { Machine } from './machine.ts';
import { phaseBit, type MachineState } from './state.ts';

export { emptyKnowledge, has, orInto, setBit, type Knowledge } from './bits.ts';

/** Record a fresh occurrence of event e, known (so far) only to `owner`. */
export function freshEvent(s: MachineState, e: number, owner: Knowledge): void {
  if (e < 0) throw new Error('internal: an access event the event table does not track (semantics/events.ts)');
  clearEverywhere(s, e);
  setBit(s.hb.present, e);
  setBit(owner, e);
}

/** Forget event e (a read superseded by a later write needs no further checks); clearing its bits keeps states canonical. */
export function retireEvent(s: MachineState, e: number): void {
  if (!has(s.hb.present, e)) return;
  clearEverywhere(s, e);
  clearBit(s.hb.present, e);
}

/** Every knowledge holder of the state: roles, sync objects, and retired async groups. */
function forEachHolder(s: MachineState, f: (k: Knowledge) => void): void {
  const hb = s.hb;
  for (const k of hb.roles) f(k);
  for (const k of hb.barPending) f(k);
  for (const k of hb.barDone) f(k);
  for (const k of hb.arefSlot) f(k);
  for (const k of hb.named) f(k);
  for (const r of s.roles) {
    for (const g of r.mmaGroups) f(g.know);
    for (const g of r.storeGroups) f(g.know);
  }
}

function clearEverywhere(s: MachineState, e: number): void {
  forEachHolder(s, (k) => clearBit(k, e));
}

// ---- phase knowledge ---------------------------------------------------------------------
//
// A wait names a phase only by its parity, so which phase it means depends on what the waiter
// knows. Each holder keeps, per barrier, d = phase − (completions it knows of through
// happens-before), as two "freshness" bits FRESH_0 = (d < 1) and FRESH_1 = (d < 2): merging
// knowledge (OR) takes the smaller d, a completion ages every holder (d += 1), a passing wait
// makes the waiter fresh (d = 0). Distances of 2 and more need no finer record (waitMisses).

/** The holder knows barrier b's current phase (d = 0). */
export function freshPhase(m: Machine, k: Knowledge, b: number): void {
  setBit(k, phaseBit(m, b, 0));
  setBit(k, phaseBit(m, b, 1));
}

/** Barrier b completed a phase: every holder's d grows by one (saturating at 2). */
export function agePhase(m: Machine, s: MachineState, b: number): void {
  const b0 = phaseBit(m, b, 0);
  const b1 = phaseBit(m, b, 1);
  forEachHolder(s, (k) => {
    if (has(k, b0)) setBit(k, b1);
    else clearBit(k, b1);
    clearBit(k, b0);
  });
}

/** d for the holder: 0, 1, or 2 meaning "2 or more". */
export function phaseDistance(m: Machine, k: Knowledge, b: number): 0 | 1 | 2 {
  return has(k, phaseBit(m, b, 0)) ? 0 : has(k, phaseBit(m, b, 1)) ? 1 : 2;
}

/**
 * Does a wait with this parity, by a holder at distance d of a barrier now in phase `phase`,
 * miss its phase? The wait means the first phase j of its parity at or after the last completed
 * phase the waiter knows of (c − 1, with c = phase − d completions known): j = c − 1 when that
 * phase has the parity, else c. PTX defines a wait only for the current phase or the one just
 * before it; the barrier being 2 or more phases past j is the aliasing miss (protocol).
 */
export function waitMisses(phase: number, d: 0 | 1 | 2, parity: number): boolean {
  if (d === 0) return false;
  if (d === 2) return true;
  const c = phase - 1; // d = 1
  const j = ((c - 1) & 1) === parity ? c - 1 : c;
  return phase - j >= 2;
}

export const isPresent = (s: MachineState, e: number): boolean => e >= 0 && has(s.hb.present, e);
