// Byte counts of tensor TMA copies. A `cp.async.bulk.tensor` copy moves one box of its tensor
// map, whose size lives in the CUtensorMap built on the host: not in the PTX. All copies
// through one map move the same bytes. In order:
//  1. given: `--tma-bytes N` (every map) or `--tma-box MAP=ROWSxCOLSxBYTES` (one map), or the
//     compiler's metadata (Triton's tensor descriptors);
//     the descriptor: a map the kernel builds itself with `tensormap.replace` of its rank, box
//     dimensions and element type (descriptors.ts; Triton's device-side descriptors);
//  2. the footprint: the consumers' reads of the destination (wgmma descriptors, loads, TMA
//     stores of bytes no thread wrote), from the copy's destination up to the next barrier,
//     variable boundary or destination of another copy of its map or on a barrier its map signals;
//  3. the ring stride: when a map's copies land at several addresses (the slots of a ring),
//     the smallest distance between them, bounded the same way (maps that take turns through
//     one ring: the ring's step, which also bounds their footprints);
//  4. the barriers' expected bytes: per barrier, (expect_tx total − bytes of sized copies)
//     split evenly over its unsized copies, when every barrier of the map agrees;
//  5. the gap from the copy's destination to the next thing placed in shared memory.
// Sizing from expect_tx comes late on purpose: it would make a wrong expect_tx byte count (bug
// classes M3/M4) invisible. Every size is reported with how it was found (LiftFacts).
import { mergeRanges, mmaReads } from './footprint.ts';
import type { WarpEvent } from './events.ts';
import { UnsupportedError } from './errors.ts';
import type { SmemLayout } from './smem-layout.ts';

type TmaLoad = Extract<WarpEvent, { k: 'tma.load' }>;
type TmaStore = Extract<WarpEvent, { k: 'tma.store' }>;

/** How a box size was found, strongest evidence first: the order the rules below are tried in. */
export const SIZE_SOURCES = ['given', 'descriptor', 'footprint', 'ring stride', 'expect_tx', 'gap'] as const;
export type SizeSource = (typeof SIZE_SOURCES)[number];

export interface SizedMap {
  /** the tensor map (`params+64`, a param name), or `line N` for a copy with no map identity */
  readonly map: string;
  readonly bytes: number;
  readonly how: SizeSource;
  readonly copies: number;
  /** the sweep point whose run gave the evidence, when not this one (shared-boxes.ts) */
  readonly at?: string;
}

export interface SizingOptions {
  readonly all?: number;
  /** bytes by map: the map's key (`NAME+OFFSET` or `NAME`) */
  readonly boxes?: ReadonlyMap<string, number>;
  /** bytes by map key, of the descriptors the kernel wrote itself */
  readonly written?: ReadonlyMap<string, number>;
}

function keyOf(e: TmaLoad | TmaStore): string {
  return e.map ?? `line ${e.loc.line}`;
}

/** Generic writes, merged: what a tensor store reads is what the threads staged for it. */
function writeRanges(warps: readonly (readonly WarpEvent[])[]): [number, number][] {
  const out: [number, number][] = [];
  for (const w of warps) for (const e of w) if (e.k === 'write') out.push([e.lo, e.hi]);
  return mergeRanges(out);
}

/**
 * The byte ranges consumers read, by kind of reader, each merged on its own: wgmma A operands,
 * wgmma B operands, generic loads, sized TMA stores. Kinds are kept apart because an epilogue's
 * staging buffer may alias a mainloop stage (a union): merged, its stores would stretch the
 * stage's footprint; and A and B tiles placed back to back (fast.cu M3's `struct { A[]; B[]; }`)
 * would make one operand's copy as large as both.
 */
function readRanges(warps: readonly (readonly WarpEvent[])[], layout: SmemLayout): [number, number][][] {
  // a store of bytes the threads staged reads what they wrote, not what a copy brought
  const staged = writeRanges(warps);
  const isStaged = (lo: number, hi: number): boolean => staged.some(([a, b]) => a < hi && lo < b);
  const mmaA: [number, number][] = [];
  const mmaB: [number, number][] = [];
  const loads: [number, number][] = [];
  const stores: [number, number][] = [];
  for (const w of warps) {
    for (const e of w) {
      if (e.k === 'mma') {
        if (e.descs) {
          mmaA.push(...mmaReads(e, layout, 'a'));
          mmaB.push(...mmaReads(e, layout, 'b'));
        }
      } else if (e.k === 'read') loads.push([e.lo, e.hi]);
      else if (e.k === 'tma.store' && e.bytes !== undefined && !isStaged(e.src, e.src + e.bytes)) stores.push([e.src, e.src + e.bytes]);
    }
  }
  return [mergeRanges(mmaA), mergeRanges(mmaB), mergeRanges(loads), mergeRanges(stores)];
}

