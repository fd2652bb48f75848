// Byte counts of tensor TMA copies. A `cp.async.bulk.tensor` copy moves one box of its tensor
// map, whose size lives in the CUtensorMap built on the host: not in the PTX. All copies
// through one map move the same bytes. In order:
//  1. `--tma-bytes N` sizes every tensor copy;
//  2. the ring stride: when a map's copies land at several addresses (the slots of a ring),
//     the smallest distance between them, bounded by the gap to the next thing placed in
//     shared memory (a barrier, another copy, a symbol boundary);
//  3. the barriers' expected bytes: per barrier, (expect_tx total − bytes of sized copies)
//     split evenly over its unsized copies, when every barrier of the map agrees;
//  4. the gap from the copy's destination to the next thing placed in shared memory.
// Rule 2 comes first on purpose: sizing from expect_tx would make a wrong expect_tx byte
// count (bug classes M3/M4) invisible. It applies as soon as a map fills two slots, i.e.
// from 2 iterations on; a single-iteration kernel is sized from its expect_tx.
import type { WarpEvent } from './events.ts';
import { UnsupportedError } from './errors.ts';
import type { SmemLayout } from './smem-layout.ts';

type TmaLoad = Extract<WarpEvent, { k: 'tma.load' }>;

function keyOf(e: TmaLoad): string {
  return e.map ?? `line ${e.loc.line}`;
}

export function sizeTensorCopies(warps: readonly (readonly WarpEvent[])[], layout: SmemLayout, tmaBytes: number | undefined): WarpEvent[][] {
  const unsized: TmaLoad[] = [];
  for (const w of warps) for (const e of w) if (e.k === 'tma.load' && e.bytes === undefined) unsized.push(e);
  if (unsized.length === 0) return warps.map((w) => [...w]);

  const sizes = new Map<string, number>();
  if (tmaBytes !== undefined) {
    for (const e of unsized) sizes.set(keyOf(e), tmaBytes);
  } else {
    const anchors = new Set<number>();
    for (const w of warps) {
      for (const e of w) {
        if (e.k === 'tma.load') {
          anchors.add(e.dst);
          anchors.add(e.bar);
          if (e.bytes !== undefined) anchors.add(e.dst + e.bytes);
        } else if (e.k === 'tma.store') anchors.add(e.src);
        else if ('bar' in e) anchors.add(e.bar);
      }
    }
    for (const s of layout.symbols) {
      anchors.add(s.start);
      if (Number.isFinite(s.size)) anchors.add(s.start + s.size);
    }
    const sorted = [...anchors].sort((a, b) => a - b);
    const nextAbove = (x: number): number | undefined => {
      let lo = 0;
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((sorted[mid] ?? 0) <= x) lo = mid + 1;
        else hi = mid;
      }
      return sorted[lo];
    };
    const gaps = new Map<string, number>();
    const dsts = new Map<string, Set<number>>();
    for (const e of unsized) {
      const key = keyOf(e);
      const set = dsts.get(key) ?? new Set<number>();
      set.add(e.dst);
      dsts.set(key, set);
      const next = nextAbove(e.dst);
      if (next === undefined) continue;
      const gap = next - e.dst;
      const prev = gaps.get(key);
      if (prev === undefined || gap < prev) gaps.set(key, gap);
    }
    // 2. ring stride
    for (const [key, set] of dsts) {
      const sorted = [...set].sort((a, b) => a - b);
      let stride = Infinity;
      for (let i = 1; i < sorted.length; i++) stride = Math.min(stride, (sorted[i] ?? 0) - (sorted[i - 1] ?? 0));
      if (Number.isFinite(stride)) sizes.set(key, Math.min(stride, gaps.get(key) ?? Infinity));
    }
    // 3. from expect_tx, barrier by barrier, until nothing changes
    for (let changed = true; changed; ) {
      changed = false;
      const expected = new Map<number, number>();
      for (const w of warps) {
        for (const e of w) {
          if (e.k === 'arrive.expect_tx') expected.set(e.bar, (expected.get(e.bar) ?? 0) + e.bytes * e.threads);
          else if (e.k === 'expect_tx') expected.set(e.bar, (expected.get(e.bar) ?? 0) + e.bytes);
        }
      }
      const perBar = new Map<number, { known: number; open: Map<string, number> }>();
      for (const w of warps) {
        for (const e of w) {
          if (e.k !== 'tma.load') continue;
          const slot = perBar.get(e.bar) ?? { known: 0, open: new Map<string, number>() };
          perBar.set(e.bar, slot);
          const bytes = e.bytes ?? sizes.get(keyOf(e));
          if (bytes !== undefined) slot.known += bytes * e.copies;
          else slot.open.set(keyOf(e), (slot.open.get(keyOf(e)) ?? 0) + e.copies);
        }
      }
      const proposals = new Map<string, Set<number>>();
      for (const [bar, { known, open }] of perBar) {
        const total = expected.get(bar);
        const copies = [...open.values()].reduce((a, b) => a + b, 0);
        if (total === undefined || copies === 0) continue;
        const each = (total - known) / copies;
        for (const key of open.keys()) {
          const set = proposals.get(key) ?? new Set<number>();
          set.add(Number.isInteger(each) && each > 0 ? each : -1);
          proposals.set(key, set);
        }
      }
      for (const [key, set] of proposals) {
        const [only] = set;
        if (set.size === 1 && only !== undefined && only > 0) {
          sizes.set(key, only);
          changed = true;
        }
      }
    }
    // 4. the gap
    for (const [key, gap] of gaps) if (!sizes.has(key)) sizes.set(key, gap);
  }
  return warps.map((w) =>
    w.map((e) => {
      if (e.k !== 'tma.load' || e.bytes !== undefined) return e;
      const bytes = sizes.get(keyOf(e));
      if (bytes === undefined) {
        throw new UnsupportedError(
          `cannot tell how many bytes the tensor copy at line ${e.loc.line} moves (its box size is in the host's tensor map); give --tma-bytes N`,
          e.loc,
        );
      }
      return { ...e, bytes };
    }),
  );
}
