// The distinct values of one collapse block (collapse.ts), stored as plain words back to back.
// A block takes few distinct values over a run (hundreds to tens of thousands), so its table is
// small and storing words uncompressed costs little memory; in exchange a block is read back as
// a view with no decoding (every expanded state reads each of its blocks) and a lookup compares
// words directly instead of re-encoding them (most successors look up some changed block). The
// words are 16-bit while every word fits (slots, counts, value tags: half the bytes), 32-bit from
// the first that does not.
import type { ByteBudget } from './growable.ts';
import { grow } from './growable.ts';
import { PagedArray } from './paged.ts';

export class BlockStore {
  count = 0;
  private words: Int16Array | Int32Array;
  private used = 0;
  /** id → its first word; a block ends where the next begins (or at `used`) */
  private readonly starts: PagedArray<Uint32Array>;
  private readonly budget: ByteBudget;

  constructor(budget: ByteBudget) {
    this.budget = budget;
    this.words = budget.alloc(Int16Array, 64);
    this.starts = new PagedArray(Uint32Array, budget);
  }

  /** The words a visited table hashes and compares: the block's own. */
  stored(words: Int32Array): Int32Array {
    return words;
  }

  append(words: Int32Array): number {
    const id = this.count;
    if (this.words instanceof Int16Array && !fits16(words)) {
      const wide = this.budget.alloc(Int32Array, this.words.length);
      wide.set(this.words);
      this.budget.release(this.words);
      this.words = wide;
    }
    if (this.used + words.length > this.words.length) this.words = grow(this.words, this.used + words.length, this.budget);
    this.words.set(words, this.used);
    this.starts.set(id, this.used);
    this.used += words.length;
    this.count = id + 1;
    return id;
  }

  private end(id: number): number {
    return id + 1 < this.count ? this.starts.get(id + 1) : this.used;
  }

  storedEquals(id: number, words: Int32Array): boolean {
    const start = this.starts.get(id);
    if (this.end(id) - start !== words.length) return false;
    const all = this.words;
    for (let i = 0; i < words.length; i++) if (all[start + i] !== words[i]) return false;
    return true;
  }

  /** How many words block `id` has. */
  length(id: number): number {
    return this.end(id) - this.starts.get(id);
  }

  /** Copy block `id`'s words into `out` from index `at` (room checked by the caller). */
  copyInto(id: number, out: Int32Array, at: number): void {
    const start = this.starts.get(id);
    const end = this.end(id);
    const words = this.words;
    for (let i = start; i < end; i++) out[at + i - start] = words[i]!;
  }
}

function fits16(words: Int32Array): boolean {
  for (let i = 0; i < words.length; i++) if (words[i]! !== (words[i]! << 16) >> 16) return false;
  return true;
}
