// Program resources from the addresses the warps used.
//
// Barriers: every address an mbarrier op or a TMA names. Inside a symbol that holds only
// barriers, the resource is the symbol (`full[3]`); elsewhere (dynamic shared memory, or a
// symbol that also holds data) runs of 8-byte-adjacent barriers with the same init status form
// `smem_<offset>[n]` / `<symbol>_<offset>[n]`.
//
// Buffers: slots are as coarse as the accesses allow. A region (a data symbol, or the data part
// of dynamic shared memory) is cut where a TMA copy's destination or a TMA store's source begins
// or ends, and where one warp's generic writes begin or end (two roles writing disjoint halves
// of an epilogue tile must not share a slot); adjacent pieces that the same writes cover stay
// one slot. So one copy is one slot and lands as one unit, however the consumers read it.
// Runs of equal slots written through the same tensor map (a ring of stages) form one buffer.
//
// In a cluster of C CTAs every resource exists once per CTA (`full_c1[3]`), and named barrier
// ids are per CTA (16·c + id), with 16·C for the cluster barrier.
import { num } from '../../ir/expr.ts';
import type { Ref, Resource } from '../../ir/program.ts';
import type { WarpEvent } from './events.ts';
import { mergeRanges, mmaReads } from './footprint.ts';
import type { BufferHint } from './hints.ts';
import { demangleLocal, identifier } from './names.ts';
import type { SmemLayout, SmemSymbol } from './smem-layout.ts';

export interface ResourceMap {
  readonly resources: readonly Resource[];
  /** The barrier element at an address of CTA `cta` (every address in the events has one). */
  barrier(cta: number, addr: number): Ref;
  /**
   * Buffer slots that byte runs of CTA `cta` overlap, each once, with the overlapping byte count of
   * each (a scattered slot, or scattered runs, add up).
   */
  slots(cta: number, runs: readonly (readonly [number, number])[]): { ref: Ref; bytes: number }[];
  /** The Program's named barrier count (16, or 16 per CTA plus the cluster barrier). */
  readonly namedBarriers: number;
  /** The CTA of the cluster a barrier or buffer belongs to, by name. */
  readonly ctaOf: ReadonlyMap<string, number>;
  /** Model id of named barrier `id` of CTA `cta`, and of the cluster barrier. */
  namedId(cta: number, id: number): number;
  readonly clusterBarrier: number;
}

interface Piece {
  readonly lo: number;
  readonly hi: number;
  /** a slot of scattered bytes: its runs (lo, hi: the first one) */
  readonly runs?: readonly (readonly [number, number])[];
  /** ids of the write intervals covering it (what may not be split) */
  readonly cover: string;
  /** the tensor map writing it, for grouping stages into one buffer */
  readonly key: string;
}

/** A write's byte range: a TMA copy's destination, a TMA store's source, or one warp's generic writes. */
interface Interval {
  readonly lo: number;
  readonly hi: number;
  readonly id: string;
  readonly key: string;
  /** a generic write's warpgroup */
  readonly group?: string;
  /** a TMA store's source: cut at its ends, but it does not land, so writes may cut inside it */
  readonly store?: boolean;
}

/** Events that can order a warp's generic writes with other warps' accesses: they end a write epoch. */
const ORDERS_WRITES: ReadonlySet<WarpEvent['k']> = new Set(['wait', 'arrive', 'arrive.expect_tx', 'bar.sync', 'bar.arrive', 'cluster.sync']);

/** Most slots one region may be cut into; past it only TMA extents cut (generic writes do not). */
const MAX_PIECES = 512;

