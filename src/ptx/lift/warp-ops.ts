// One warp's events → Program operations with concrete operands (docs/ptx.md, "mapping").
import { num } from '../../ir/expr.ts';
import type { Loc, Op, Ref } from '../../ir/program.ts';
import type { WarpEvent } from './events.ts';
import { mmaReads } from './footprint.ts';
import type { ResourceMap } from './resources.ts';
import type { SmemLayout } from './smem-layout.ts';

export interface WarpOp {
  readonly op: Op;
  readonly loc: Loc;
  /**
   * Executed by the whole warp together (waits, wgmma, named barriers, fences, generic
   * accesses); the others are single-issuer ops of one or a few threads (convention:
   * init/arrive/expect_tx/complete_tx/TMA/bulk groups/inval).
   */
  readonly collective: boolean;
  /** A generic access: what the warp's lanes touched through it (one entry per PTX access it stands for), for the fold's race check. */
  readonly bytes?: AccessBytes[];
  /** A wgmma commit: every generic shared-memory load of the warp before it is over (load-waits.ts). */
  readonly settled?: boolean;
}

export interface AccessBytes {
  readonly cta: number;
  /** sorted, disjoint (the event's merged lane runs) */
  readonly runs: readonly (readonly [number, number])[];
  /** the stored addresses and values, when all known (a replicated store) */
  readonly data?: string;
}

function sameRef(a: Ref, b: Ref): boolean {
  return a.name === b.name && a.index.kind === 'num' && b.index.kind === 'num' && a.index.value === b.index.value;
}

/** The op of the current run of generic accesses that already does `kind` on `ref`, if any. */
function inAccessRun(ops: readonly WarpOp[], kind: 'read' | 'write' | 'atomic', ref: Ref): WarpOp | undefined {
  for (let i = ops.length - 1; i >= 0; i--) {
    const o = ops[i];
    const op = o?.op;
    if (!op || (op.kind !== 'read' && op.kind !== 'write' && op.kind !== 'atomic')) return undefined;
    if (op.kind === kind && sameRef(op.target, ref)) return o;
  }
  return undefined;
}

/**
 * Token variables for the arrives whose state a wait uses: `t0`, `t1`, … reused once a token's
 * last wait has passed (the model keeps one slot per live token).
 */
function tokenNames(events: readonly WarpEvent[]): Map<number, string> {
  const lastWait = new Map<number, number>();
  events.forEach((e, i) => {
    if (e.k === 'wait' && e.token !== undefined) lastWait.set(e.token, i);
  });
  const names = new Map<number, string>();
  const busyUntil: number[] = [];
  events.forEach((e, i) => {
    if ((e.k === 'arrive' || e.k === 'arrive.expect_tx') && e.token !== undefined) {
      const end = lastWait.get(e.token);
      if (end === undefined) return;
      let slot = busyUntil.findIndex((t) => t < i);
      if (slot < 0) slot = busyUntil.push(0) - 1;
      busyUntil[slot] = end;
      names.set(e.token, `t${slot}`);
    }
  });
  return names;
}

/**
 * A write whose every byte and value is known gets a value tag, one per distinct content
 * (`tags`, shared by all warps of a lift): the semantics does not order two writes of the same
 * tag (docs/semantics.md), as the warps of a warpgroup all storing Triton's warp-specialize state
 * word need not be. A write of unknown data keeps no tag and is ordered as before.
 */
function tagKnownData(ops: WarpOp[], tags: Map<string, number>): WarpOp[] {
  return ops.map((o) => {
    if (o.op.kind !== 'write' || !o.bytes || o.bytes.some((b) => b.data === undefined)) return o;
    const content = o.bytes.map((b) => `${b.cta}:${b.data}`).sort().join(';');
    let tag = tags.get(content);
    if (tag === undefined) tags.set(content, (tag = tags.size + 1));
    return { ...o, op: { ...o.op, value: num(tag) } };
  });
}

