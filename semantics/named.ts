// Named barriers and the proxy fence (reference/ptx-mbarrier.md §4.1, §4.4).
//
// | op                | effect                                                                       |
// | bar.sync id, n    | the role's warps × 32 threads arrive; the role waits until n threads arrived, then leaves (two steps, the last arriver's too) |
// | bar.arrive id, n  | the threads arrive and go on                                                 |
// | (n threads in)    | the barrier completes and re-arms; every waiter acquires all arrivals        |
// | fence.proxy.async | generic writes and reads the role knows of are ordered before later async-proxy accesses |
// Errors: id outside 0..15 (or the program's declared count), n not a positive multiple of 32, arrivals disagreeing on n or exceeding it.
import { arg, fail, peekArg, type OpCtx, type OpRules } from './context.ts';
import { freshEvent, has, isPresent, orInto, setBit, type Knowledge } from './hb.ts';
import { BAR_FREE, BAR_RELEASED, BAR_WAITING, READ_ATOMIC, READ_GENERIC, fenceEvent, readEvent, readFenceEvent, writeEvent, type MachineState } from './state.ts';
import type { Machine } from './machine.ts';

function currentBarId(m: Machine, s: MachineState, r: number): number | undefined {
  const rs = s.roles[r];
  const instr = rs ? m.roles[r]?.code[rs.pc] : undefined;
  if (!rs || !instr || instr.kind !== 'op' || instr.op.kind !== 'bar.sync') return undefined;
  try {
    return instr.args[0]?.(rs.vars);
  } catch {
    return undefined;
  }
}

/** Arrive `ctx.r`'s threads at named barrier id; true when that completed the barrier. */
function arriveNamed(ctx: OpCtx): { id: number; completed: boolean } | undefined {
  const id = arg(ctx, 0);
  const n = arg(ctx, 1);
  if (id === undefined || n === undefined) return undefined;
  const { s, m, r } = ctx;
  if (!Number.isInteger(id) || id < 0 || id >= m.namedBarriers) {
    fail(ctx, 'protocol', `named barrier id ${id} outside 0..${m.namedBarriers - 1}`);
    return undefined;
  }
  if (!Number.isInteger(n) || n <= 0 || n % 32 !== 0) {
    fail(ctx, 'protocol', `named barrier ${id}: thread count ${n} is not a positive multiple of 32`);
    return undefined;
  }
  const threads = (m.roles[r]?.warps ?? 1) * 32;
  const opened = s.namedThreads[id] ?? 0;
  if (opened !== 0 && opened !== n) {
    fail(ctx, 'protocol', `named barrier ${id}: arrival expects ${n} threads but the barrier was opened for ${opened}`);
    return undefined;
  }
  const count = (s.namedCount[id] ?? 0) + threads;
  if (count > n) {
    fail(ctx, 'protocol', `named barrier ${id}: ${count} threads arrived, more than the ${n} it synchronises`);
    return undefined;
  }
  s.namedThreads[id] = n;
  s.namedCount[id] = count;
  orInto(s.hb.named[id] ?? [], s.hb.roles[r] ?? []);
  if (count < n) return { id, completed: false };
  // complete: every waiter acquires every arrival (done now: a waiter does nothing until it resumes)
  const all = s.hb.named[id] ?? [];
  for (let w = 0; w < s.roles.length; w++) {
    const ws = s.roles[w];
    if (ws?.barState === BAR_WAITING && currentBarId(m, s, w) === id) {
      orInto(s.hb.roles[w] ?? [], all);
      ws.barState = BAR_RELEASED;
    }
  }
  // the last arriver acquires too when it waits (bar.sync); bar.arrive only releases (PTX §9.7.13.1)
  if (ctx.instr.op.kind === 'bar.sync') orInto(s.hb.roles[r] ?? [], all);
  s.namedCount[id] = 0;
  s.namedThreads[id] = 0;
  all.fill(0);
  return { id, completed: true };
}

/** bar.sync takes two steps: arrive (then wait), and leave once released. */
export function barSyncBlocked(ctx: OpCtx): string | undefined {
  const rs = ctx.s.roles[ctx.r];
  if (rs?.barState !== BAR_WAITING) return undefined;
  const id = peekArg(ctx, 0);
  const n = peekArg(ctx, 1);
  return `waits at named barrier ${id}: ${ctx.s.namedCount[id] ?? 0} of ${n} threads arrived`;
}

const barSync: OpRules = {
  isBlocked: (ctx) => ctx.s.roles[ctx.r]?.barState === BAR_WAITING,
  blockedReason: barSyncBlocked,
  execute(ctx) {
    const rs = ctx.s.roles[ctx.r];
    if (!rs) return;
    if (rs.barState === BAR_RELEASED) {
      rs.barState = BAR_FREE;
      return;
    }
    // the last arriver is released like every waiter and leaves in a step of its own, so the state
    // after a generation completes does not depend on who arrived last (arrivals commute: ample.ts)
    const res = arriveNamed(ctx);
    if (res) rs.barState = res.completed ? BAR_RELEASED : BAR_WAITING;
  },
};

const barArrive: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    arriveNamed(ctx);
  },
};

const fenceProxyAsync: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    const { s, m, r } = ctx;
    const know = s.hb.roles[r] ?? [];
    for (let slot = 0; slot < m.slotCount; slot++) {
      const w = writeEvent(m, slot);
      // only the role's first fence after the write is an event: a later one is ordered after it, so an
      // agent that learns of the later one knows the first; refreshing it would erase what others learned
      const f = fenceEvent(m, slot, r);
      if (s.slotGeneric[slot] !== 0 && isPresent(s, w) && has(know, w) && !isPresent(s, f)) freshEvent(s, f, know);
      // and the generic reads it knows of are fenced: the bit "a fence follows q's last read" is set
      // in the fencer's knowledge and travels with it (not a fresh event: several roles may fence
      // after one read, and whoever learns of any of those fences may overwrite the slot)
      for (let q = 0; q < m.roles.length; q++) {
        const rf = readFenceEvent(m, slot, q);
        if (fencedAccess(m, s, know, slot, q)) {
          setBit(s.hb.present, rf);
          setBit(know, rf);
        }
      }
    }
  },
};

/** q's last generic accesses of the slot (a read, an atomic) are present, and the fencer knows every one of them. */
function fencedAccess(m: Machine, s: MachineState, know: Knowledge, slot: number, q: number): boolean {
  const rd = readEvent(m, slot, READ_GENERIC, q);
  const ra = readEvent(m, slot, READ_ATOMIC, q);
  const read = isPresent(s, rd);
  const atomic = isPresent(s, ra);
  return (read || atomic) && (!read || has(know, rd)) && (!atomic || has(know, ra));
}

/** True when the role's current bar.sync has arrived and not yet left (the op stays at pc). */
export function staysAtBarrier(s: MachineState, r: number): boolean {
  return (s.roles[r]?.barState ?? BAR_FREE) !== BAR_FREE;
}

export const namedRules = {
  'bar.sync': barSync,
  'bar.arrive': barArrive,
  'fence.proxy.async': fenceProxyAsync,
} as const satisfies Record<string, OpRules>;
