// Plain generic-proxy accesses: ld.shared / st.shared of a buffer slot.
//
// | op              | effect                                                             |
// | read S[s] [= v] | a read ordered after the slot's last write; FIFO check on v        |
// | write S[s], v   | a write ordered after every earlier access; the slot now holds v   |
// | atomic S[s]     | a read-modify-write: ordered as a write, but not after other atomics |
// A generic write followed by an async-proxy read (wgmma, TMA store) needs fence.proxy.async (M13).
import { atomicRace, doAtomic, doRead, doWrite, fifoMismatch, genericMark, readRace, writeRace } from './access.ts';
import { arg, fail, resolve, type OpRules } from './context.ts';
import { READ_GENERIC } from './state.ts';

const read: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    const slot = resolve(ctx, 0);
    const expect = arg(ctx, 0);
    if (slot === undefined || expect === undefined) return;
    const { s, m, r } = ctx;
    const know = s.hb.roles[r] ?? [];
    const race = readRace(m, s, know, slot, `read by ${m.roles[r]?.name}`, false);
    if (race) return fail(ctx, 'race', race);
    const fifo = fifoMismatch(m, s, slot, expect, 'read of');
    if (fifo) return fail(ctx, 'fifo', fifo);
    doRead(m, s, slot, READ_GENERIC, r, know);
  },
};

const write: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    const slot = resolve(ctx, 0);
    const value = arg(ctx, 0);
    if (slot === undefined || value === undefined) return;
    const { s, m, r } = ctx;
    const know = s.hb.roles[r] ?? [];
    const race = writeRace(m, s, know, slot, `write by ${m.roles[r]?.name}`, false, r, value);
    if (race) return fail(ctx, 'race', race);
    doWrite(m, s, slot, value, genericMark(m, r), know);
  },
};

const atomic: OpRules = {
  blockedReason: () => undefined,
  execute(ctx) {
    const slot = resolve(ctx, 0);
    if (slot === undefined) return;
    const { s, m, r } = ctx;
    const know = s.hb.roles[r] ?? [];
    const race = atomicRace(m, s, know, slot, `atomic by ${m.roles[r]?.name}`, r);
    if (race) return fail(ctx, 'race', race);
    doAtomic(m, s, slot, r, know);
  },
};

export const plainRules = { read, write, atomic } as const satisfies Record<string, OpRules>;
