// Asynchronous units: TMA copies and wgmma (reference/ptx-mbarrier.md §2, §3).
//
// | op / unit action   | effect                                                                    |
// | tma.load S[s] → b  | checks the write against HB, then the copy is in flight                  |
// | (TMA lands)        | slot := value; complete_tx(bytes) on b, which releases the write only     |
// | tma.store S[s]     | an async read of the slot, outstanding until bulk.wait retires its group  |
// | wgmma.issue S[s]   | an async read of the slot, outstanding until wgmma.wait retires its group |
// | wgmma.commit       | the open issues become one group (an empty group is allowed)              |
// | (group retires)    | groups of a role retire in commit order; the reads are then complete      |
// |                    | (warpgroup partners: the oldest group of each retires at once, when all  |
// |                    | have one: one wgmma.mma_async is an operation of the whole warpgroup)    |
// | wgmma.wait N       | blocks until ≤ N groups are outstanding; acquires the older groups' reads |
// The issuing role learns a read is complete only through the wait: releasing a slot before
// it (M6) lets the next TMA write race with the read.
import { doRead, doWrite, fifoMismatch, readRace, writeRace } from './access.ts';
import { arg, fail, peekArg, peekIndex, resolve, type OpCtx, type OpRules } from './context.ts';
import { emptyKnowledge, orInto } from './hb.ts';
import { NO_VALUE, type Machine } from './machine.ts';
import { completeIfDone } from './mbarrier.ts';
import { READ_STORE, READ_WGMMA, eventWords, type AsyncGroup, type MachineState, type RoleState } from './state.ts';

type Unit = 'mma' | 'store';
const open = (rs: RoleState, u: Unit): number[] => (u === 'mma' ? rs.mmaOpen : rs.storeOpen);
const groups = (rs: RoleState, u: Unit): AsyncGroup[] => (u === 'mma' ? rs.mmaGroups : rs.storeGroups);

function issueRead(ctx: OpCtx, u: Unit, what: string): void {
  const slot = resolve(ctx, 0);
  const expect = u === 'mma' ? arg(ctx, 0) : NO_VALUE;
  if (slot === undefined || expect === undefined) return;
  const { s, m, r } = ctx;
  const rs = s.roles[r];
  if (!rs) return;
  const race = readRace(m, s, s.hb.roles[r] ?? [], slot, `${what} by ${m.roles[r]?.name}`, true, u === 'mma' ? r : undefined);
  if (race) return fail(ctx, 'race', race);
  const fifo = fifoMismatch(m, s, slot, expect, what);
  if (fifo) return fail(ctx, 'fifo', fifo);
  open(rs, u).push(slot);
}

function commit(m: Machine, s: MachineState, r: number, u: Unit): void {
  const rs = s.roles[r];
  if (!rs) return;
  groups(rs, u).push({ slots: open(rs, u).splice(0), retired: false, know: emptyKnowledge(eventWords(m)) });
}

/** The committed groups of role rs's unit not yet retired: what `wgmma.wait N` / `bulk.wait N` compare with N. */
export function outstanding(rs: RoleState, u: Unit): number {
  return groups(rs, u).filter((g) => !g.retired).length;
}

function waitRules(u: Unit, name: string): OpRules {
  return {
    isBlocked(ctx) {
      const n = peekArg(ctx, 0);
      const rs = ctx.s.roles[ctx.r];
      return rs !== undefined && !Number.isNaN(n) && outstanding(rs, u) > n;
    },
    blockedReason(ctx) {
      const n = peekArg(ctx, 0);
      const rs = ctx.s.roles[ctx.r];
      if (!rs || Number.isNaN(n) || outstanding(rs, u) <= n) return undefined;
      const base = `${name} ${n} needs at most ${n} outstanding group${n === 1 ? '' : 's'}; ${outstanding(rs, u)} outstanding`;
      // a group of a warpgroup retires only once every partner has committed it
      const behind = unitRoles(ctx.m, ctx.r, u).filter((q) => q !== ctx.r && !hasOutstanding(ctx.s.roles[q], u));
      return behind.length === 0 ? base : `${base} (one warpgroup operation: ${behind.map((q) => ctx.m.roles[q]?.name).join(', ')} ${behind.length === 1 ? 'has' : 'have'} not committed it)`;
    },
    execute(ctx) {
      const n = arg(ctx, 0);
      const rs = ctx.s.roles[ctx.r];
      if (n === undefined || !rs) return;
      if (!Number.isInteger(n) || n < 0) return fail(ctx, 'protocol', `${name} ${n}: the pending count must be a non-negative integer`);
      const gs = groups(rs, u);
      const covered = gs.splice(0, Math.max(0, gs.length - n));
      const know = ctx.s.hb.roles[ctx.r] ?? [];
      for (const g of covered) orInto(know, g.know);
    },
  };
}