export function buildResources(
  warps: readonly (readonly WarpEvent[])[],
  ctaOf: readonly number[],
  ctas: number,
  layout: SmemLayout,
  declared: ReadonlyMap<number, ReadonlyMap<number, number>>,
  hints: readonly BufferHint[] = [],
  /** who a warp's generic writes belong to, for cutting inside a copy (default: its CTA and warpgroup) */
  writerGroup: (warp: number) => string = (wi) => `${ctaOf[wi] ?? 0}:${Math.floor(wi / 4)}`,
): ResourceMap {
  const names = new Set<string>();
  const unique = (n: string): string => {
    let name = n;
    for (let i = 2; names.has(name); i++) name = `${n}_${i}`;
    names.add(name);
    return name;
  };
  // which CTA each resource belongs to (a cluster's are one per CTA)
  const ctaOfName = new Map<string, number>();
  const perCta = (base: string): string[] => {
    const ns = ctas === 1 ? [unique(base)] : Array.from({ length: ctas }, (_, c) => unique(`${base}_c${c}`));
    ns.forEach((n, c) => ctaOfName.set(n, c));
    return ns;
  };
  const symName = (s: SmemSymbol | undefined): string => (s && !s.dynamic ? identifier(demangleLocal(s.name)) : 'smem');

  // ---- barriers ----
  const barAddrs = new Set<number>();
  for (const w of warps) for (const e of w) if ('bar' in e) barAddrs.add(e.bar);
  for (const m of declared.values()) for (const a of m.keys()) barAddrs.add(a); // initialised in the prologue, maybe never used after
  const status = (a: number): string => Array.from({ length: ctas }, (_, c) => String(declared.get(c)?.get(a) ?? '-')).join(',');
  const countOf = (c: number, a: number): number | undefined => declared.get(c)?.get(a);
  const barSyms = new Map<SmemSymbol | undefined, number[]>();
  for (const a of [...barAddrs].sort((x, y) => x - y)) {
    const s = layout.symbolAt(a);
    const list = barSyms.get(s) ?? [];
    list.push(a);
    barSyms.set(s, list);
  }

  // ---- buffer accesses ----
  const hinted = hints.map((h) => ({ ...h, lo: layout.dynamicBase + h.offset, hi: layout.dynamicBase + h.offset + h.slots * h.bytes }));
  const hintAt = (addr: number): (typeof hinted)[number] | undefined => hinted.find((h) => addr >= h.lo && addr < h.hi);
  const barWords = (lo: number, hi: number): boolean => {
    for (let a = lo - (lo % 8); a < hi; a += 8) if (!barAddrs.has(a)) return false;
    return true;
  };
  const writes: Interval[] = [];
  const reads: [number, number][] = [];
  // the bytes a wgmma reads (through the async proxy): a scattered slot gathers only bytes read
  // alike (gatherScattered)
  const asyncReads: [number, number][] = [];
  warps.forEach((w, wi) => {
    // one warp's generic writes, by epoch: the stretch between two events that can order them
    // with other warps' accesses (a wait, an arrive, a named or cluster barrier)
    const epochs: [number, number][][] = [[]];
    for (const e of w) {
      const spans = (e.k === 'write' || e.k === 'read') && e.parts ? e.parts.map(([lo, hi]) => [lo, hi] as [number, number]) : undefined;
      if (e.k === 'tma.load') {
        // a copy in several places (st.async) is one write of each run, under one id
        for (const [lo, hi] of e.parts ?? [[e.dst, e.dst + (e.bytes ?? 1)]]) writes.push({ lo, hi, id: `tma:${e.dst}:${e.bytes}`, key: e.map ?? 'bulk' });
      }
      else if (e.k === 'tma.store') writes.push({ lo: e.src, hi: e.src + (e.bytes ?? 1), id: `store:${e.src}:${e.bytes}`, key: '', store: true });
      else if (e.k === 'write' && !barWords(e.lo, e.hi)) epochs[epochs.length - 1]!.push(...(spans ?? [[e.lo, e.hi]]));
      else if (e.k === 'read' && !barWords(e.lo, e.hi)) reads.push(...(spans ?? [[e.lo, e.hi]]));
      else if (e.k === 'mma') {
        const rs = mmaReads(e, layout);
        reads.push(...rs);
        asyncReads.push(...rs);
      }
      else if (ORDERS_WRITES.has(e.k) && epochs[epochs.length - 1]!.length > 0) epochs.push([]);
    }
    // An epoch's writes: their union, in contiguous runs (tagged with its warpgroup) that share an
    // id, so the bytes one warp stages for one TMA store form one slot (cut, below). Epochs apart:
    // a warp that zeroes every fourth row before a barrier and a block of rows after it (ThunderKittens'
    // based kernel) must not make one slot of bytes it and another warp wrote in different epochs, a
    // false write-after-write. Epochs that write the same runs share the id (a loop's iterations):
    // that cuts nothing finer and keeps the covers short.
    const seen = new Set<string>();
    for (const runs of epochs) {
      const merged = mergeRanges(runs);
      const sig = merged.map(([lo, hi]) => `${lo}-${hi}`).join(',');
      if (merged.length === 0 || seen.has(sig)) continue;
      const id = `warp${wi}#${seen.size}`;
      seen.add(sig);
      for (const [lo, hi] of merged) writes.push({ lo, hi, id, key: '', group: writerGroup(wi) });
    }
  });

  const resources: Resource[] = [];
  for (const h of hinted) {
    const ns = perCta(h.name);
    for (const n of ns) resources.push({ kind: 'buffer', name: n, slots: h.slots, bytes: h.bytes });
  }

  // barrier resources
  const barRefs = new Map<number, { names: string[]; index: number }>();
  for (const [sym, addrs] of barSyms) {
    const pure = sym !== undefined && !sym.dynamic && !writes.some((x) => layout.symbolAt(x.lo) === sym) && !reads.some(([lo]) => layout.symbolAt(lo) === sym);
    if (pure && sym.size >= 8 && addrs.every((a) => (a - sym.start) % 8 === 0) && new Set(addrs.map(status)).size === 1) {
      const ns = perCta(symName(sym));
      ns.forEach((n, c) => {
        const count = countOf(c, addrs[0] ?? -1);
        resources.push({ kind: 'mbarrier', name: n, size: Math.floor(sym.size / 8), ...(count !== undefined ? { count } : {}) });
      });
      for (const a of addrs) barRefs.set(a, { names: ns, index: (a - sym.start) / 8 });
      continue;
    }
    const base = sym?.start ?? 0;
    let run: number[] = [];
    const flush = (): void => {
      const first = run[0];
      if (first === undefined) return;
      const ns = perCta(`${symName(sym)}_${first - base}`);
      ns.forEach((n, c) => {
        const count = countOf(c, first);
        resources.push({ kind: 'mbarrier', name: n, size: run.length, ...(count !== undefined ? { count } : {}) });
      });
      run.forEach((a, i) => barRefs.set(a, { names: ns, index: i }));
      run = [];
    };
    for (const a of addrs) {
      const prev = run[run.length - 1];
      if (prev !== undefined && (a !== prev + 8 || status(a) !== status(prev))) flush();
      run.push(a);
    }
    flush();
  }

  // buffer resources, region by region
  const regions = new Map<SmemSymbol | undefined, { writes: Interval[]; reads: [number, number][] }>();
  const region = (addr: number): { writes: Interval[]; reads: [number, number][] } => {
    const s = layout.symbolAt(addr);
    let r = regions.get(s);
    if (!r) {
      r = { writes: [], reads: [] };
      regions.set(s, r);
    }
    return r;
  };
  for (const x of writes) if (!hintAt(x.lo)) region(x.lo).writes.push(x);
  for (const x of reads) if (!hintAt(x[0])) region(x[0]).reads.push(x);
  // whether a wgmma reads a piece: bytes it reads and bytes it does not (read by generic loads, or
  // by nothing) are not gathered into one slot
  const asyncRanges = mergeRanges(asyncReads);
  const readsBy = (p: Piece): string => (asyncRanges.some(([lo, hi]) => lo < p.hi && hi > p.lo) ? 'async' : 'generic');
  const slotRefs: { lo: number; hi: number; names: string[]; index: number }[] = [];
  const sortedRegions = [...regions.entries()].sort((a, b) => (a[0]?.start ?? 0) - (b[0]?.start ?? 0));
  for (const [sym, r] of sortedRegions) {
    const pieces = cutCapped(r.writes, r.reads, readsBy);
    const bytesOf = (p: Piece): number => (p.runs ? p.runs.reduce((n, [lo, hi]) => n + hi - lo, 0) : p.hi - p.lo);
    // runs of adjacent, equal pieces written through the same map form one buffer
    let run: Piece[] = [];
    const flush = (): void => {
      const first = run[0];
      if (!first) return;
      const base = sym?.start ?? 0;
      const pure = sym !== undefined && !sym.dynamic && run.length === pieces.length && !barSyms.has(sym);
      const ns = perCta(pure ? symName(sym) : `${symName(sym)}_${first.lo - base}`);
      for (const n of ns) resources.push({ kind: 'buffer', name: n, slots: run.length, bytes: bytesOf(first) });
      run.forEach((p, i) => {
        for (const [lo, hi] of p.runs ?? [[p.lo, p.hi]]) slotRefs.push({ lo, hi, names: ns, index: i });
      });
      run = [];
    };
    for (const p of pieces) {
      const prev = run[run.length - 1];
      // contiguous pieces continue a run when adjacent; scattered ones when the run is scattered too
      const follows = prev !== undefined && (p.runs ? prev.runs !== undefined : prev.runs === undefined && p.lo === prev.hi);
      if (prev && (!follows || bytesOf(p) !== bytesOf(prev) || p.key !== prev.key)) flush();
      run.push(p);
    }
    flush();
  }
  slotRefs.sort((a, b) => a.lo - b.lo);

  // 16 per CTA, and one more for the cluster barrier when there is a cluster or the kernel uses
  // barrier.cluster anyway (FlashMLA's sparse decode does, launched here as one CTA)
  const clusterSync = ctas > 1 || warps.some((w) => w.some((e) => e.k === 'cluster.sync'));
  const named = clusterSync ? 16 * ctas + 1 : 16;
  return {
    resources,
    namedBarriers: named,
    ctaOf: ctaOfName,
    namedId: (cta, id) => (ctas === 1 ? id : 16 * cta + id),
    clusterBarrier: 16 * ctas,
    barrier(cta, addr) {
      const ref = barRefs.get(addr);
      if (!ref) throw new Error(`internal: no barrier at shared address ${addr}`);
      return { name: ref.names[cta] ?? ref.names[0] ?? '?', index: num(ref.index) };
    },
    slots(cta, runs) {
      const out: { ref: Ref; bytes: number }[] = [];
      const add = (name: string, index: number, bytes: number): void => {
        const seen = out.find((o) => o.ref.name === name && o.ref.index.kind === 'num' && o.ref.index.value === index);
        if (seen) seen.bytes += bytes;
        else out.push({ ref: { name, index: num(index) }, bytes });
      };
      for (const [lo, hi] of runs) {
        const end = Math.max(lo + 1, hi);
        const h = hintAt(lo);
        if (h) {
          const hname = ctas === 1 ? h.name : `${h.name}_c${cta}`;
          for (let s = Math.floor((lo - h.lo) / h.bytes); s < h.slots && h.lo + s * h.bytes < end; s++) {
            const sLo = h.lo + s * h.bytes;
            add(hname, s, Math.min(hi, sLo + h.bytes) - Math.max(lo, sLo));
          }
          continue;
        }
        for (const s of slotRefs) {
          if (s.hi <= lo) continue;
          if (s.lo >= end) break;
          // a scattered slot has several runs: one entry for it
          add(s.names[cta] ?? s.names[0] ?? '?', s.index, Math.min(hi, s.hi) - Math.max(lo, s.lo));
        }
      }
      return out;
    },
  };
}

