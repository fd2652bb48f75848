// The stored states: each state's encoded words, compressed to bytes (below), back to back in
// chunks, with its parent link and the index of the action that reached it. State ids are
// assigned in BFS order, so the arena is also the BFS queue (expand ids 0, 1, 2, … while new ones
// are appended). The bytes live in fixed-size chunks that are never copied: growing one big array
// would copy every state stored so far each time and hold the old and the new array at once.
// Chunks double from 1 KiB up to 1 MiB, so a small check allocates little and the last chunk's
// unused rest stays small (16 MiB chunks left a fifth of a run's bytes unused); 65,536 chunks of
// 1 MiB hold 64 GiB. A state never straddles two chunks.
//
// Compression: each word is zigzag-mapped (0, −1, 1, −2, … → 0, 1, 2, 3, …) and written 7 bits
// per byte, low bits first, the high bit of a byte saying another follows. The words of a state
// are mostly small (program counters, loop counters, flags, short lists), so most take one byte
// instead of four. The map is a bijection on word sequences, so equal states still have equal
// bytes and the visited table compares bytes.

import type { Collapser } from './collapse.ts';
import { ByteBudget, grow, MemoryLimitError } from './growable.ts';

/** Largest action index a state's link can hold (Uint16Array). */
export const MAX_ACTION_INDEX = 0xffff;
// small first allocations: collapse compression makes a few arenas per run, most of them small
const FIRST_CHUNK_BYTES = 1 << 10;
const FIRST_STATES = 32;
const MAX_CHUNK_BYTES = 1 << 20;
/** Most bytes one word takes. */
const MAX_WORD_BYTES = 5;

export class StateArena {
  count = 0;
  private readonly chunks: Uint8Array[] = [];
  private used = 0; // bytes used in the last chunk
  private chunkOf: Uint16Array; // state id → its chunk (65,536 chunks of at most 16 MiB)
  private starts: Uint32Array; // state id → its first byte in that chunk
  // a state's length is where the next one starts (states fill a chunk in id order), or the chunk's end
  private readonly chunkEnds: number[] = [];
  private parents: Int32Array; // -1 for an initial state
  private actionIndices: Uint16Array; // index into actions(parent), or into initialStates()
  /** scratch for decoding (expand) */
  private unpacked = new Int32Array(64);
  /** scratch for view, copied out */
  private viewed = new Int32Array(64);
  /** scratch for equals (called while the explorer holds its expand scratch) */
  private compared = new Int32Array(64);

  private readonly budget: ByteBudget;
  /** with collapse compression: what turns a state's words into the words stored, and back */
  private readonly collapser: Collapser | undefined;

  constructor(budget: ByteBudget, collapser?: Collapser) {
    this.budget = budget;
    this.collapser = collapser;
    this.chunkOf = budget.alloc(Uint16Array, FIRST_STATES);
    this.starts = budget.alloc(Uint32Array, FIRST_STATES);
    this.parents = budget.alloc(Int32Array, FIRST_STATES);
    this.actionIndices = budget.alloc(Uint16Array, FIRST_STATES);
  }

  /** The words to store, hash and compare for a state's words (themselves without collapse; a scratch with it). */
  stored(stateWords: Int32Array): Int32Array {
    return this.collapser ? this.collapser.compact(stateWords) : stateWords;
  }

