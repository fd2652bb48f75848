// The stored states: each state's encoded words, back to back in chunks of Int32Array, with its
// parent link and the index of the action that reached it. State ids are assigned in BFS order, so
// the arena is also the BFS queue (expand ids 0, 1, 2, … while new ones are appended). The words
// live in fixed-size chunks that are never copied: growing one big array would copy every state
// stored so far each time (a tenth of the explorer's time on large lifted kernels) and hold the old
// and the new array at once. Chunks double from 1,024 words up to 4 Mi words (16 MiB), so a small
// check allocates little; a state never straddles two chunks.

import { ByteBudget, grow } from './growable.ts';

/** Largest action index a state's link can hold (Uint16Array). */
export const MAX_ACTION_INDEX = 0xffff;
const FIRST_CHUNK_WORDS = 1 << 10;
const MAX_CHUNK_WORDS = 1 << 22;

export class StateArena {
  count = 0;
  private readonly chunks: Int32Array[] = [];
  private used = 0; // words used in the last chunk
  private chunkOf: Uint32Array; // state id → its chunk
  private starts: Uint32Array; // state id → its first word in that chunk
  private lengths: Uint32Array; // state id → number of words
  private parents: Int32Array; // -1 for an initial state
  private actionIndices: Uint16Array; // index into actions(parent), or into initialStates()

  private readonly budget: ByteBudget;

  constructor(budget: ByteBudget) {
    this.budget = budget;
    this.chunkOf = budget.alloc(Uint32Array, 256);
    this.starts = budget.alloc(Uint32Array, 256);
    this.lengths = budget.alloc(Uint32Array, 256);
    this.parents = budget.alloc(Int32Array, 256);
    this.actionIndices = budget.alloc(Uint16Array, 256);
  }

  /** Store a new state; returns its id. */
  append(stateWords: Int32Array, parent: number, actionIndex: number): number {
    const id = this.count;
    const n = stateWords.length;
    let last = this.chunks[this.chunks.length - 1];
    if (last === undefined || this.used + n > last.length) {
      // a new chunk, twice the last (the rest of the last stays unused)
      const size = last === undefined ? FIRST_CHUNK_WORDS : Math.min(MAX_CHUNK_WORDS, 2 * last.length);
      last = this.budget.alloc(Int32Array, Math.max(size, n));
      this.chunks.push(last);
      this.used = 0;
    }
    if (id + 1 > this.parents.length) {
      this.chunkOf = grow(this.chunkOf, id + 1, this.budget);
      this.starts = grow(this.starts, id + 1, this.budget);
      this.lengths = grow(this.lengths, id + 1, this.budget);
      this.parents = grow(this.parents, id + 1, this.budget);
      this.actionIndices = grow(this.actionIndices, id + 1, this.budget);
    }
    const at = this.used;
    for (let i = 0; i < n; i++) last[at + i] = stateWords[i]!; // faster than set() for short states
    this.used = at + n;
    this.chunkOf[id] = this.chunks.length - 1;
    this.starts[id] = at;
    this.lengths[id] = n;
    this.parents[id] = parent;
    this.actionIndices[id] = actionIndex;
    this.count = id + 1;
    return id;
  }

  /** The stored words of state `id` (a view: do not write to it). */
  view(id: number): Int32Array {
    const at = this.starts[id]!;
    return this.chunks[this.chunkOf[id]!]!.subarray(at, at + this.lengths[id]!);
  }

  /** True when state `id` has exactly these words. */
  equals(id: number, stateWords: Int32Array): boolean {
    const n = stateWords.length;
    if (this.lengths[id] !== n) return false;
    const w = this.chunks[this.chunkOf[id]!]!;
    const at = this.starts[id]!;
    for (let i = 0; i < n; i++) if (w[at + i] !== stateWords[i]) return false;
    return true;
  }

  parent(id: number): number {
    return this.parents[id]!;
  }

  actionIndex(id: number): number {
    return this.actionIndices[id]!;
  }
}