/**
 * For maps whose copies land at the slots of one ring in turn: the ring's stride, by map. Maps
 * with the same stride whose destinations together form one arithmetic progression with a smaller
 * step (each map's own slots interleaved with the others') are such a ring.
 */
function interleavedStrides(dsts: ReadonlyMap<string, ReadonlySet<number>>, strides: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  // the step of these destinations when they form one arithmetic progression finer than `stride`
  const stepOf = (keys: readonly string[], stride: number): number | undefined => {
    const all = keys.flatMap((k) => [...(dsts.get(k) ?? [])]).sort((x, y) => x - y);
    const steps = new Set(all.slice(1).map((x, i) => x - (all[i] ?? 0)));
    const step = [...steps][0];
    return steps.size === 1 && step !== undefined && step > 0 && step < stride && stride % step === 0 ? step : undefined;
  };
  const keys = [...strides.keys()];
  for (const first of keys) {
    const stride = strides.get(first) ?? 0;
    if (out.has(first)) continue;
    const ring = [first];
    for (const k of keys) if (k !== first && !out.has(k) && strides.get(k) === stride && stepOf([...ring, k], stride) !== undefined) ring.push(k);
    const step = ring.length > 1 ? stepOf(ring, stride) : undefined;
    if (step !== undefined) for (const k of ring) out.set(k, step);
  }
  return out;
}

type Sizes = Map<string, { bytes: number; how: SizeSource }>;

const barKey = (cta: number, bar: number): string => `${cta}:${bar}`;

/**
 * Of one barrier: the bytes expect_tx announces (when any), the bytes of its copies sized so far,
 * and its unsized copies by map.
 */
interface TxBalance {
  expected?: number;
  known: number;
  readonly open: Map<string, number>;
}

/** Each barrier's balance, with copies sized by `sizes` (or their own). */
function txBalance(warps: readonly (readonly WarpEvent[])[], sizes: Sizes): Map<string, TxBalance> {
  const out = new Map<string, TxBalance>();
  const at = (k: string): TxBalance => {
    const slot = out.get(k) ?? { known: 0, open: new Map<string, number>() };
    out.set(k, slot);
    return slot;
  };
  for (const w of warps) {
    for (const e of w) {
      if (e.k === 'arrive.expect_tx' || e.k === 'expect_tx') {
        const slot = at(barKey(e.cta, e.bar));
        slot.expected = (slot.expected ?? 0) + (e.k === 'arrive.expect_tx' ? e.bytes * e.threads : e.bytes);
      } else if (e.k === 'tma.load') {
        for (const c of e.ctas ?? [e.cta]) {
          const slot = at(barKey(c, e.bar));
          const bytes = e.bytes ?? sizes.get(keyOf(e))?.bytes;
          if (bytes !== undefined) slot.known += bytes * e.copies;
          else slot.open.set(keyOf(e), (slot.open.get(keyOf(e)) ?? 0) + e.copies);
        }
      }
    }
  }
  return out;
}

/**
 * The barriers whose copies, sized by `sizes`, bring exactly the bytes expect_tx announced, and
 * whether any barrier with copies and an expect_tx is left unbalanced.
 */
function balancedBarriers(warps: readonly (readonly WarpEvent[])[], sizes: Sizes): { balanced: Set<string>; unbalanced: boolean } {
  const balanced = new Set<string>();
  let unbalanced = false;
  for (const [k, b] of txBalance(warps, sizes)) {
    if (b.open.size === 0 && b.expected === b.known && b.known > 0) balanced.add(k);
    else if (b.expected !== undefined && (b.known > 0 || b.open.size > 0)) unbalanced = true;
  }
  return { balanced, unbalanced };
}

