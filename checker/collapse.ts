// Collapse compression (SPIN's -DCOLLAPSE), lossless. A model may name blocks of its encoding that
// take few distinct values over a run (the barriers, the happens-before knowledge, the lists of
// work in flight): each distinct block is stored once, in a table of its own, and a state stores
// its other words followed by one table index per block. Interning is injective per block, so two
// states are equal exactly when their stored words are, and the visited table hashes and compares
// those. What it costs: one more lookup per block for every successor.
import { StateArena } from './arena.ts';
import type { ByteBudget } from './growable.ts';
import type { WordBlock } from './model.ts';
import { VisitedTable } from './visited.ts';

interface BlockTable {
  readonly arena: StateArena;
  readonly visited: VisitedTable;
}

export class Collapser {
  private readonly blocks: readonly WordBlock[];
  private readonly tables: BlockTable[];
  private stored = new Int32Array(64);
  /** two scratches, like the arena's: a trace viewed while the explorer expands a state must not overwrite it */
  private expanded = new Int32Array(64);
  private viewed = new Int32Array(64);
  private readonly ids: Int32Array;
  /** the block ids of the state expanded last (the parent of the successors compacted next), and whether there is one */
  private readonly parentIds: Int32Array;
  private parentWords = 0;
  private readonly parts: Int32Array[] = [];

  constructor(budget: ByteBudget, blocks: readonly WordBlock[]) {
    blocks.forEach((b, i) => {
      const next = blocks[i + 1];
      if (b.from < 0 || (b.to !== undefined && b.to < b.from) || (next && (b.to === undefined || next.from < b.to))) {
        throw new Error('model: collapse blocks must be ordered, disjoint ranges, only the last open-ended');
      }
    });
    this.blocks = blocks;
    this.ids = new Int32Array(blocks.length);
    this.parentIds = new Int32Array(blocks.length);
    this.tables = blocks.map(() => {
      const arena = new StateArena(budget);
      return { arena, visited: new VisitedTable(budget, arena) };
    });
  }

  /** The words stored for a state: its words outside the blocks, then each block's index (a scratch, valid until the next call). */
  compact(words: Int32Array): Int32Array {
    const blocks = this.blocks;
    if (this.stored.length < words.length + blocks.length) this.stored = new Int32Array(2 * (words.length + blocks.length));
    const out = this.stored;
    const ids = this.ids;
    let n = 0;
    let at = 0;
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i]!;
      const to = b.to ?? words.length;
      if (to > words.length) throw new Error(`model: a state of ${words.length} words ends inside collapse block ${i}`);
      for (; at < b.from; at++) out[n++] = words[at]!;
      // a successor shares most blocks with its parent: equal words are the parent's block
      if (this.sameAsParent(words, b.from, to)) ids[i] = this.parentIds[i]!;
      else {
        const id = this.tables[i]!.visited.findOrAdd(words.subarray(b.from, to), -1, 0);
        ids[i] = id < 0 ? ~id : id;
      }
      at = to;
    }
    for (; at < words.length; at++) out[n++] = words[at]!;
    for (let i = 0; i < blocks.length; i++) out[n++] = ids[i]!;
    return out.subarray(0, n);
  }

  /**
   * The state's words from what `compact` stored, into a scratch valid until the next call for
   * the same purpose: `parent` for the state the explorer expands (its successors are compacted
   * against it), otherwise for a view.
   */
  expand(stored: Int32Array, parent: boolean): Int32Array {
    const blocks = this.blocks;
    const outside = stored.length - blocks.length;
    let length = outside;
    const parts = this.parts;
    for (let i = 0; i < blocks.length; i++) {
      parts[i] = this.tables[i]!.arena.expand(stored[outside + i]!); // each table's own scratch
      length += parts[i]!.length;
    }
    let out = parent ? this.expanded : this.viewed;
    if (out.length < length) {
      out = new Int32Array(2 * length);
      if (parent) this.expanded = out;
      else this.viewed = out;
    }
    let n = 0;
    let from = 0;
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i]!;
      for (; n < b.from; n++) out[n] = stored[from++]!;
      const words = parts[i]!;
      out.set(words, n);
      n += words.length;
    }
    while (from < outside) out[n++] = stored[from++]!;
    if (parent) {
      for (let i = 0; i < blocks.length; i++) this.parentIds[i] = stored[outside + i]!;
      this.parentWords = n;
    }
    return out.subarray(0, n);
  }

  /** Words [from, to) of `words` are those of the parent's block there. */
  private sameAsParent(words: Int32Array, from: number, to: number): boolean {
    if (this.parentWords === 0 || (to === words.length) !== (to === this.parentWords) || to > this.parentWords) return false;
    const parent = this.expanded;
    for (let k = from; k < to; k++) if (words[k] !== parent[k]) return false;
    return true;
  }
}
