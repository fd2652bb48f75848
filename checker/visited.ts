// The visited set: an open-addressing hash table (linear probing, load ≤ 3/4) in one Int32Array,
// one word per slot. With 2^h slots, the low h bits of the state's 32-bit hash pick its home slot;
// the slot holds id + 1 (0 = empty) in its low h bits and the hash's high 32 − h bits as a tag
// above them. Ids fit in h bits because the table holds fewer states than slots. A tag match is
// confirmed by comparing the stored words, so two different states are never merged; a table of
// 2^h slots has a 2^−(32−h) chance of a false tag match per probe (1 in 2,048 at 2^21 slots).
// Each state's whole hash is also kept by id (4 bytes a state, in pages): growing the table then
// puts every id in again from its hash alone. Reading each state's stored words back from the
// arena and hashing them again instead cost a sixth of a run (mbarrier D4 P1 C1 K1024, no
// reduction: 16.7 % of its profile). The probe does not read it: a tag match is nearly always the
// state itself, and one more random read per probe costs more than the rare false match.
// No Map/Set: V8 caps those at 2^24 entries.

/** What the table stores its states in: the arena of whole states, or a collapse block's store. */
export interface WordStore {
  readonly count: number;
  /** the words to hash and compare for these state words */
  stored(stateWords: Int32Array): Int32Array;
  storedEquals(id: number, storedWords: Int32Array): boolean;
  append(storedWords: Int32Array, parent: number, actionIndex: number): number;
}
import { stateHash } from './state-hash.ts';
import { ByteBudget, MemoryLimitError } from './growable.ts';
import { PagedArray } from './paged.ts';

const MAX_BITS = 30;
/** `findOrAdd`'s answer for a new state it was not allowed to store (distinct from every `~id`). */
export const NOT_ADDED = -0x80000000;

export class VisitedTable {
  private slots: Int32Array; // slot i: (hash >>> bits) << bits | (id + 1); 0 = empty
  private bits: number;
  private mask: number;

  private readonly budget: ByteBudget;
  private readonly arena: WordStore;
  /** state id → its whole hash */
  private readonly hashes: PagedArray<Int32Array>;

  constructor(budget: ByteBudget, arena: WordStore) {
    this.budget = budget;
    this.arena = arena;
    this.hashes = new PagedArray(Int32Array, budget);
    this.bits = 6; // 64 slots, doubling as it fills: a small table stays small
    this.mask = (1 << this.bits) - 1;
    this.slots = budget.alloc(Int32Array, 1 << this.bits);
  }

  /**
   * The id of the state with these words. A state seen before gives `~id` (negative);
   * a new one is appended to the arena with this parent link and gives its id (≥ 0),
   * unless `mayAdd` is false: then it gives `NOT_ADDED` and stores nothing.
   */
  findOrAdd(stateWords: Int32Array, parent: number, actionIndex: number, mayAdd = true): number {
    const words = this.arena.stored(stateWords);
    const hash = stateHash(words);
    const { slots, mask, bits } = this;
    const tag = hash >>> bits;
    let i = hash & mask;
    for (;;) {
      const entry = slots[i]!;
      if (entry === 0) break;
      if (entry >>> bits === tag && this.arena.storedEquals((entry & mask) - 1, words)) return ~((entry & mask) - 1);
      i = (i + 1) & mask;
    }
    if (!mayAdd) return NOT_ADDED;
    const id = this.arena.append(words, parent, actionIndex);
    this.hashes.set(id, hash);
    slots[i] = (tag << bits) | (id + 1);
    if (4 * (id + 1) > 3 * (mask + 1)) this.growSlots();
    return id;
  }

  /** Double the table and put every state in again at its home slot, from its kept hash. */
  private growSlots(): void {
    const bits = this.bits + 1;
    if (bits > MAX_BITS) throw new MemoryLimitError(`memory: the visited table is full (2^${MAX_BITS} slots)`);
    const slots = this.budget.alloc(Int32Array, 1 << bits);
    const mask = (1 << bits) - 1;
    for (let id = 0; id < this.arena.count; id++) {
      const hash = this.hashes.get(id);
      let i = hash & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = ((hash >>> bits) << bits) | (id + 1);
    }
    this.budget.release(this.slots);
    this.slots = slots;
    this.bits = bits;
    this.mask = mask;
  }
}