export function sizeTensorCopies(warps: readonly (readonly WarpEvent[])[], layout: SmemLayout, options: SizingOptions = {}): { warps: WarpEvent[][]; maps: SizedMap[] } {
  const unsized: TmaLoad[] = [];
  for (const w of warps) for (const e of w) if (e.k === 'tma.load' && e.bytes === undefined) unsized.push(e);
  const stores = sizeStores(warps, options);
  if (unsized.length === 0) return { warps: stores, maps: [] };
  warps = stores;

  // Footprints bounded by every other copy's destination are taken only where they settle barriers
  // that the usual bounds leave unbalanced and unsettle none (a wrong expect_tx, M3/M4, settles
  // under neither and stays visible).
  // The reads do not depend on the reading; the strict one is tried only where the usual one
  // leaves a barrier unbalanced.
  const reads = readRanges(warps, layout);
  const usual = sizeMaps(warps, unsized, layout, reads, options, false);
  const before = balancedBarriers(warps, usual.sizes);
  let { sizes, room } = usual;
  if (before.unbalanced) {
    const strict = sizeMaps(warps, unsized, layout, reads, options, true);
    const after = balancedBarriers(warps, strict.sizes).balanced;
    if (after.size > before.balanced.size && [...before.balanced].every((k) => after.has(k))) ({ sizes, room } = strict);
  }
  sizes = partialReaders(warps, sizes, room);

  const counts = new Map<string, number>();
  const out = warps.map((w: readonly WarpEvent[]) =>
    w.map((e) => {
      if (e.k !== 'tma.load' || e.bytes !== undefined) return e;
      const key = keyOf(e);
      const size = sizes.get(key);
      if (size === undefined) {
        throw new UnsupportedError(
          `cannot tell how many bytes the tensor copy at line ${e.loc.line} moves (its box size is in the host's tensor map); give --tma-box ${key}=ROWSxCOLSxBYTES or --tma-bytes N`,
          e.loc,
        );
      }
      counts.set(key, (counts.get(key) ?? 0) + e.copies);
      return { ...e, bytes: size.bytes };
    }),
  );
  // a tensor store through a map that also loads moves the same box: the whole tile, not only
  // the bytes the threads staged in it (the Programming Guide's 2-D example changes one row of 8)
  for (const w of out) {
    w.forEach((e, i) => {
      const size = e.k === 'tma.store' && e.map !== undefined ? sizes.get(e.map) : undefined;
      if (e.k === 'tma.store' && size !== undefined && counts.has(keyOf(e))) w[i] = { ...e, bytes: size.bytes };
    });
  }
  const maps = [...sizes].filter(([key]) => counts.has(key)).map(([map, s]) => ({ map, bytes: s.bytes, how: s.how, copies: counts.get(map) ?? 0 }));
  return { warps: out, maps };
}

/**
 * A footprint is what the consumers read, so it bounds the box from below only: the Programming
 * Guide's 2-D TMA example loads an 8×32 tile into a buffer of exactly that size and reads one row
 * of it. A map sized by its footprint is sized from expect_tx instead where the footprint leaves
 * its barriers short of what expect_tx announces and those bytes fill the copy's room exactly
 * (up to the end of its variable, the next barrier or the next copy): the layout and expect_tx
 * then agree against the footprint. A wrong expect_tx (M3, M4) agrees with neither the footprint
 * nor the room, and stays visible.
 */
function partialReaders(warps: readonly (readonly WarpEvent[])[], sizes: Sizes, room: ReadonlyMap<string, number>): Sizes {
  let out = sizes;
  for (const [key, size] of sizes) {
    if (size.how !== 'footprint') continue;
    const without: Sizes = new Map(out);
    without.delete(key);
    const offers = new Set<number>();
    for (const { expected, known, open } of txBalance(warps, without).values()) {
      const copies = open.get(key);
      if (copies === undefined) continue;
      offers.add(expected !== undefined && open.size === 1 ? (expected - known) / copies : -1);
    }
    const [only] = offers;
    if (offers.size === 1 && only !== undefined && Number.isInteger(only) && only > size.bytes && only === room.get(key)) {
      out = new Map(out).set(key, { bytes: only, how: 'expect_tx' });
    }
  }
  return out;
}

