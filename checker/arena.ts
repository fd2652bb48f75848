// The stored states: each state's encoded words, compressed to bytes (below), back to back in
// chunks, with its parent link and the index of the action that reached it. State ids are
// assigned in BFS order, so the arena is also the BFS queue (expand ids 0, 1, 2, … while new ones
// are appended). Nothing stored is ever copied: the bytes live in chunks that double from 1 KiB up
// to 256 KiB (a small check allocates little, and the last chunk's unused rest stays small: 16 MiB
// chunks left a fifth of a run's bytes unused), and the per-state offsets and links in pages
// (paged.ts). A state never straddles two chunks, and a chunk holds the states of one id range:
// a state's chunk is found by binary search over the chunks' first ids, not stored per state.
//
// Compression: each word is zigzag-mapped (0, −1, 1, −2, … → 0, 1, 2, 3, …) and written 7 bits
// per byte, low bits first, the high bit of a byte saying another follows. The words of a state
// are mostly small (program counters, loop counters, flags, short lists), so most take one byte
// instead of four. The map is a bijection on word sequences, so equal states still have equal
// bytes and the visited table compares bytes.

import type { Collapser } from './collapse.ts';
import type { ByteBudget } from './growable.ts';
import { PagedArray } from './paged.ts';

/** Largest action index a state's link can hold (Uint16Array). */
export const MAX_ACTION_INDEX = 0xffff;
// small first allocations: collapse compression makes a few arenas per run, most of them small
const FIRST_CHUNK_BYTES = 1 << 10;
const MAX_CHUNK_BYTES = 1 << 18;
/** Most bytes one word takes. */
const MAX_WORD_BYTES = 5;

export class StateArena {
  count = 0;
  private readonly chunks: Uint8Array[] = [];
  private used = 0; // bytes used in the last chunk
  /** per chunk, the id of its first state: the chunks' id ranges follow each other */
  private readonly chunkFirstIds: number[] = [];
  private readonly starts: PagedArray<Uint32Array>; // state id → its first byte in its chunk
  // a state's length is where the next one starts (states fill a chunk in id order), or the chunk's end
  private readonly chunkEnds: number[] = [];
  private readonly parents: PagedArray<Int32Array>; // -1 for an initial state
  private readonly actionIndices: PagedArray<Uint16Array>; // index into actions(parent), or into initialStates()

  private readonly budget: ByteBudget;
  /** with collapse compression: what turns a state's words into the words stored, and back */
  private readonly collapser: Collapser | undefined;

  constructor(budget: ByteBudget, collapser?: Collapser) {
    this.budget = budget;
    this.collapser = collapser;
    this.starts = new PagedArray(Uint32Array, budget);
    this.parents = new PagedArray(Int32Array, budget);
    this.actionIndices = new PagedArray(Uint16Array, budget);
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
      last = this.budget.alloc(Uint8Array, Math.max(size, room));
      this.chunks.push(last);
      this.chunkEnds.push(0);
      this.chunkFirstIds.push(id);
      this.used = 0;
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
    this.starts.set(id, at);
    this.parents.set(id, parent);
    this.actionIndices.set(id, actionIndex);
    this.count = id + 1;
    return id;
  }

  /** The chunk that holds state `id`: the last whose first id is at most `id`. */
  private chunkOf(id: number): number {
    const firsts = this.chunkFirstIds;
    let lo = 0;
    let hi = firsts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (firsts[mid]! <= id) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Bytes of state `id` in chunk `chunk`. */
  private lengthOf(id: number, chunk: number): number {
    const next = chunk + 1 < this.chunkFirstIds.length ? this.chunkFirstIds[chunk + 1]! : this.count;
    const end = id + 1 < next ? this.starts.get(id + 1) : this.chunkEnds[chunk]!;
    return end - this.starts.get(id);
  }

  /** The words of state `id`, decoded into a new array (the caller may keep it). */
  view(id: number): Int32Array {
    const words = this.decodeInto(id, 'view');
    return (this.collapser ? this.collapser.expand(words, false) : words).slice();
  }

  /**
   * The words of state `id`, decoded into the arena's scratch: valid until the next call to
   * `expand` (the explorer's hot loop; a new array per state costs more than the decoding).
   */
  expand(id: number): Int32Array {
    const words = this.decodeInto(id, 'expand');
    return this.collapser ? this.collapser.expand(words, true) : words;
  }

  /**
   * State `id`'s stored words, decoded into one of two scratches: a trace decoded while the
   * explorer expands a state must not overwrite it.
   */
  private decodeInto(id: number, use: 'expand' | 'view'): Int32Array {
    const chunk = this.chunkOf(id);
    const length = this.lengthOf(id, chunk);
    let out = this.scratches[use];
    if (out.length < length) out = this.scratches[use] = new Int32Array(2 * length);
    return out.subarray(0, this.decode(id, chunk, length, out));
  }
  private readonly scratches = { expand: new Int32Array(64), view: new Int32Array(64) };

  /** Decode state `id`, `length` bytes in `chunk`, into `out` (room for one word per byte); returns the word count. */
  private decode(id: number, chunk: number, length: number, out: Int32Array): number {
    const bytes = this.chunks[chunk]!;
    const start = this.starts.get(id);
    const end = start + length;
    let n = 0;
    for (let i = start; i < end; ) {
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

  /**
   * True when state `id` has exactly these `stored` words (a duplicate successor is never
   * compressed): each word is encoded as `append` would and matched against the stored bytes as
   * it goes, so a mismatch stops at its first byte and nothing is decoded.
   */
  storedEquals(id: number, stateWords: Int32Array): boolean {
    const chunk = this.chunkOf(id);
    const length = this.lengthOf(id, chunk);
    // a state of n words takes n to 5n bytes
    if (length < stateWords.length || length > MAX_WORD_BYTES * stateWords.length) return false;
    const bytes = this.chunks[chunk]!;
    let j = this.starts.get(id);
    const end = j + length;
    for (let i = 0; i < stateWords.length; i++) {
      const x = stateWords[i]!;
      let z = ((x << 1) ^ (x >> 31)) >>> 0;
      while (z >= 0x80) {
        if (j >= end || bytes[j++] !== ((z & 0x7f) | 0x80)) return false;
        z >>>= 7;
      }
      if (j >= end || bytes[j++] !== z) return false;
    }
    return j === end;
  }

  parent(id: number): number {
    return this.parents.get(id);
  }

  actionIndex(id: number): number {
    return this.actionIndices.get(id);
  }
}