export function warpOps(events: readonly WarpEvent[], res: ResourceMap, layout: SmemLayout, blockThreads: number, cta: number, ctas: number, tags: Map<string, number> = new Map()): WarpOp[] {
  const out: WarpOp[] = [];
  const local = (op: Op, loc: Loc): void => {
    out.push({ op, loc, collective: false });
  };
  const collective = (op: Op, loc: Loc): void => {
    out.push({ op, loc, collective: true });
  };
  const tokens = tokenNames(events);
  let issued: Ref[] = [];
  for (const e of events) {
    const loc = e.loc;
    switch (e.k) {
      case 'init':
        for (let i = 0; i < e.threads; i++) local({ kind: 'init', target: res.barrier(e.cta, e.bar), count: num(e.count) }, loc);
        break;
      case 'inval':
        for (let i = 0; i < e.threads; i++) local({ kind: 'inval', target: res.barrier(e.cta, e.bar) }, loc);
        break;
      case 'arrive': {
        const token = e.token === undefined ? undefined : tokens.get(e.token);
        local({ kind: 'arrive', target: res.barrier(e.cta, e.bar), count: num(e.count), ...(token !== undefined ? { token } : {}) }, loc);
        break;
      }
      case 'arrive.expect_tx': {
        const token = e.token === undefined ? undefined : tokens.get(e.token);
        if (e.threads === 1) {
          local({ kind: 'arrive.expect_tx', target: res.barrier(e.cta, e.bar), bytes: num(e.bytes), ...(token !== undefined ? { token } : {}) }, loc);
        } else {
          local({ kind: 'expect_tx', target: res.barrier(e.cta, e.bar), bytes: num(e.bytes * e.threads) }, loc);
          local({ kind: 'arrive', target: res.barrier(e.cta, e.bar), count: num(e.threads), ...(token !== undefined ? { token } : {}) }, loc);
        }
        break;
      }
      case 'expect_tx':
      case 'complete_tx':
        local({ kind: e.k, target: res.barrier(e.cta, e.bar), bytes: num(e.bytes) }, loc);
        break;
      case 'wait': {
        const token = e.token === undefined ? undefined : tokens.get(e.token);
        const target = res.barrier(e.cta, e.bar);
        collective(token !== undefined ? { kind: 'wait.token', target, token } : { kind: 'wait', target, parity: num(e.parity) }, loc);
        break;
      }
      case 'tma.load': {
        const bytes = e.bytes ?? 0;
        for (const c of e.ctas ?? [e.cta]) {
          // one copy lands as one unit, however finely other accesses cut its buffer into slots
          const pieces = runsOfSlots(res.slots(c, e.parts ?? [[e.dst, e.dst + bytes]]));
          const barrier = res.barrier(c, e.bar);
          for (const p of pieces) {
            const value = e.src && bytes > 0 && e.src.offset % bytes === 0 && pieces.length === 1 ? { value: num(e.src.offset / bytes) } : {};
            const slots = p.count > 1 ? { slots: num(p.count) } : {};
            for (let i = 0; i < e.copies; i++) local({ kind: 'tma.load', target: p.ref, barrier, bytes: num(p.bytes), ...slots, ...value }, loc);
          }
        }
        break;
      }
      case 'tma.store':
        for (const p of res.slots(e.cta, [[e.src, e.src + (e.bytes ?? 1)]])) local({ kind: 'tma.store', target: p.ref }, loc);
        break;
      case 'bulk.commit':
        local({ kind: 'bulk.commit' }, loc);
        break;
      case 'bulk.wait':
        local({ kind: 'bulk.wait', pending: num(e.pending) }, loc);
        break;
      case 'mma': {
        for (const p of res.slots(e.cta, mmaReads(e, layout))) {
          if (issued.some((r) => sameRef(r, p.ref))) continue;
          issued.push(p.ref);
          collective({ kind: 'wgmma.issue', target: p.ref, commit: false }, loc);
        }
        break;
      }
      case 'wgmma.commit':
        issued = [];
        out.push({ op: { kind: 'wgmma.commit' }, loc, collective: true, ...(e.settled ? { settled: true } : {}) });
        break;
      case 'wgmma.wait':
        collective({ kind: 'wgmma.wait', pending: num(e.pending) }, loc);
        break;
      case 'bar.sync':
      case 'bar.arrive':
        collective({ kind: e.k, id: num(res.namedId(cta, e.id)), threads: num(e.threads ?? blockThreads) }, loc);
        break;
      case 'cluster.sync':
        collective({ kind: 'bar.sync', id: num(res.clusterBarrier), threads: num(blockThreads * ctas) }, loc);
        break;
      case 'fence.proxy.async':
        collective({ kind: 'fence.proxy.async' }, loc);
        break;
      case 'read':
      case 'write':
        for (const p of res.slots(e.cta, e.parts ?? [[e.lo, e.hi]])) {
          const touched: AccessBytes = { cta: e.cta, runs: e.parts ?? [[e.lo, e.hi]], ...(e.data !== undefined ? { data: e.data } : {}) };
          // in a run of generic accesses with no synchronization between them, order does not
          // matter: one read (write) per slot stands for the run (a loop of loads over a slot)
          const kind = e.k === 'write' && e.atomic === true ? 'atomic' : e.k;
          const same = inAccessRun(out, kind, p.ref);
          if (same) same.bytes?.push(touched);
          else out.push({ op: { kind, target: p.ref }, loc, collective: true, bytes: [touched] });
        }
        break;
    }
  }
  return tagKnownData(out, tags);
}

/** Consecutive slots of one buffer merged: the first slot, how many, and their bytes together. */
function runsOfSlots(pieces: readonly { ref: Ref; bytes: number }[]): { ref: Ref; count: number; bytes: number }[] {
  const runs: { ref: Ref; count: number; bytes: number }[] = [];
  for (const p of pieces) {
    const last = runs.at(-1);
    const at = p.ref.index.kind === 'num' ? p.ref.index.value : undefined;
    const next = last && last.ref.index.kind === 'num' ? last.ref.index.value + last.count : undefined;
    if (last && last.ref.name === p.ref.name && at !== undefined && at === next) {
      last.count += 1;
      last.bytes += p.bytes;
    } else runs.push({ ref: p.ref, count: 1, bytes: p.bytes });
  }
  return runs;
}

/** The slots byte runs of one CTA overlap, each once with its bytes over all the runs (a scattered copy). */
