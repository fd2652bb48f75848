// The visited set: an open-addressing hash table (linear probing, load ≤ 3/4) in one Int32Array
// of [tag, id + 1] pairs. The tag is the state's 32-bit hash, whose low bits pick its home slot,
// so the table grows without rehashing any state; a tag match is confirmed by comparing the
// stored words, so two different states are never merged.
// No Map/Set: V8 caps those at 2^24 entries.

import type { StateArena } from './arena.ts';
import { stateHash } from './fingerprint.ts';
import { ByteBudget, MemoryLimitError } from './growable.ts';

const MAX_SLOTS = 2 ** 30;
/** `findOrAdd`'s answer for a new state it was not allowed to store (distinct from every `~id`). */
export const NOT_ADDED = -0x80000000;

export class VisitedTable {
  private slots: Int32Array; // slot i: [2i] = tag (the hash), [2i + 1] = id + 1 (0 = empty)
  private mask: number;

  private readonly budget: ByteBudget;
  private readonly arena: StateArena;

  constructor(budget: ByteBudget, arena: StateArena) {
    this.budget = budget;
    this.arena = arena;
    const capacity = 64; // doubles as it fills: a small table stays small
    this.slots = budget.alloc(Int32Array, capacity * 2);
    this.mask = capacity - 1;
  }

  /**
   * The id of the state with these words. A state seen before gives `~id` (negative);
   * a new one is appended to the arena with this parent link and gives its id (≥ 0),
   * unless `mayAdd` is false: then it gives `NOT_ADDED` and stores nothing.
   */
  findOrAdd(stateWords: Int32Array, parent: number, actionIndex: number, mayAdd = true): number {
    const words = this.arena.stored(stateWords);
    const tag = stateHash(words);
    const slots = this.slots;
    const mask = this.mask;
    let i = tag & mask;
    for (;;) {
      const entry = slots[2 * i + 1]!;
      if (entry === 0) break;
      if (slots[2 * i] === tag && this.arena.storedEquals(entry - 1, words)) return ~(entry - 1);
      i = (i + 1) & mask;
    }
    if (!mayAdd) return NOT_ADDED;
    const id = this.arena.append(words, parent, actionIndex);
    slots[2 * i] = tag;
    slots[2 * i + 1] = id + 1;
    if (4 * (id + 1) > 3 * (mask + 1)) this.growSlots();
    return id;
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
      let i = old[j - 1]! & mask;
      while (slots[2 * i + 1] !== 0) i = (i + 1) & mask;
      slots[2 * i] = old[j - 1]!;
      slots[2 * i + 1] = entry;
    }
    this.budget.release(old);
    this.slots = slots;
    this.mask = mask;
  }
}
