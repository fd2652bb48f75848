// Byte counts of tensor TMA copies. A `cp.async.bulk.tensor` copy moves one box of its tensor
// map, whose size lives in the CUtensorMap built on the host: not in the PTX. In order:
//  1. `--tma-bytes N` sizes every tensor copy;
//  2. the shared-memory layout: a copy owns the bytes from its destination up to the next
//     thing placed in shared memory (another copy's destination, a barrier, a symbol
//     boundary); all copies through one tensor map get the smallest such gap;
//  3. the barrier's expected bytes: for a barrier whose copies leave one map unsized,
//     (expect_tx total − sized bytes) / number of unsized copies.
// Rule 2 comes before 3 on purpose: sizing from expect_tx would make a wrong expect_tx
// byte count (bug class M3/M4) invisible.
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
    for (const e of unsized) {
      const next = nextAbove(e.dst);
      if (next === undefined) continue;
      const gap = next - e.dst;
      const key = keyOf(e);
      const prev = sizes.get(key);
      if (prev === undefined || gap < prev) sizes.set(key, gap);
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
      for (const [bar, { known, open }] of perBar) {
        if (open.size !== 1) continue;
        const [key, copies] = [...open][0] ?? ['', 0];
        const total = expected.get(bar);
        if (total === undefined || copies === 0) continue;
        const each = (total - known) / copies;
        if (Number.isInteger(each) && each > 0) {
          sizes.set(key, each);
          changed = true;
        }
      }
    }
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
