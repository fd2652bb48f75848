// Collapse compression (SPIN's -DCOLLAPSE), lossless. A model may name blocks of its encoding that
// take few distinct values over a run (the barriers, the happens-before knowledge, the lists of
// work in flight): each distinct block is stored once, in a table of its own, and a state stores
// its other words followed by one table index per block. Interning is injective per block, so two
// states are equal exactly when their stored words are, and the visited table hashes and compares
// those. What it costs: one more lookup per changed block for every successor. The tables keep
// their blocks as plain words (block-store.ts): few distinct values, read back on every expansion.
import { BlockStore } from './block-store.ts';
import type { ByteBudget } from './growable.ts';
import type { WordBlock } from './model.ts';
import { VisitedTable } from './visited.ts';

interface BlockTable {
  readonly store: BlockStore;
  readonly visited: VisitedTable;
}

/** A scratch buffer and its views by length, each made once (a new view per call costs more than the copying it frames). */
class Scratch {
  words = new Int32Array(64);
  private views: (Int32Array | undefined)[] = [];

  /** The buffer, with room for n words (a larger one, and new views, when it has not). */
  room(n: number): Int32Array {
    if (this.words.length < n) {
      this.words = new Int32Array(2 * n);
      this.views = [];
    }
    return this.words;
  }

  /** Its first n words. */
  view(n: number): Int32Array {
    return (this.views[n] ??= this.words.subarray(0, n));
  }
}

export class Collapser {
  /** block i: words froms[i] up to tos[i] (−1: to the end) */
  private readonly froms: Int32Array;
  private readonly tos: Int32Array;
  private readonly tables: BlockTable[];
  private readonly stored = new Scratch();
  /** each block's words, copied out for its table's lookup */
  private readonly blockWords: Scratch[];
  /** two scratches, like the arena's: a trace viewed while the explorer expands a state must not overwrite it */
  private readonly expanded = new Scratch();
  private readonly viewed = new Scratch();
  private readonly ids: Int32Array;
  /** the block ids of the state expanded last (the parent of the successors compacted next), and its length (0: none yet) */
  private readonly parentIds: Int32Array;
  private parentWords = 0;

  constructor(budget: ByteBudget, blocks: readonly WordBlock[]) {
    blocks.forEach((b, i) => {
      const next = blocks[i + 1];
      if (b.from < 0 || (b.to !== undefined && b.to < b.from) || (next && (b.to === undefined || next.from < b.to))) {
        throw new Error('model: collapse blocks must be ordered, disjoint ranges, only the last open-ended');
      }
    });
    this.froms = Int32Array.from(blocks, (b) => b.from);
    this.tos = Int32Array.from(blocks, (b) => b.to ?? -1);
    this.ids = new Int32Array(blocks.length);
    this.parentIds = new Int32Array(blocks.length);
    this.blockWords = blocks.map(() => new Scratch());
    this.tables = blocks.map(() => {
      const store = new BlockStore(budget);
      return { store, visited: new VisitedTable(budget, store) };
    });
  }

  /** The words stored for a state: its words outside the blocks, then each block's index (a scratch, valid until the next call). */
  compact(words: Int32Array): Int32Array {
    const { froms, tos, ids } = this;
    const count = froms.length;
    const out = this.stored.room(words.length + count);
    let n = 0;
    let at = 0;
    for (let i = 0; i < count; i++) {
      const from = froms[i]!;
      const to = tos[i]! < 0 ? words.length : tos[i]!;
      if (to > words.length) throw new Error(`model: a state of ${words.length} words ends inside collapse block ${i}`);
      for (; at < from; at++) out[n++] = words[at]!;
      // a successor shares most blocks with its parent: equal words are the parent's block
      if (this.sameAsParent(words, from, to)) ids[i] = this.parentIds[i]!;
      else {
        const scratch = this.blockWords[i]!;
        const block = scratch.room(to - from);
        for (let k = from; k < to; k++) block[k - from] = words[k]!;
        const id = this.tables[i]!.visited.findOrAdd(scratch.view(to - from), -1, 0);
        ids[i] = id < 0 ? ~id : id;
      }
      at = to;
    }
    for (; at < words.length; at++) out[n++] = words[at]!;
    for (let i = 0; i < count; i++) out[n++] = ids[i]!;
    return this.stored.view(n);
  }

  /**
   * The state's words from what `compact` stored, into a scratch valid until the next call for
   * the same purpose: `parent` for the state the explorer expands (its successors are compacted
   * against it), otherwise for a view.
   */
  expand(stored: Int32Array, parent: boolean): Int32Array {
    const { froms } = this;
    const count = froms.length;
    const outside = stored.length - count;
    let length = outside;
    for (let i = 0; i < count; i++) length += this.tables[i]!.store.length(stored[outside + i]!);
    const scratch = parent ? this.expanded : this.viewed;
    const out = scratch.room(length);
    let n = 0;
    let from = 0;
    for (let i = 0; i < count; i++) {
      for (const start = froms[i]!; n < start; n++) out[n] = stored[from++]!;
      const store = this.tables[i]!.store;
      const id = stored[outside + i]!;
      store.copyInto(id, out, n);
      n += store.length(id);
    }
    while (from < outside) out[n++] = stored[from++]!;
    if (parent) {
      for (let i = 0; i < count; i++) this.parentIds[i] = stored[outside + i]!;
      this.parentWords = n;
    }
    return scratch.view(n);
  }

  /** Words [from, to) of `words` are those of the parent's block there. */
  private sameAsParent(words: Int32Array, from: number, to: number): boolean {
    if (this.parentWords === 0 || to > this.parentWords) return false;
    // a block that runs to the end of one state must run to the end of the other: the open-ended
    // last block of a longer parent has more words than [from, to)
    const endsState = to === words.length;
    const endsParent = to === this.parentWords;
    if (endsState !== endsParent) return false;
    const parent = this.expanded.words;
    for (let k = from; k < to; k++) if (words[k] !== parent[k]) return false;
    return true;
  }
}