/** Box sizes by map, by the rules of the header; `strict` bounds footprints by every other copy. Also each map's room: the least space any of its copies has below its hard bound. */
function sizeMaps(
  warps: readonly (readonly WarpEvent[])[],
  unsized: readonly TmaLoad[],
  layout: SmemLayout,
  reads: readonly (readonly [number, number][])[],
  options: SizingOptions,
  strict: boolean,
): { sizes: Sizes; room: Map<string, number> } {
  const sizes: Sizes = new Map();
  const set = (key: string, bytes: number, how: SizeSource): void => {
    if (!sizes.has(key) && Number.isInteger(bytes) && bytes > 0) sizes.set(key, { bytes, how });
  };
  for (const e of unsized) {
    const key = keyOf(e);
    const box = options.boxes?.get(key) ?? options.boxes?.get(key.replace(/\+0$/, ''));
    const written = options.written?.get(key);
    if (box !== undefined) set(key, box, 'given');
    else if (options.all !== undefined) set(key, options.all, 'given');
    else if (written !== undefined) set(key, written, 'descriptor');
  }

  // what bounds a copy: the next thing placed in shared memory above its destination
  const anchors = new Set<number>();
  for (const w of warps) {
    for (const e of w) {
      if (e.k === 'tma.load') {
        anchors.add(e.dst);
        if (e.bytes !== undefined) anchors.add(e.dst + e.bytes);
      } else if (e.k === 'tma.store') anchors.add(e.src);
      if ('bar' in e) anchors.add(e.bar);
    }
  }
  for (const s of layout.symbols) {
    anchors.add(s.start);
    if (Number.isFinite(s.size)) anchors.add(s.start + s.size);
  }
  const nextAbove = above([...anchors]);
  // what a consumer's footprint may not cross: barriers, variable boundaries, and the other
  // copies of the same stage (same barrier) or ring (same map). Buffers of other phases of the
  // kernel (an epilogue's, in a union with the mainloop's) may alias the stage: not a bound. With
  // `strict`, where any other copy lands is a bound too (the next stage of a pipeline whose maps
  // each land once: FMHA's K and V); sizeTensorCopies takes that reading only where expect_tx
  // confirms it, since an epilogue's own copies may land inside a mainloop stage (CUTLASS's
  // non-persistent kernels keep the two in a union).
  const hardBase: number[] = [];
  for (const w of warps) for (const e of w) if ('bar' in e) hardBase.push(e.bar);
  for (const sym of layout.symbols) {
    hardBase.push(sym.start);
    if (Number.isFinite(sym.size)) hardBase.push(sym.start + sym.size);
  }
  const mates = new Map<string, number[]>();
  // the barriers each map's copies signal: the slots of its ring, whose stages do not overlap
  const ringOf = new Map<string, Set<number>>();
  for (const w of warps) for (const e of w) if (e.k === 'tma.load') ringOf.set(keyOf(e), (ringOf.get(keyOf(e)) ?? new Set<number>()).add(e.bar));
  // a multicast copy lands in every CTA of its mask, beside the copies that signal each of their
  // barriers, and below those of the other slots of its ring (ptr-array kernels name each CTA's
  // maps apart, so a map's own slots may not show the stage's end: CUTLASS example 57's B halves)
  const groupsOf = (e: TmaLoad, bars: Iterable<number>): string[] =>
    strict ? ['all'] : [...(e.ctas ?? [e.cta]).flatMap((c) => [...bars].map((b) => `bar:${c}:${b}`)), `map:${keyOf(e)}`];
  // a copy is a mate of its own barrier and map; it is bounded by the mates of its whole ring
  const groupOf = (e: TmaLoad): string[] => groupsOf(e, ringOf.get(keyOf(e)) ?? [e.bar]);
  for (const w of warps) for (const e of w) if (e.k === 'tma.load') for (const g of groupsOf(e, [e.bar])) mates.set(g, [...(mates.get(g) ?? []), e.dst]);
  const hard = new Map<string, (x: number) => number | undefined>();
  const hardAbove = (e: TmaLoad): number | undefined => {
    const id = groupOf(e).join('|');
    let f = hard.get(id);
    if (!f) {
      f = above([...hardBase, ...groupOf(e).flatMap((g) => mates.get(g) ?? [])]);
      hard.set(id, f);
    }
    return f(e.dst);
  };
  // by map: the least room any of its copies has below its hard bound (what else is placed above
  // a ring's last slot, an epilogue's staging buffer in a union, does not bound the ring's stride)
  const room = new Map<string, number>();
  for (const e of unsized) room.set(keyOf(e), Math.min(room.get(keyOf(e)) ?? Infinity, (hardAbove(e) ?? Infinity) - e.dst));
  const gaps = new Map<string, number>();
  const dsts = new Map<string, Set<number>>();
  for (const e of unsized) {
    const key = keyOf(e);
    const s = dsts.get(key) ?? new Set<number>();
    s.add(e.dst);
    dsts.set(key, s);
    const next = nextAbove(e.dst);
    if (next === undefined) continue;
    const gap = next - e.dst;
    const prev = gaps.get(key);
    if (prev === undefined || gap < prev) gaps.set(key, gap);
  }

  // 2. footprint: the reads that start at the destination, up to the next anchor
  // the first kind of reader that reads the destination decides
  const readEnd = (x: number): number | undefined => {
    for (const kind of reads) for (const [lo, hi] of kind) if (x >= lo && x < hi) return hi;
    return undefined;
  };
  // a ring's slots are as far apart as its stride: the last slot is bounded by it too (reads of
  // adjacent operands merge into one range)
  const strides = new Map<string, number>();
  for (const [key, set] of dsts) {
    const ds = [...set].sort((a, b) => a - b);
    for (let i = 1; i < ds.length; i++) strides.set(key, Math.min(strides.get(key) ?? Infinity, (ds[i] ?? 0) - (ds[i - 1] ?? 0)));
  }
  // maps that take turns through one ring (FMHA's backward loads K and V into alternate stages of
  // one pipeline): each map's stride spans two stages, the reads of adjacent stages merge, and a
  // copy would be sized over the next stage; their slots are as far apart as the merged stride
  for (const [key, d] of interleavedStrides(dsts, strides)) strides.set(key, d);
  const proposals = new Map<string, Set<number>>();
  for (const e of unsized) {
    const key = keyOf(e);
    if (sizes.has(key)) continue;
    const end = readEnd(e.dst);
    if (end === undefined) continue;
    const cap = Math.min(hardAbove(e) ?? Infinity, e.dst + (strides.get(key) ?? Infinity));
    const p = proposals.get(key) ?? new Set<number>();
    p.add(Math.min(end, cap) - e.dst);
    proposals.set(key, p);
  }
  for (const [key, p] of proposals) {
    // every copy of the map must agree (a consumer reading only part of one stage proves nothing)
    if (p.size === 1) set(key, [...p][0] ?? 0, 'footprint');
  }

  // 3. ring stride
  for (const [key, stride] of strides) {
    if (!sizes.has(key)) set(key, Math.min(stride, room.get(key) ?? Infinity), 'ring stride');
  }

  // 4. from expect_tx, barrier by barrier, until nothing changes
  for (let changed = true; changed; ) {
    changed = false;
    const offers = new Map<string, Set<number>>();
    for (const { expected, known, open } of txBalance(warps, sizes).values()) {
      const copies = [...open.values()].reduce((a, b) => a + b, 0);
      if (expected === undefined || copies === 0) continue;
      const each = (expected - known) / copies;
      for (const key of open.keys()) {
        const o = offers.get(key) ?? new Set<number>();
        o.add(Number.isInteger(each) && each > 0 ? each : -1);
        offers.set(key, o);
      }
    }
    for (const [key, o] of offers) {
      const [only] = o;
      if (o.size === 1 && only !== undefined && only > 0 && !sizes.has(key)) {
        set(key, only, 'expect_tx');
        changed = true;
      }
    }
  }
  // 5. the gap
  for (const [key, gap] of gaps) set(key, gap, 'gap');
  return { sizes, room };
}

