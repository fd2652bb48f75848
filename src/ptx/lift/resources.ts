// Program resources from the addresses the warps used.
//
// Barriers: every address an mbarrier op or a TMA names. Inside a symbol that holds only
// barriers, the resource is the symbol (`full[3]`); elsewhere (dynamic shared memory, or a
// symbol that also holds data) runs of 8-byte-adjacent barriers with the same init status
// form `smem_<offset>[n]` / `<symbol>_<offset>[n]`.
//
// Buffers: a region (a data-only symbol, or the data part of dynamic shared memory) is cut
// into equal slots. The slot size is the gcd of the offsets and sizes of the TMA copies (and
// bulk stores) in it — each stage's copy lands in its own slot — or, without TMA, of the
// generic accesses. A data-only symbol is one buffer named after it; in dynamic memory the
// touched slots form runs (split where the tensor map writing them changes, so a GEMM's A and
// B stages become two buffers), named by offset.
import { num } from '../../ir/expr.ts';
import type { Ref, Resource } from '../../ir/program.ts';
import type { WarpEvent } from './events.ts';
import { demangleLocal, identifier } from './names.ts';
import type { BufferHint } from './hints.ts';
import type { SmemLayout, SmemSymbol } from './smem-layout.ts';

export interface ResourceMap {
  readonly resources: readonly Resource[];
  /** The barrier element at an address (every address in the events has one). */
  barrier(addr: number): Ref;
  /** Buffer slots a byte range overlaps, with the overlapping byte count of each. */
  slots(lo: number, hi: number): { ref: Ref; bytes: number }[];
}

interface Access {
  lo: number;
  hi: number;
  point: boolean;
  defining: boolean;
  key: string;
}

interface Region {
  readonly sym: SmemSymbol | undefined;
  readonly base: number;
  readonly accesses: Access[];
  slotBytes: number;
  /** cell → buffer name and index */
  readonly cells: Map<number, Ref>;
  /** the keys of `cells`, sorted (filled once the buffers are built) */
  sortedCells: number[];
}

const MAX_CELLS = 4096;

function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

