// Happens-before as knowledge bits (docs/checker.md, "Races").
//
// Instead of vector clocks (counters that grow without bound and split states), every agent
// (role, barrier phase, aref slot, named barrier, retired async group) holds the set of
// *tracked events* that happen-before its current point. Only the events a race check can
// ask about are tracked: per shared slot, its last write, the proxy fence after that write,
// and the last read of each reader class (a later read by the same reader class is ordered
// after the earlier one, so it supersedes it). A new event clears its bit everywhere and is
// set in the agent that performed it; release ORs the releaser's bits into the sync object,
// acquire ORs the sync object's bits into the acquirer. By induction over the run,
// `has(K(a), e)` ⇔ e →hb the current point of a — exact, and bounded by agents × events bits.
import type { MachineState } from './state.ts';

/** A bitset over event ids, as plain numbers (immer-friendly, cheap to copy). */
export type Knowledge = number[];

export const emptyKnowledge = (words: number): Knowledge => new Array<number>(words).fill(0);

export function has(k: Knowledge, e: number): boolean {
  return (((k[e >>> 5] ?? 0) >>> (e & 31)) & 1) === 1;
}

export function setBit(k: Knowledge, e: number): void {
  const w = e >>> 5;
  k[w] = ((k[w] ?? 0) | (1 << (e & 31))) >>> 0;
}

function clearBit(k: Knowledge, e: number): void {
  const w = e >>> 5;
  k[w] = ((k[w] ?? 0) & ~(1 << (e & 31))) >>> 0;
}

/** dst ∪= src */
export function orInto(dst: Knowledge, src: Knowledge): void {
  for (let i = 0; i < dst.length; i++) dst[i] = ((dst[i] ?? 0) | (src[i] ?? 0)) >>> 0;
}

/** Record a fresh occurrence of event e, known (so far) only to `owner`. */
export function freshEvent(s: MachineState, e: number, owner: Knowledge): void {
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

function clearEverywhere(s: MachineState, e: number): void {
  const hb = s.hb;
  for (const k of hb.roles) clearBit(k, e);
  for (const k of hb.barPending) clearBit(k, e);
  for (const k of hb.barDone) clearBit(k, e);
  for (const k of hb.arefSlot) clearBit(k, e);
  for (const k of hb.named) clearBit(k, e);
  for (const r of s.roles) {
    for (const g of r.mmaGroups) clearBit(g.know, e);
    for (const g of r.storeGroups) clearBit(g.know, e);
  }
}

export const isPresent = (s: MachineState, e: number): boolean => has(s.hb.present, e);