const tmaLoad: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    const slot = resolve(ctx, 0);
    const b = resolve(ctx, 1);
    const bytes = arg(ctx, 0);
    const value = arg(ctx, 1);
    const slots = arg(ctx, 2);
    if (slot === undefined || b === undefined || bytes === undefined || value === undefined || slots === undefined) return;
    const { s, m, r } = ctx;
    const span = slots === NO_VALUE ? 1 : slots;
    const ref = ctx.instr.refs[0];
    const first = peekIndex(ctx, 0);
    if (!Number.isInteger(span) || span < 1 || (ref && first + span > ref.res.size))
      return fail(ctx, 'protocol', `tma.load fills ${span} slots from ${m.slotNames[slot]}, past the end of ${ref?.res.name}[${ref?.res.size}]`);
    if (!s.barriers[b]?.valid) return fail(ctx, 'protocol', `tma.load signals ${m.barrierNames[b]}, which is not initialised`);
    if (!Number.isInteger(bytes) || bytes < 0) return fail(ctx, 'protocol', `tma.load byte count ${bytes} is not a non-negative integer`);
    for (let i = slot; i < slot + span; i++) {
      const race = writeRace(m, s, s.hb.roles[r] ?? [], i, `tma.load into it by ${m.roles[r]?.name}`, true, r);
      if (race) return fail(ctx, 'race', race);
    }
    s.tma.push({ slot, span, barrier: b, bytes, value, role: r });
  },
};

/** The TMA unit action: copy `i` lands, writes its slot and performs complete_tx on its barrier. */
export function landTma(m: Machine, s: MachineState, i: number): void {
  const [t] = s.tma.splice(i, 1);
  if (!t) return;
  s.asyncDone += 1;
  const pending = s.hb.barPending[t.barrier] ?? [];
  // complete_tx releases only the copy's own write (PTX §8.9.1.1), not the issuer's earlier accesses
  for (let i = t.slot; i < t.slot + t.span; i++) doWrite(m, s, i, t.value, 0, pending);
  const bar = s.barriers[t.barrier];
  if (!bar?.valid) {
    s.violation = { kind: 'protocol', message: `a TMA copy into ${m.slotNames[t.slot]} landed on ${m.barrierNames[t.barrier]}, which is not initialised`, role: t.role };
    return;
  }
  bar.tx -= t.bytes;
  completeIfDone(m, s, t.barrier);
}

/**
 * The async unit action: the oldest outstanding group of role r retires; its reads are complete.
 * A wgmma group of warpgroup partners retires in each of them (r is the first partner).
 */
export function retireGroup(m: Machine, s: MachineState, r: number, u: Unit): void {
  const members = unitRoles(m, r, u);
  s.asyncDone += 1;
  const retired: AsyncGroup[] = [];
  for (const q of members) {
    const rs = s.roles[q];
    const g = rs ? groups(rs, u).find((x) => !x.retired) : undefined;
    if (!g) continue;
    g.retired = true;
    for (const slot of g.slots) doRead(m, s, slot, u === 'mma' ? READ_WGMMA : READ_STORE, q, g.know);
    retired.push(g);
  }
  // one operation: a partner's wait acquires the completion of every partner's reads
  if (retired.length > 1) {
    const all = emptyKnowledge(eventWords(m));
    for (const g of retired) orInto(all, g.know);
    for (const g of retired) g.know = all.slice();
  }
}

/** The roles whose groups role r's unit retires, in role order: its warpgroup's for wgmma, else r alone. */
export function unitRoles(m: Machine, r: number, u: Unit): readonly number[] {
  return u === 'mma' ? (m.mmaPartners[r] ?? [r]) : [r];
}

export function hasOutstanding(rs: RoleState | undefined, u: Unit): boolean {
  return rs !== undefined && groups(rs, u).some((g) => !g.retired);
}

/** Whether the unit of role r can retire a group: it has one, and for a warpgroup's wgmma r is its first role and every partner has one too. */
export function canRetire(m: Machine, s: MachineState, r: number, u: Unit): boolean {
  const members = unitRoles(m, r, u);
  return members[0] === r && members.every((q) => hasOutstanding(s.roles[q], u));
}

export const asyncRules = {
  'tma.load': tmaLoad,
  'tma.store': { blockedReason: () => undefined, execute: (ctx: OpCtx) => issueRead(ctx, 'store', 'tma.store') },
  'bulk.commit': { blockedReason: () => undefined, execute: (ctx: OpCtx) => commit(ctx.m, ctx.s, ctx.r, 'store') },
  'bulk.wait': waitRules('store', 'bulk.wait'),
  'wgmma.issue': {
    blockedReason: () => undefined,
    execute(ctx: OpCtx) {
      issueRead(ctx, 'mma', 'wgmma.issue reading');
      if (!ctx.s.violation && ctx.instr.op.kind === 'wgmma.issue' && ctx.instr.op.commit) commit(ctx.m, ctx.s, ctx.r, 'mma');
    },
  },
  'wgmma.commit': { blockedReason: () => undefined, execute: (ctx: OpCtx) => commit(ctx.m, ctx.s, ctx.r, 'mma') },
  'wgmma.wait': waitRules('mma', 'wgmma.wait'),
} as const satisfies Record<string, OpRules>;
