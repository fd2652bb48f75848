import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StateArena } from '../../checker/arena.ts';
import { stateHash } from '../../checker/state-hash.ts';
import { ByteBudget } from '../../checker/growable.ts';
import { NOT_ADDED, VisitedTable } from '../../checker/visited.ts';
import { keyOf } from './naive.ts';

describe('stateHash', () => {
  it('is deterministic and tells apart lengths and word orders', () => {
    const h = (words: number[]) => stateHash(Int32Array.from(words));
    expect(h([1, 2, 3])).toBe(h([1, 2, 3]));
    const distinct = [[], [0], [0, 0], [1, 2], [2, 1], [-1], [0x7fffffff]].map(h);
    expect(new Set(distinct).size).toBe(distinct.length);
  });

  it('spreads 200,000 small states over 32 bits and over the low bits that pick a slot', () => {
    const hashes = Array.from({ length: 200_000 }, (_, i) => stateHash(Int32Array.of(i % 7, i >> 3, i & 5)));
    const states = new Set(Array.from({ length: 200_000 }, (_, i) => `${i % 7},${i >> 3},${i & 5}`)).size;
    // a random 32-bit function gives about n²/2³³ ≈ 1 collision here; a weak mix gives thousands
    expect(states - new Set(hashes).size).toBeLessThan(20);
    // the home slots of a 2^18-slot table: a random function fills about 1 − e^(−n/2^18) of them
    const homes = new Set(hashes.map((x) => x & (2 ** 18 - 1))).size;
    expect(homes / 2 ** 18).toBeGreaterThan(0.5);
  });
});

describe('visited table + arena', () => {
  it('agrees with a Map on random variable-length states, through many growths', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 4 }), { maxLength: 3000 }), (states) => {
        const budget = new ByteBudget(Number.POSITIVE_INFINITY);
        const arena = new StateArena(budget);
        const table = new VisitedTable(budget, arena);
        const ids = new Map<string, number>();
        for (const [i, words] of states.entries()) {
          const w = Int32Array.from(words);
          const got = table.findOrAdd(w, i - 1, i % 7);
          const known = ids.get(keyOf(w));
          if (known === undefined) {
            expect(got).toBe(ids.size);
            ids.set(keyOf(w), got);
          } else {
            expect(got).toBe(~known);
          }
        }
        expect(arena.count).toBe(ids.size);
        for (const [key, id] of ids) expect(keyOf(arena.view(id))).toBe(key);
      }),
      { numRuns: 30 },
    );
  });

  it('finds every state again after many growths (each growth puts the states in again from their kept hashes)', () => {
    const budget = new ByteBudget(Number.POSITIVE_INFINITY);
    const arena = new StateArena(budget);
    const table = new VisitedTable(budget, arena);
    const n = 60_000; // the table grows from 64 to 2^17 slots
    const state = (i: number): Int32Array => Int32Array.of(i % 97, Math.floor(i / 97), -(i % 5));
    let wrong = 0;
    for (let i = 0; i < n; i++) {
      if (table.findOrAdd(state(i), i - 1, 0) !== i) wrong++;
      // a state added earlier, before some of the growths, is found, not added again
      const j = (i * 7919) % (i + 1);
      if (table.findOrAdd(state(j), 0, 0) !== ~j) wrong++;
    }
    expect(wrong).toBe(0);
    expect(arena.count).toBe(n);
    // one word per slot (2^17 slots of 4 bytes, not 8) and one hash word per state, in pages of 4,096
    const arenaAlone = new ByteBudget(Number.POSITIVE_INFINITY);
    const same = new StateArena(arenaAlone);
    for (let i = 0; i < n; i++) same.append(state(i), i - 1, 0);
    expect(budget.used - arenaAlone.used).toBe(2 ** 17 * 4 + Math.ceil(n / 4096) * 4096 * 4);
  });

  it('compresses words to bytes losslessly: any int32 sequence, extremes included, reads back equal and only equal words match', () => {
    const word = fc.oneof(fc.integer({ min: -0x80000000, max: 0x7fffffff }), fc.constantFrom(-0x80000000, 0x7fffffff, -1, 0, 1, 63, 64, -64, -65, 0x3fffffff, -0x40000000));
    fc.assert(
      fc.property(fc.array(fc.array(word, { maxLength: 40 }), { minLength: 1, maxLength: 30 }), (lists) => {
        const arena = new StateArena(new ByteBudget(Number.POSITIVE_INFINITY));
        const states = lists.map((l) => Int32Array.from(l));
        states.forEach((w, i) => arena.append(w, i - 1, 0));
        states.forEach((w, i) => {
          expect(Array.from(arena.view(i))).toEqual(Array.from(w));
          states.forEach((other, j) => expect(arena.equals(i, other)).toBe(keyOf(other) === keyOf(states[i]!) || i === j));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('stores a state of small words in about a byte per word', () => {
    const budget = new ByteBudget(Number.POSITIVE_INFINITY);
    const small = new StateArena(budget);
    const before = budget.used;
    for (let i = 0; i < 10_000; i++) small.append(Int32Array.from({ length: 50 }, (_, j) => (i + j) % 60), i - 1, 0);
    // 50 bytes of words, plus 18 bytes of links and offsets and the chunks' growth slack
    expect((budget.used - before) / 10_000).toBeLessThan(50 + 30);
  });

  it('stores states of any size in its chunks: larger than a chunk, and filling chunks unevenly', () => {
    const budget = new ByteBudget(Number.POSITIVE_INFINITY);
    const arena = new StateArena(budget);
    const sizes = [1, 1500, 3, 700, 700, 5000, 2, 9000, 1023, 1025, 4096];
    const states = sizes.map((n, i) => Int32Array.from({ length: n }, (_, j) => i * 100_000 + j));
    states.forEach((w, i) => expect(arena.append(w, i - 1, i)).toBe(i));
    states.forEach((w, i) => {
      expect(arena.view(i)).toEqual(w);
      expect(arena.equals(i, w)).toBe(true);
      expect(arena.equals(i, w.subarray(1))).toBe(false);
    });
    // no copy on growth: what the chunks hold is about what was stored (each chunk wastes at most one state's room)
    const stored = sizes.reduce((a, b) => a + b, 0);
    expect(budget.used).toBeLessThan(4 * (3 * stored) + 20 * 256);
  });

  it('does not store a new state when it may not, but still finds old ones', () => {
    const budget = new ByteBudget(Number.POSITIVE_INFINITY);
    const arena = new StateArena(budget);
    const table = new VisitedTable(budget, arena);
    expect(table.findOrAdd(Int32Array.of(1), -1, 0)).toBe(0);
    expect(table.findOrAdd(Int32Array.of(2), -1, 0, false)).toBe(NOT_ADDED);
    expect(table.findOrAdd(Int32Array.of(1), -1, 0, false)).toBe(~0);
    expect(arena.count).toBe(1);
  });

  it('keeps parent links and action indices', () => {
    const budget = new ByteBudget(Number.POSITIVE_INFINITY);
    const arena = new StateArena(budget);
    const table = new VisitedTable(budget, arena);
    for (let i = 0; i < 5000; i++) table.findOrAdd(Int32Array.of(i, i * 3), i - 1, i % 65536);
    expect(arena.parent(0)).toBe(-1);
    expect(arena.parent(4321)).toBe(4320);
    expect(arena.actionIndex(4321)).toBe(4321);
    expect(budget.used).toBeGreaterThan(5000 * 8);
  });
});
