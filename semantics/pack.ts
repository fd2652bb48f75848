// The packed encoding: a MachineState as Int32 words for the explorer's arena and visited
// table. Fixed-size parts come first in a fixed order, variable parts are length-prefixed,
// so equal states give equal words. Violation messages are interned in a side table.
import type { Loc } from '../src/ir/program.ts';
import type { Machine } from './machine.ts';
import { eventWords, type AsyncGroup, type MachineState, type Violation } from './state.ts';

const KINDS: readonly Violation['kind'][] = ['race', 'fifo', 'protocol'];

export class StatePacker {
  private readonly words: number;
  private readonly buf: number[] = [];
  private readonly messages: string[] = [];
  private readonly messageIds = new Map<string, number>();
  private readonly locs: (Loc | undefined)[] = [];

  private readonly m: Machine;

  constructor(m: Machine) {
    this.m = m;
    this.words = eventWords(m);
  }

  encode(s: MachineState): Int32Array {
    const out = this.buf;
    out.length = 0;
    const push = (x: number): void => void out.push(x | 0);
    const list = (xs: readonly number[]): void => {
      push(xs.length);
      for (const x of xs) push(x);
    };
    const fixed = (xs: readonly number[]): void => {
      for (const x of xs) push(x);
    };
    const groups = (gs: readonly AsyncGroup[]): void => {
      push(gs.length);
      for (const g of gs) {
        list(g.slots);
        push(g.retired ? 1 : 0);
        fixed(g.know);
      }
    };
    for (const r of s.roles) {
      push(r.pc);
      fixed(r.vars);
      push(r.steps);
      push(r.barState);
      list(r.mmaOpen);
      groups(r.mmaGroups);
      list(r.storeOpen);
      groups(r.storeGroups);
    }
    fixed(s.arefF);
    fixed(s.arefE);
    fixed(s.slotValue);
    fixed(s.slotGeneric);
    for (const b of s.barriers) {
      push(b.valid);
      push(b.phase);
      push(b.pending);
      push(b.expected);
      push(b.tx);
      push(b.observed);
    }
    fixed(s.namedCount);
    fixed(s.namedThreads);
    push(s.tma.length);
    for (const t of s.tma) {
      push(t.slot);
      push(t.barrier);
      push(t.bytes);
      push(t.value);
      push(t.role);
    }
    fixed(s.hb.present);
    for (const k of s.hb.roles) fixed(k);
    for (const k of s.hb.barPending) fixed(k);
    for (const k of s.hb.barDone) fixed(k);
    for (const k of s.hb.arefSlot) fixed(k);
    for (const k of s.hb.named) fixed(k);
    push(s.asyncDone);
    if (s.violation) {
      push(1 + KINDS.indexOf(s.violation.kind));
      push(this.intern(s.violation.message, s.violation.loc));
      push(s.violation.role);
    } else push(0);
    return Int32Array.from(out);
  }

  decode(w: Int32Array): MachineState {
    let i = 0;
    const next = (): number => w[i++] ?? 0;
    const take = (n: number): number[] => {
      const xs: number[] = [];
      for (let j = 0; j < n; j++) xs.push(next());
      return xs;
    };
    const bits = (): number[] => take(this.words).map((x) => x >>> 0);
    const list = (): number[] => take(next());
    const groups = (): AsyncGroup[] => {
      const n = next();
      const gs: AsyncGroup[] = [];
      for (let j = 0; j < n; j++) gs.push({ slots: list(), retired: next() === 1, know: bits() });
      return gs;
    };
    const m = this.m;
    const roles = m.roles.map((rc) => ({
      pc: next(),
      vars: take(rc.varNames.length),
      steps: next(),
      barState: next(),
      mmaOpen: list(),
      mmaGroups: groups(),
      storeOpen: list(),
      storeGroups: groups(),
    }));
    const namedN = m.usesNamedBarriers ? 16 : 0;
    const arefF = take(m.arefSlotCount);
    const arefE = take(m.arefSlotCount);
    const slotValue = take(m.slotCount);
    const slotGeneric = take(m.slotCount);
    const barriers = m.barrierInit.map(() => ({ valid: next(), phase: next(), pending: next(), expected: next(), tx: next(), observed: next() }));
    const namedCount = take(namedN);
    const namedThreads = take(namedN);
    const tmaCount = next();
    const tma: MachineState['tma'] = [];
    for (let j = 0; j < tmaCount; j++) tma.push({ slot: next(), barrier: next(), bytes: next(), value: next(), role: next() });
    const present = bits();
    const each = (n: number): number[][] => Array.from({ length: n }, () => bits());
    const hb = {
      present,
      roles: each(m.roles.length),
      barPending: each(m.barrierCount),
      barDone: each(m.barrierCount),
      arefSlot: each(m.arefSlotCount),
      named: each(namedN),
    };
    const asyncDone = next();
    const s: MachineState = { roles, arefF, arefE, slotValue, slotGeneric, barriers, namedCount, namedThreads, tma, hb, asyncDone };
    const kind = next();
    if (kind > 0) {
      const id = next();
      const role = next();
      const v: Violation = { kind: KINDS[kind - 1] ?? 'protocol', message: this.messages[id] ?? '?', role };
      const loc = this.locs[id];
      if (loc) v.loc = loc;
      s.violation = v;
    }
    return s;
  }

  private intern(message: string, loc: Loc | undefined): number {
    const key = `${loc ? `${loc.line}:${loc.col}` : ''}|${message}`;
    let id = this.messageIds.get(key);
    if (id === undefined) {
      id = this.messages.length;
      this.messages.push(message);
      this.locs.push(loc);
      this.messageIds.set(key, id);
    }
    return id;
  }
}
