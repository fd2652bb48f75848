// Level 1: the aref rules of Tawa (DESIGN.md "Semantics, level 1"), σ(a) = ⟨buf, F, E⟩.
//
// | rule        | premise                    | effect                    |
// | put(a, v)   | E = 1 (else blocks)        | buf := v, F := 1, E := 0  |
// | get(a)      | F = 1 (else blocks)        | F := 0, E := 0 → buf      |
// | consumed(a) | strict: borrowed (F=E=0)   | F := 0, E := 1            |
//
// Happens-before: put releases into the slot and get acquires from it (put → get);
// consumed releases and the next put acquires (consumed → put).
import { doRead, doWrite, fifoMismatch, readRace, writeRace } from './access.ts';
import { arg, fail, peekResolve, resolve, type OpCtx, type OpRules } from './context.ts';
import { orInto } from './hb.ts';
import { NO_VALUE } from './machine.ts';
import { READ_GENERIC } from './state.ts';

export function slotText(ctx: OpCtx, slot: number): string {
  const v = ctx.s.slotValue[slot];
  return `⟨${v === undefined || v === NO_VALUE ? '⊥' : v}, ${ctx.s.arefF[slot]}, ${ctx.s.arefE[slot]}⟩`;
}

const put: OpRules = {
  isBlocked(ctx) {
    const a = peekResolve(ctx, 0);
    return a !== undefined && ctx.s.arefE[a] !== 1;
  },
  blockedReason(ctx) {
    const a = peekResolve(ctx, 0);
    if (a === undefined || ctx.s.arefE[a] === 1) return undefined;
    return `put ${ctx.m.slotNames[a]} needs E = 1; σ(${ctx.m.slotNames[a]}) = ${slotText(ctx, a)}`;
  },
  execute(ctx) {
    const a = resolve(ctx, 0);
    const value = arg(ctx, 0);
    if (a === undefined || value === undefined) return;
    const { s, m, r } = ctx;
    const know = s.hb.roles[r] ?? [];
    orInto(know, s.hb.arefSlot[a] ?? []);
    const race = writeRace(m, s, know, a, `put into it by ${m.roles[r]?.name}`, false, r);
    if (race) return fail(ctx, 'race', race);
    doWrite(m, s, a, value, 0, know);
    s.arefF[a] = 1;
    s.arefE[a] = 0;
    orInto(s.hb.arefSlot[a] ?? [], know);
  },
};

const get: OpRules = {
  isBlocked(ctx) {
    const a = peekResolve(ctx, 0);
    return a !== undefined && ctx.s.arefF[a] !== 1;
  },
  blockedReason(ctx) {
    const a = peekResolve(ctx, 0);
    if (a === undefined || ctx.s.arefF[a] === 1) return undefined;
    return `get ${ctx.m.slotNames[a]} needs F = 1; σ(${ctx.m.slotNames[a]}) = ${slotText(ctx, a)}`;
  },
  execute(ctx) {
    const a = resolve(ctx, 0);
    const expect = arg(ctx, 0);
    if (a === undefined || expect === undefined) return;
    const { s, m, r } = ctx;
    const know = s.hb.roles[r] ?? [];
    orInto(know, s.hb.arefSlot[a] ?? []);
    const race = readRace(m, s, know, a, `get by ${m.roles[r]?.name}`, false);
    if (race) return fail(ctx, 'race', race);
    const fifo = fifoMismatch(m, s, a, expect, 'get');
    if (fifo) return fail(ctx, 'fifo', fifo);
    doRead(m, s, a, READ_GENERIC, r, know);
    s.arefF[a] = 0;
    s.arefE[a] = 0;
  },
};

const consumed: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    const a = resolve(ctx, 0);
    if (a === undefined) return;
    const { s, m, r } = ctx;
    const borrowed = s.arefF[a] === 0 && s.arefE[a] === 0;
    if (!borrowed && !m.literal)
      return fail(ctx, 'protocol', `consumed ${m.slotNames[a]} on a slot that is not borrowed: σ = ${slotText(ctx, a)} (it would let the producer overwrite unread data)`);
    orInto(s.hb.arefSlot[a] ?? [], s.hb.roles[r] ?? []);
    s.arefF[a] = 0;
    s.arefE[a] = 1;
  },
};

export const arefRules = { put, get, consumed } as const;