  /** Store a new state (its `stored` words), compressed straight into the last chunk; returns its id. */
  append(stateWords: Int32Array, parent: number, actionIndex: number): number {
    const id = this.count;
    const room = MAX_WORD_BYTES * stateWords.length; // the most the state can take
    let last = this.chunks[this.chunks.length - 1];
    if (last === undefined || this.used + room > last.length) {
      // a new chunk, twice the last (the rest of the last stays unused)
      const size = last === undefined ? FIRST_CHUNK_BYTES : Math.min(MAX_CHUNK_BYTES, 2 * last.length);
      if (this.chunks.length > 0xffff) throw new MemoryLimitError('memory: the state arena is full (65,536 chunks)');
      last = this.budget.alloc(Uint8Array, Math.max(size, room));
      this.chunks.push(last);
      this.chunkEnds.push(0);
      this.used = 0;
    }
    if (id + 1 > this.parents.length) {
      this.chunkOf = grow(this.chunkOf, id + 1, this.budget);
      this.starts = grow(this.starts, id + 1, this.budget);
      this.parents = grow(this.parents, id + 1, this.budget);
      this.actionIndices = grow(this.actionIndices, id + 1, this.budget);
    }
    const at = this.used;
    let j = at;
    for (let i = 0; i < stateWords.length; i++) {
      const x = stateWords[i]!;
      let z = ((x << 1) ^ (x >> 31)) >>> 0;
      while (z >= 0x80) {
        last[j++] = (z & 0x7f) | 0x80;
        z >>>= 7;
      }
      last[j++] = z;
    }
    this.used = j;
    this.chunkEnds[this.chunks.length - 1] = j;
    this.chunkOf[id] = this.chunks.length - 1;
    this.starts[id] = at;
    this.parents[id] = parent;
    this.actionIndices[id] = actionIndex;
    this.count = id + 1;
    return id;
  }

  /** Bytes of state `id`. */
  private lengthOf(id: number): number {
    const chunk = this.chunkOf[id]!;
    const end = id + 1 < this.count && this.chunkOf[id + 1] === chunk ? this.starts[id + 1]! : this.chunkEnds[chunk]!;
    return end - this.starts[id]!;
  }

  /** The words of state `id`, decoded into a new array (the caller may keep it). */
  view(id: number): Int32Array {
    const words = this.decodeInto(id, false);
    return (this.collapser ? this.collapser.expand(words, false) : words).slice();
  }

  /**
   * The words of state `id`, decoded into the arena's scratch: valid until the next call to
   * `expand` (the explorer's hot loop; a new array per state costs more than the decoding).
   */
  expand(id: number): Int32Array {
    const words = this.decodeInto(id, true);
    return this.collapser ? this.collapser.expand(words, true) : words;
  }

  private decodeInto(id: number, scratch: boolean): Int32Array {
    // two scratches: a trace decoded while the explorer expands a state must not overwrite it
    let out = scratch ? this.unpacked : this.viewed;
    if (out.length < this.lengthOf(id)) {
      out = new Int32Array(2 * this.lengthOf(id));
      if (scratch) this.unpacked = out;
      else this.viewed = out;
    }
    return out.subarray(0, this.decode(id, out));
  }

  /** Decode state `id` into `out` (room for one word per byte); returns the word count. */
  private decode(id: number, out: Int32Array): number {
    const bytes = this.chunks[this.chunkOf[id]!]!;
    const end = this.starts[id]! + this.lengthOf(id);
    let n = 0;
    for (let i = this.starts[id]!; i < end; ) {
      let z = 0;
      let shift = 0;
      let b: number;
      do {
        b = bytes[i++]!;
        z |= (b & 0x7f) << shift;
        shift += 7;
      } while (b >= 0x80);
      out[n++] = (z >>> 1) ^ -(z & 1);
    }
    return n;
  }

  /** True when state `id` is the state with these words. */
  equals(id: number, stateWords: Int32Array): boolean {
    return this.storedEquals(id, this.stored(stateWords));
  }

  /** True when state `id` has exactly these `stored` words (a duplicate successor is never compressed). */
  storedEquals(id: number, stateWords: Int32Array): boolean {
    // a state of n words takes n to 5n bytes
    const length = this.lengthOf(id);
    if (length < stateWords.length || length > MAX_WORD_BYTES * stateWords.length) return false;
    if (this.compared.length < length) this.compared = new Int32Array(2 * length);
    const n = this.decode(id, this.compared);
    if (n !== stateWords.length) return false;
    for (let k = 0; k < n; k++) if (this.compared[k] !== stateWords[k]) return false;
    return true;
  }

  parent(id: number): number {
    return this.parents[id]!;
  }

  actionIndex(id: number): number {
    return this.actionIndices[id]!;
  }
}
