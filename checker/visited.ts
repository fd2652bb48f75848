// The visited set: an open-addressing hash table (linear probing, load ≤ 1/2) in one Int32Array
// of [tag, id + 1] pairs. The first hash picks the slot, the second is the tag; a tag match is
// confirmed by comparing the stored words, so two different states are never merged.
// No Map/Set: V8 caps those at 2^24 entries.

import type { StateArena } from './arena.ts';
import { fingerprint } from './fingerprint.ts';
import { ByteBudget, MemoryLimitError } from './growable.ts';

const MAX_SLOTS = 2 ** 30;
/** `findOrAdd`'s answer for a new state it was not allowed to store (distinct from every `~id`). */
export const NOT_ADDED = -0x80000000;

export class VisitedTable {
  private slots: Int32Array; // slot i: [2i] = tag, [2i + 1] = id + 1 (0 = empty)
  private homes: Uint32Array; // state id → first hash, so the table can grow without rehashing words
  private mask: number;
  private readonly hash = new Uint32Array(2);

  private readonly budget: ByteBudget;
  private readonly arena: StateArena;

  constructor(budget: ByteBudget, arena: StateArena) {
    this.budget = budget;
    this.arena = arena;
    const capacity = 1024;
    this.slots = budget.alloc(Int32Array, capacity * 2);
    this.homes = budget.alloc(Uint32Array, capacity / 2);
    this.mask = capacity - 1;
  }

  /**
   * The id of the state with these words. A state seen before gives `~id` (negative);
   * a new one is appended to the arena with this parent link and gives its id (≥ 0),
   * unless `mayAdd` is false: then it gives `NOT_ADDED` and stores nothing.
   */
  findOrAdd(words: Int32Array, parent: number, actionIndex: number, mayAdd = true): number {
    fingerprint(words, this.hash);
    const home = this.hash[0]!;
    const tag = this.hash[1]! | 0;
    const slots = this.slots;
    const mask = this.mask;
    let i = home & mask;
    for (;;) {
      const entry = slots[2 * i + 1]!;
      if (entry === 0) break;
      if (slots[2 * i] === tag && this.arena.equals(entry - 1, words)) return ~(entry - 1);
      i = (i + 1) & mask;
    }
    if (!mayAdd) return NOT_ADDED;
    const id = this.arena.append(words, parent, actionIndex);
    if (id >= this.homes.length) this.growHomes(id + 1);
    this.homes[id] = home;
    slots[2 * i] = tag;
    slots[2 * i + 1] = id + 1;
    if (2 * (id + 1) > mask + 1) this.growSlots();
    return id;
  }

  private growHomes(needed: number): void {
    const next = this.budget.alloc(Uint32Array, Math.max(needed, this.homes.length * 2));
    next.set(this.homes);
    this.budget.release(this.homes);
    this.homes = next;
  }

  /** Double the table and reinsert every entry at its home slot. */
  private growSlots(): void {
    const capacity = (this.mask + 1) * 2;
    if (capacity > MAX_SLOTS) throw new MemoryLimitError('memory: the visited table is full (2^30 slots)');
    const old = this.slots;
    const slots = this.budget.alloc(Int32Array, capacity * 2);
    const mask = capacity - 1;
    for (let j = 1; j < old.length; j += 2) {
      const entry = old[j]!;
      if (entry === 0) continue;
      let i = this.homes[entry - 1]! & mask;
      while (slots[2 * i + 1] !== 0) i = (i + 1) & mask;
      slots[2 * i] = old[j - 1]!;
      slots[2 * i + 1] = entry;
    }
    this.budget.release(old);
    this.slots = slots;
    this.mask = mask;
  }
}