/**
 * `cut`, with the cap on pieces spent where the pieces are: past the cap, the stretches of
 * accessed bytes with the most pieces are cut coarsely (TMA extents only), largest first, until
 * the region is under the cap. An epilogue staging area cut past the cap must not make a small
 * schedule array elsewhere in the same region one slot (fast.cu M12: four warps' disjoint schedule
 * entries became one slot, a false write-after-write).
 */
function cutCapped(writes: readonly Interval[], reads: readonly [number, number][], readsBy: (p: Piece) => string): Piece[] {
  const whole = cut(writes, reads, true, readsBy);
  if (whole.length <= MAX_PIECES) return whole;
  const stretches = mergeRanges([...writes.map((w) => [w.lo, w.hi] as [number, number]), ...reads]);
  // the stretch an interval starts in (stretches are sorted and disjoint): a binary search
  const at = (lo: number): number => {
    let a = 0;
    let b = stretches.length - 1;
    while (a <= b) {
      const mid = (a + b) >> 1;
      const [x, y] = stretches[mid]!;
      if (lo < x) b = mid - 1;
      else if (lo >= y) a = mid + 1;
      else return mid;
    }
    return -1;
  };
  const grouped = stretches.map(() => ({ ws: [] as Interval[], rs: [] as [number, number][] }));
  for (const w of writes) grouped[at(w.lo)]?.ws.push(w);
  for (const x of reads) grouped[at(x[0])]?.rs.push(x);
  const parts = grouped.map(({ ws, rs }) => ({ ws, rs, pieces: cut(ws, rs, true, readsBy) }));
  let total = parts.reduce((n, p) => n + p.pieces.length, 0);
  for (const p of [...parts].sort((a, b) => b.pieces.length - a.pieces.length)) {
    if (total <= MAX_PIECES) break;
    // coarsely: TMA extents cut, and each writer group's generic writes of one epoch are one
    // scattered piece, so two roles staging disjoint swizzled rows of one tile (FlashAttention-3
    // backward's P) do not share a slot, nor do a ring's stages (written in different epochs);
    // bytes two groups both write still get a slot of their own
    const byGroup = p.ws.map((x) => (x.group !== undefined ? { ...x, id: `group ${x.group}${/#\d+$/.exec(x.id)?.[0] ?? ''}` } : x));
    const coarse = byGroup.some((x) => x.group !== undefined) ? gatherScattered(cut(byGroup, p.rs, true, readsBy), byGroup, true, readsBy) : cut(byGroup, p.rs, false);
    total += coarse.length - p.pieces.length;
    p.pieces = coarse;
  }
  return parts.flatMap((p) => p.pieces);
}