/** The smallest of `xs` above a point. */
function above(xs: number[]): (x: number) => number | undefined {
  const sorted = [...new Set(xs)].sort((a, b) => a - b);
  return (x) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid] ?? 0) <= x) lo = mid + 1;
      else hi = mid;
    }
    return sorted[lo];
  };
}

/**
 * Tensor stores read their box from shared memory: given by map, or the run of bytes the threads
 * wrote starting at the store's source (what they staged for it). Unsized otherwise (one byte).
 */
function sizeStores(warps: readonly (readonly WarpEvent[])[], options: SizingOptions): WarpEvent[][] {
  const staged = writeRanges(warps);
  const stagedEnd = (x: number): number | undefined => {
    for (const [lo, hi] of staged) if (x >= lo && x < hi) return hi;
    return undefined;
  };
  // a staged run may span several slots of a ring: a store reads up to the next slot of its map
  const bounds = new Map<string, number[]>();
  const barriers: number[] = [];
  for (const w of warps) {
    for (const e of w) {
      if (e.k === 'tma.store') bounds.set(keyOf(e), [...(bounds.get(keyOf(e)) ?? []), e.src]);
      else if ('bar' in e) barriers.push(e.bar);
    }
  }
  const caps = new Map([...bounds].map(([k, xs]) => [k, above([...xs, ...barriers])]));
  return warps.map((w) =>
    w.map((e) => {
      if (e.k !== 'tma.store' || e.bytes !== undefined) return e;
      const key = keyOf(e);
      const given = options.boxes?.get(key) ?? options.boxes?.get(key.replace(/\+0$/, ''));
      const staged = stagedEnd(e.src);
      const end = staged === undefined ? undefined : Math.min(staged, caps.get(key)?.(e.src) ?? Infinity);
      const bytes = given ?? options.written?.get(key) ?? (end !== undefined ? end - e.src : undefined);
      return bytes !== undefined && bytes > 0 ? { ...e, bytes } : e;
    }),
  );
}
