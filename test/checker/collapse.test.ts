// Collapse compression is lossless: with any block layout, the visited table with a collapser
// gives the same ids as a Map on the words, every state reads back as it was stored, and a view
// taken while the explorer holds an expanded state leaves that state intact. A collapser that
// gives a successor its parent's blocks without comparing them (a seeded bug) fails the same test.
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StateArena } from '../../checker/arena.ts';
import { Collapser } from '../../checker/collapse.ts';
import { ByteBudget } from '../../checker/growable.ts';
import type { WordBlock } from '../../checker/model.ts';
import { VisitedTable } from '../../checker/visited.ts';
import { keyOf } from './naive.ts';

type MakeCollapser = (budget: ByteBudget, blocks: readonly WordBlock[]) => Collapser;

/** A layout of `fixed` words: ordered, disjoint blocks, the last one open-ended when `tail`. */
const arbLayout = fc.record({ fixed: fc.integer({ min: 0, max: 8 }), cuts: fc.array(fc.integer({ min: 0, max: 8 }), { maxLength: 6 }), tail: fc.boolean() }).map(({ fixed, cuts, tail }) => {
  const points = [...new Set(cuts.filter((c) => c <= fixed))].sort((a, b) => a - b);
  const blocks: WordBlock[] = [];
  for (let i = 0; i + 1 < points.length; i += 2) blocks.push({ from: points[i]!, to: points[i + 1]! });
  if (tail) blocks.push({ from: fixed });
  return { fixed, blocks };
});

/**
 * States of `fixed` small words (few distinct values, as blocks are) and a tail of 0..3 words;
 * `wide`: now and then a word past 16 bits, so a block table widens its words (block-store.ts).
 */
const arbStates = (fixed: number, wide = false) => {
  const word = wide ? fc.oneof({ weight: 20, arbitrary: fc.integer({ min: -2, max: 2 }) }, { weight: 1, arbitrary: fc.constantFrom(32767, 32768, -32769, 70000, 2 ** 31 - 1, -(2 ** 31)) }) : fc.integer({ min: -2, max: 2 });
  return fc.array(fc.tuple(fc.array(word, { minLength: fixed, maxLength: fixed }), fc.array(word, { maxLength: 3 })), { minLength: 1, maxLength: 400 });
};

function collapsedTable(blocks: readonly WordBlock[], make: MakeCollapser): { arena: StateArena; table: VisitedTable } {
  const budget = new ByteBudget(Number.POSITIVE_INFINITY);
  const arena = new StateArena(budget, make(budget, blocks));
  return { arena, table: new VisitedTable(budget, arena) };
}

const correct: MakeCollapser = (budget, blocks) => new Collapser(budget, blocks);

/** Ids as a Map on the words gives them, and every state read back, with parents expanded between lookups as the explorer does. */
const agreesWithMap = (make: MakeCollapser, wide = false) =>
  fc.property(
    arbLayout.chain((layout) => fc.tuple(fc.constant(layout), arbStates(layout.fixed, wide), fc.array(fc.nat(), { minLength: 400, maxLength: 400 }))),
    ([{ blocks }, states, parents]) => {
      const { arena, table } = collapsedTable(blocks, make);
      const ids = new Map<string, number>();
      states.forEach(([fixed, tail], i) => {
        // the explorer compacts each successor right after expanding its parent
        if (arena.count > 0) {
          const parent = parents[i]! % arena.count;
          expect(keyOf(arena.expand(parent))).toBe(keyOf(arena.view(parent)));
        }
        const w = Int32Array.from([...fixed, ...tail]);
        const got = table.findOrAdd(w, -1, 0);
        const known = ids.get(keyOf(w));
        if (known === undefined) {
          expect(got).toBe(ids.size);
          ids.set(keyOf(w), got);
        } else expect(got).toBe(~known);
      });
      for (const [key, id] of ids) {
        expect(keyOf(arena.view(id))).toBe(key);
        expect(arena.equals(id, arena.view(id))).toBe(true);
      }
    },
  );

/** The seeded bug: a successor takes its parent's block ids without comparing the blocks. */
class Careless extends Collapser {
  private parentStored: Int32Array | undefined;
  private readonly blockCount: number;
  constructor(budget: ByteBudget, blocks: readonly WordBlock[]) {
    super(budget, blocks);
    this.blockCount = blocks.length;
  }
  override compact(words: Int32Array): Int32Array {
    const stored = super.compact(words);
    const parent = this.parentStored;
    if (parent && parent.length === stored.length) for (let i = 1; i <= this.blockCount; i++) stored[stored.length - i] = parent[parent.length - i]!;
    return stored;
  }
  override expand(stored: Int32Array, parent: boolean): Int32Array {
    if (parent) this.parentStored = stored.slice();
    return super.expand(stored, parent);
  }
}

describe('collapse compression', () => {
  it('agrees with a Map on the words, and reads every state back, with parents expanded between lookups as the explorer does', () => {
    fc.assert(agreesWithMap(correct), { numRuns: 200 });
  });

  it('agrees with the Map too when words past 16 bits appear mid-run and a block table widens', () => {
    fc.assert(agreesWithMap(correct, true), { numRuns: 200 });
  });

  it("the comparison bites: a collapser that gives a successor its parent's blocks unchecked fails it", () => {
    expect(() => fc.assert(agreesWithMap((budget, blocks) => new Careless(budget, blocks)), { numRuns: 200 })).toThrow();
  });

  it('a view does not overwrite the state the explorer expanded', () => {
    const { arena, table } = collapsedTable([{ from: 1, to: 3 }, { from: 4 }], correct);
    table.findOrAdd(Int32Array.of(1, 2, 3, 4, 5, 6), -1, 0);
    table.findOrAdd(Int32Array.of(7, 8, 9, 10, 11), 0, 0);
    const held = arena.expand(0);
    arena.view(1);
    expect(Array.from(held)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('stores a block once: states that share their blocks cost little more than their other words', () => {
    const run = (blocks: readonly WordBlock[]): number => {
      const budget = new ByteBudget(Number.POSITIVE_INFINITY);
      const arena = new StateArena(budget, blocks.length > 0 ? new Collapser(budget, blocks) : undefined);
      const table = new VisitedTable(budget, arena);
      // a counter, then 40 words that take 4 values in turn (like a barrier block)
      for (let i = 0; i < 20_000; i++) table.findOrAdd(Int32Array.from({ length: 41 }, (_, j) => (j === 0 ? i : 100 + (i % 4) * 7 + j)), -1, 0);
      return budget.used / 20_000;
    };
    const plain = run([]);
    const collapsed = run([{ from: 1 }]);
    expect(plain).toBeGreaterThan(80);
    expect(collapsed).toBeLessThan(plain / 3);
  });
});
