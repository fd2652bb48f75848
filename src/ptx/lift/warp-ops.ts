// One warp's events → Program operations with concrete operands (docs/ptx.md, "mapping").
import { num } from '../../ir/expr.ts';
import type { Loc, Op, Ref } from '../../ir/program.ts';
import type { WarpEvent } from './events.ts';
import type { ResourceMap } from './resources.ts';

export interface WarpOp {
  readonly op: Op;
  readonly loc: Loc;
  /**
   * Executed by the whole warp together (waits, wgmma, named barriers, fences, generic
   * accesses); the others are single-issuer ops of one or a few threads (convention:
   * init/arrive/expect_tx/complete_tx/TMA/bulk groups/inval).
   */
  readonly collective: boolean;
}

function sameRef(a: Ref, b: Ref): boolean {
  return a.name === b.name && a.index.kind === 'num' && b.index.kind === 'num' && a.index.value === b.index.value;
}

function inAccessRun(ops: readonly WarpOp[], kind: 'read' | 'write', ref: Ref): boolean {
  for (let i = ops.length - 1; i >= 0; i--) {
    const op = ops[i]?.op;
    if (!op || (op.kind !== 'read' && op.kind !== 'write')) return false;
    if (op.kind === kind && sameRef(op.target, ref)) return true;
  }
  return false;
}

export function warpOps(events: readonly WarpEvent[], res: ResourceMap, blockThreads: number): WarpOp[] {
  const out: WarpOp[] = [];
  const local = (op: Op, loc: Loc): void => {
    out.push({ op, loc, collective: false });
  };
  const collective = (op: Op, loc: Loc): void => {
    out.push({ op, loc, collective: true });
  };
  let issued: Ref[] = [];
  for (const e of events) {
    const loc = e.loc;
    switch (e.k) {
      case 'init':
        for (let i = 0; i < e.threads; i++) local({ kind: 'init', target: res.barrier(e.bar), count: num(e.count) }, loc);
        break;
      case 'inval':
        for (let i = 0; i < e.threads; i++) local({ kind: 'inval', target: res.barrier(e.bar) }, loc);
        break;
      case 'arrive':
        local({ kind: 'arrive', target: res.barrier(e.bar), count: num(e.count) }, loc);
        break;
      case 'arrive.expect_tx':
        if (e.threads === 1) {
          local({ kind: 'arrive.expect_tx', target: res.barrier(e.bar), bytes: num(e.bytes) }, loc);
        } else {
          local({ kind: 'expect_tx', target: res.barrier(e.bar), bytes: num(e.bytes * e.threads) }, loc);
          local({ kind: 'arrive', target: res.barrier(e.bar), count: num(e.threads) }, loc);
        }
        break;
      case 'expect_tx':
      case 'complete_tx':
        local({ kind: e.k, target: res.barrier(e.bar), bytes: num(e.bytes) }, loc);
        break;
      case 'wait':
        collective({ kind: 'wait', target: res.barrier(e.bar), parity: num(e.parity) }, loc);
        break;
      case 'tma.load': {
        const bytes = e.bytes ?? 0;
        const pieces = res.slots(e.dst, e.dst + bytes);
        const barrier = res.barrier(e.bar);
        for (const p of pieces) {
          const value = e.src && bytes > 0 && e.src.offset % bytes === 0 && pieces.length === 1 ? { value: num(e.src.offset / bytes) } : {};
          for (let i = 0; i < e.copies; i++) local({ kind: 'tma.load', target: p.ref, barrier, bytes: num(p.bytes), ...value }, loc);
        }
        break;
      }
      case 'tma.store':
        for (const p of res.slots(e.src, e.src + (e.bytes ?? 1))) local({ kind: 'tma.store', target: p.ref }, loc);
        break;
      case 'bulk.commit':
        local({ kind: 'bulk.commit' }, loc);
        break;
      case 'bulk.wait':
        local({ kind: 'bulk.wait', pending: num(e.pending) }, loc);
        break;
      case 'mma':
        for (const a of e.addrs) {
          for (const p of res.slots(a, a + 1)) {
            if (issued.some((r) => sameRef(r, p.ref))) continue;
            issued.push(p.ref);
            collective({ kind: 'wgmma.issue', target: p.ref, commit: false }, loc);
          }
        }
        break;
      case 'wgmma.commit':
        issued = [];
        collective({ kind: 'wgmma.commit' }, loc);
        break;
      case 'wgmma.wait':
        collective({ kind: 'wgmma.wait', pending: num(e.pending) }, loc);
        break;
      case 'bar.sync':
      case 'bar.arrive':
        collective({ kind: e.k, id: num(e.id), threads: num(e.threads ?? blockThreads) }, loc);
        break;
      case 'fence.proxy.async':
        collective({ kind: 'fence.proxy.async' }, loc);
        break;
      case 'read':
      case 'write':
        for (const p of res.slots(e.lo, e.hi)) {
          // in a run of generic accesses with no synchronization between them, order does not
          // matter: one read (write) per slot stands for the run (a loop of loads over a slot)
          if (inAccessRun(out, e.k, p.ref)) continue;
          collective({ kind: e.k, target: p.ref }, loc);
        }
        break;
    }
  }
  return out;
}
