// The stored states: each state's encoded words, back to back in one Int32Array, with its parent
// link and the index of the action that reached it. State ids are assigned in BFS order, so the
// arena is also the BFS queue (expand ids 0, 1, 2, … while new ones are appended).

import { ByteBudget, MemoryLimitError, grow } from './growable.ts';

/** Largest action index a state's link can hold (Uint16Array). */
export const MAX_ACTION_INDEX = 0xffff;
const MAX_WORDS = 0xffffffff; // offsets are Uint32

export class StateArena {
  count = 0;
  private words: Int32Array;
  private offsets: Uint32Array; // state id → first word; offsets[count] = words used
  private parents: Int32Array; // -1 for an initial state
  private actionIndices: Uint16Array; // index into actions(parent), or into initialStates()

  private readonly budget: ByteBudget;

  constructor(budget: ByteBudget) {
    this.budget = budget;
    this.words = budget.alloc(Int32Array, 1024);
    this.offsets = budget.alloc(Uint32Array, 257);
    this.parents = budget.alloc(Int32Array, 256);
    this.actionIndices = budget.alloc(Uint16Array, 256);
  }

  /** Store a new state; returns its id. */
  append(stateWords: Int32Array, parent: number, actionIndex: number): number {
    const id = this.count;
    const start = this.offsets[id]!;
    const end = start + stateWords.length;
    if (end > MAX_WORDS) throw new MemoryLimitError('memory: the state arena is full (2^32 words)');
    if (end > this.words.length) this.words = grow(this.words, end, this.budget);
    if (id + 2 > this.offsets.length) this.offsets = grow(this.offsets, id + 2, this.budget);
    if (id + 1 > this.parents.length) {
      this.parents = grow(this.parents, id + 1, this.budget);
      this.actionIndices = grow(this.actionIndices, id + 1, this.budget);
    }
    const words = this.words;
    const n = stateWords.length;
    for (let i = 0; i < n; i++) words[start + i] = stateWords[i]!; // faster than set() for short states
    this.offsets[id + 1] = end;
    this.parents[id] = parent;
    this.actionIndices[id] = actionIndex;
    this.count = id + 1;
    return id;
  }

  /** The stored words of state `id` (a view: do not write to it). */
  view(id: number): Int32Array {
    return this.words.subarray(this.offsets[id]!, this.offsets[id + 1]!);
  }

  /** True when state `id` has exactly these words. */
  equals(id: number, stateWords: Int32Array): boolean {
    const start = this.offsets[id]!;
    const n = stateWords.length;
    if (this.offsets[id + 1]! - start !== n) return false;
    const w = this.words;
    for (let i = 0; i < n; i++) if (w[start + i] !== stateWords[i]) return false;
    return true;
  }

  parent(id: number): number {
    return this.parents[id]!;
  }

  actionIndex(id: number): number {
    return this.actionIndices[id]!;
  }
}