/**
 * Cut a region at every write interval's ends (and cover the reads that no write covers);
 * adjacent pieces covered by the same writes merge, and so do scattered pieces covered by the
 * same writes inside one TMA extent (the rows one warp stages for one TMA store).
 */
function cut(
  writes: readonly { lo: number; hi: number; id: string; key: string; group?: string; store?: boolean }[],
  reads: readonly [number, number][],
  merge: boolean,
  readsBy: (p: Piece) => string = () => '',
): Piece[] {
  const points = new Set<number>();
  // a copy lands as one unit: generic writes cut inside a TMA extent only when two warpgroups
  // (likely two roles) write disjoint parts of it, as an epilogue reusing a stage buffer may
  const copies = writes.filter((w) => w.group === undefined && w.store !== true);
  const splitters = new Set<string>();
  for (const c of copies) {
    const groups = new Set(writes.filter((w) => w.group !== undefined && w.lo < c.hi && w.hi > c.lo).map((w) => w.group));
    if (groups.size >= 2) splitters.add(c.id);
  }
  const inside = (x: number): boolean => copies.some((c) => x > c.lo && x < c.hi && !splitters.has(c.id));
  for (const w of writes) {
    for (const x of [w.lo, w.hi]) if (w.group === undefined || !inside(x)) points.add(x);
  }
  const covered = mergeRanges(writes.map((w) => [w.lo, w.hi] as [number, number]));
  const isCovered = (x: number): boolean => covered.some(([lo, hi]) => x >= lo && x < hi);
  // reads outside every write: pieces of their own (a slot nobody writes)
  for (const [lo, hi] of mergeRanges(reads)) {
    if (isCovered(lo) && isCovered(hi - 1)) continue;
    points.add(lo);
    points.add(hi);
  }
  const all = mergeRanges([...covered, ...reads.map(([lo, hi]) => [lo, hi] as [number, number])]);
  const xs = [...points].sort((a, b) => a - b);
  // sweep: the writes overlapping each piece, and the accessed range it lies in
  const byLo = [...writes].sort((a, b) => a.lo - b.lo);
  const active = new Set<(typeof writes)[number]>();
  let nextWrite = 0;
  let nextRange = 0;
  const pieces: Piece[] = [];
  for (let i = 0; i + 1 < xs.length; i++) {
    const lo = xs[i] ?? 0;
    const hi = xs[i + 1] ?? 0;
    while (nextRange < all.length && (all[nextRange]?.[1] ?? 0) <= lo) nextRange++;
    const range = all[nextRange];
    if (hi <= lo || !range || lo < range[0] || hi > range[1]) continue;
    while (nextWrite < byLo.length && (byLo[nextWrite]?.lo ?? 0) < hi) active.add(byLo[nextWrite++]!);
    for (const w of active) if (w.hi <= lo) active.delete(w);
    const over = [...active];
    const cover = [...new Set(over.map((w) => w.id))].sort().join('|');
    const key = [...new Set(over.map((w) => w.key).filter((k) => k !== ''))].sort().join('+');
    const prev = pieces[pieces.length - 1];
    if (merge && prev && prev.hi === lo && prev.cover === cover && cover !== '') pieces[pieces.length - 1] = { ...prev, hi };
    else pieces.push({ lo, hi, cover, key });
  }
  return merge ? gatherScattered(pieces, writes, false, readsBy) : pieces;
}