export function buildResources(
  warps: readonly (readonly WarpEvent[])[],
  layout: SmemLayout,
  declared: ReadonlyMap<number, number>,
  hints: readonly BufferHint[] = [],
): ResourceMap {
  const names = new Set<string>();
  const unique = (n: string): string => {
    let name = n;
    for (let i = 2; names.has(name); i++) name = `${n}_${i}`;
    names.add(name);
    return name;
  };
  const symName = (s: SmemSymbol | undefined): string => (s && !s.dynamic ? identifier(demangleLocal(s.name)) : 'smem');

  // ---- barriers ----
  const barAddrs = new Set<number>();
  for (const w of warps) for (const e of w) if ('bar' in e) barAddrs.add(e.bar);
  for (const a of declared.keys()) barAddrs.add(a); // initialised in the prologue, maybe never used after
  const barWords = (lo: number, hi: number): boolean => {
    for (let a = lo - (lo % 8); a < hi; a += 8) if (!barAddrs.has(a)) return false;
    return true;
  };
  const barSyms = new Map<SmemSymbol | undefined, number[]>();
  for (const a of [...barAddrs].sort((x, y) => x - y)) {
    const s = layout.symbolAt(a);
    const list = barSyms.get(s) ?? [];
    list.push(a);
    barSyms.set(s, list);
  }

  // ---- buffer accesses, by region ----
  const regions = new Map<SmemSymbol | undefined, Region>();
  const regionOf = (addr: number): Region => {
    const sym = layout.symbolAt(addr);
    let r = regions.get(sym);
    if (!r) {
      r = { sym, base: sym?.start ?? 0, accesses: [], slotBytes: 1, cells: new Map(), sortedCells: [] };
      regions.set(sym, r);
    }
    return r;
  };
  // buffers the generator named (dynamic shared memory layout comments)
  const hinted = hints.map((h) => ({ ...h, lo: layout.dynamicBase + h.offset, hi: layout.dynamicBase + h.offset + h.slots * h.bytes }));
  const hintAt = (addr: number): (typeof hinted)[number] | undefined => hinted.find((h) => addr >= h.lo && addr < h.hi);
  const add = (lo: number, hi: number, point: boolean, defining: boolean, key: string): void => {
    if (hintAt(lo)) return;
    regionOf(lo).accesses.push({ lo, hi, point, defining, key });
  };
  for (const w of warps) {
    for (const e of w) {
      if (e.k === 'tma.load') add(e.dst, e.dst + (e.bytes ?? 1), false, true, e.map ?? 'bulk');
      else if (e.k === 'tma.store') add(e.src, e.src + (e.bytes ?? 1), e.bytes === undefined, true, '');
      else if (e.k === 'mma') for (const a of e.addrs) add(a, a + 1, true, false, '');
      else if ((e.k === 'read' || e.k === 'write') && !barWords(e.lo, e.hi)) add(e.lo, e.hi, false, false, '');
    }
  }

  const resources: Resource[] = [];
  const barRefs = new Map<number, Ref>();
  for (const h of hinted) resources.push({ kind: 'buffer', name: unique(h.name), slots: h.slots, bytes: h.bytes });

  // barrier resources
  for (const [sym, addrs] of barSyms) {
    const pure = sym !== undefined && !sym.dynamic && !regions.has(sym);
    const status = (a: number): string => String(declared.get(a) ?? '-');
    if (pure && sym.size >= 8 && addrs.every((a) => (a - sym.start) % 8 === 0) && new Set(addrs.map(status)).size === 1) {
      const name = unique(symName(sym));
      const count = declared.get(addrs[0] ?? -1);
      resources.push({ kind: 'mbarrier', name, size: Math.floor(sym.size / 8), ...(count !== undefined ? { count } : {}) });
      for (const a of addrs) barRefs.set(a, { name, index: num((a - sym.start) / 8) });
      continue;
    }
    const base = sym?.start ?? 0;
    let run: number[] = [];
    const flush = (): void => {
      const first = run[0];
      if (first === undefined) return;
      const name = unique(`${symName(sym)}_${first - base}`);
      const count = declared.get(first);
      resources.push({ kind: 'mbarrier', name, size: run.length, ...(count !== undefined ? { count } : {}) });
      run.forEach((a, i) => barRefs.set(a, { name, index: num(i) }));
      run = [];
    };
    for (const a of addrs) {
      const prev = run[run.length - 1];
      if (prev !== undefined && (a !== prev + 8 || status(a) !== status(prev))) flush();
      run.push(a);
    }
    flush();
  }

  // buffer resources
  const sortedRegions = [...regions.values()].sort((a, b) => a.base - b.base);
  for (const r of sortedRegions) {
    const pure = r.sym !== undefined && !r.sym.dynamic && !barSyms.has(r.sym);
    // slot boundaries come from TMA copies; without any, from generic access ranges (wgmma
    // descriptor start addresses say nothing about slot sizes)
    const defining = r.accesses.filter((a) => a.defining);
    const basis = defining.length > 0 ? defining : r.accesses.filter((a) => !a.point);
    let g = 0;
    for (const a of basis) {
      g = gcd(g, a.lo - r.base);
      if (!a.point) g = gcd(g, a.hi - a.lo);
    }
    const symSize = r.sym && Number.isFinite(r.sym.size) ? r.sym.size : 0;
    let maxHi = -Infinity;
    let minLo = Infinity;
    for (const a of r.accesses) {
      if (a.hi > maxHi) maxHi = a.hi;
      if (a.lo < minLo) minLo = a.lo;
    }
    if (g === 0) g = pure ? Math.max(1, symSize) : Math.max(1, maxHi - r.base);
    const extent = pure ? symSize : maxHi - minLo;
    if (extent / g > MAX_CELLS) g = pure ? Math.max(1, symSize) : Math.max(1, maxHi - r.base);
    r.slotBytes = g;
    if (pure && r.sym) {
      const name = unique(symName(r.sym));
      // the symbol's whole extent is the buffer, so slots no access touched (fewer iterations than slots) still count
      const slots = Math.max(1, Math.ceil(symSize / g));
      resources.push({ kind: 'buffer', name, slots, bytes: g });
      for (let c = 0; c < slots; c++) r.cells.set(c, { name, index: num(c) });
      // accesses past the declared end land in the last slot
      for (const a of r.accesses) {
        const first = Math.floor((a.lo - r.base) / g);
        const last = Math.min(Math.floor((a.hi - 1 - r.base) / g), first + MAX_CELLS);
        for (let c = Math.max(first, slots); c <= last; c++) r.cells.set(c, { name, index: num(slots - 1) });
      }
      continue;
    }
    const keys = new Map<number, Set<string>>();
    for (const a of r.accesses) {
      const first = Math.floor((a.lo - r.base) / g);
      const last = Math.min(a.point ? first : Math.floor((a.hi - 1 - r.base) / g), first + MAX_CELLS);
      for (let c = first; c <= last; c++) {
        const set = keys.get(c) ?? new Set<string>();
        if (a.defining && a.key) set.add(a.key);
        keys.set(c, set);
      }
    }
    const cells = [...keys.keys()].sort((a, b) => a - b);
    const keyOf = (c: number): string => [...(keys.get(c) ?? [])].sort().join('+');
    let run: number[] = [];
    let runKey = '';
    const flush = (): void => {
      const first = run[0];
      if (first === undefined) return;
      const name = unique(`${symName(r.sym)}_${first * g}`);
      resources.push({ kind: 'buffer', name, slots: run.length, bytes: g });
      run.forEach((c, i) => r.cells.set(c, { name, index: num(i) }));
      run = [];
      runKey = '';
    };
    for (const c of cells) {
      const prev = run[run.length - 1];
      // a slot no TMA writes (generic accesses only) joins the run before it
      const key = keyOf(c);
      if (prev !== undefined && (c !== prev + 1 || (key !== '' && runKey !== '' && key !== runKey))) flush();
      run.push(c);
      if (runKey === '') runKey = key;
    }
    flush();
  }

  for (const r of regions.values()) r.sortedCells = [...r.cells.keys()].sort((a, b) => a - b);

  return {
    resources,
    barrier(addr) {
      const ref = barRefs.get(addr);
      if (!ref) throw new Error(`internal: no barrier at shared address ${addr}`);
      return ref;
    },
    slots(lo, hi) {
      const h = hintAt(lo);
      if (h) {
        const out: { ref: Ref; bytes: number }[] = [];
        for (let s = Math.floor((lo - h.lo) / h.bytes); s < h.slots && h.lo + s * h.bytes < Math.max(lo + 1, hi); s++) {
          const sLo = h.lo + s * h.bytes;
          out.push({ ref: { name: h.name, index: num(s) }, bytes: Math.min(hi, sLo + h.bytes) - Math.max(lo, sLo) });
        }
        return out;
      }
      const r = regions.get(layout.symbolAt(lo));
      if (!r) return [];
      const g = r.slotBytes;
      const out: { ref: Ref; bytes: number }[] = [];
      const first = Math.floor((lo - r.base) / g);
      const last = Math.floor((Math.max(lo + 1, hi) - 1 - r.base) / g);
      for (const c of r.sortedCells) {
        if (c < first || c > last) continue;
        const ref = r.cells.get(c);
        if (!ref) continue;
        const cLo = r.base + c * g;
        const bytes = Math.min(hi, cLo + g) - Math.max(lo, cLo);
        const prev = out[out.length - 1];
        if (prev && prev.ref.name === ref.name && sameIndex(prev.ref, ref)) prev.bytes += bytes;
        else out.push({ ref, bytes });
      }
      return out;
    },
  };
}

function sameIndex(a: Ref, b: Ref): boolean {
  return a.index.kind === 'num' && b.index.kind === 'num' && a.index.value === b.index.value;
}