/**
 * Pieces with one cover that includes a TMA extent (a copy or a store) and lies in several
 * places become one scattered piece: the bytes are written by the same writes and moved by the
 * same copy, so nothing distinguishes them, and one slot keeps the state small; unless they are
 * read differently (`readsBy`: a wgmma reads some and not others — FlashMLA's sparse decode
 * stages a K tile for wgmma and, after its proxy fence, a validity mask for generic loads, under
 * one TMA store's extent: one slot of both was a false race). With `any`, pieces of any one cover
 * gather (cutCapped's coarse cut: one slot per writer group).
 */
function gatherScattered(pieces: readonly Piece[], writes: readonly { id: string; group?: string }[], any = false, readsBy: (p: Piece) => string = () => ''): Piece[] {
  const extents = new Set(writes.filter((w) => w.group === undefined).map((w) => w.id));
  const byCover = new Map<string, Piece[]>();
  const keyOf = (p: Piece): string => `${p.cover}@${readsBy(p)}`;
  for (const p of pieces) {
    if (!any && !p.cover.split('|').some((id) => extents.has(id))) continue;
    if (p.cover === '') continue;
    const list = byCover.get(keyOf(p)) ?? [];
    list.push(p);
    byCover.set(keyOf(p), list);
  }
  const out: Piece[] = [];
  for (const p of pieces) {
    const group = byCover.get(keyOf(p));
    if (!group || group.length < 2) out.push(p);
    else if (group[0] === p) out.push({ ...p, runs: group.map((g) => [g.lo, g.hi] as const) });
  }
  return out;
}
