// The packed encoding: a MachineState as Int32 words for the explorer's arena and visited
// table. Fixed-size parts come first in a fixed order, variable parts are length-prefixed,
// so equal states give equal words. Violation messages are interned in a side table.
import type { Loc } from '../src/ir/program.ts';
import type { Machine } from './machine.ts';
import { eventWords, type AsyncGroup, type MachineState, type Violation } from './state.ts';

const KINDS: readonly Violation['kind'][] = ['race', 'fifo', 'protocol'];

export class StatePacker {
  private readonly words: number;
  private readonly writer = new WordWriter();
  private readonly messages: string[] = [];
  private readonly messageIds = new Map<string, number>();
  private readonly locs: (Loc | undefined)[] = [];

  private readonly m: Machine;

  constructor(m: Machine) {
    this.m = m;
    this.words = eventWords(m);
  }

  encode(s: MachineState): Int32Array {
    const w = this.writer;
    w.n = 0;
    for (const r of s.roles) {
      w.push(r.pc);
      w.fixed(r.vars);
      w.push(r.steps);
      w.push(r.barState);
      w.list(r.mmaOpen);
      w.groups(r.mmaGroups);
      w.list(r.storeOpen);
      w.groups(r.storeGroups);
      w.fixed(r.tokens);
    }
    w.fixed(s.arefF);
    w.fixed(s.arefE);
    w.fixed(s.slotValue);
    w.fixed(s.slotGeneric);
    for (const b of s.barriers) {
      w.push(b.valid);
      w.push(b.phase);
      w.push(b.pending);
      w.push(b.expected);
      w.push(b.tx);
      w.push(b.observed);
    }
    w.fixed(s.namedCount);
    w.fixed(s.namedThreads);
    w.push(s.tma.length);
    for (const t of s.tma) {
      w.push(t.slot);
      w.push(t.span);
      w.push(t.barrier);
      w.push(t.bytes);
      w.push(t.value);
      w.push(t.role);
    }
    w.bits(s.hb.present);
    for (const k of s.hb.roles) w.bits(k);
    for (const k of s.hb.barPending) w.bits(k);
    for (const k of s.hb.barDone) w.bits(k);
    for (const k of s.hb.arefSlot) w.bits(k);
    for (const k of s.hb.named) w.bits(k);
    w.push(s.asyncDone);
    if (s.violation) {
      w.push(1 + KINDS.indexOf(s.violation.kind));
      w.push(this.intern(s.violation.message, s.violation.loc));
      w.push(s.violation.role);
    } else w.push(0);
    return w.out.slice(0, w.n);
  }

  decode(w: Int32Array): MachineState {
    const r = new WordReader(w, this.words);
    const m = this.m;
    const roles = m.roles.map((rc) => ({
      pc: r.next(),
      vars: r.take(rc.varNames.length),
      steps: r.next(),
      barState: r.next(),
      mmaOpen: r.list(),
      mmaGroups: r.groups(),
      storeOpen: r.list(),
      storeGroups: r.groups(),
      tokens: r.take(rc.tokenNames.length),
    }));
    const namedN = m.usesNamedBarriers ? m.namedBarriers : 0;
    const arefF = r.take(m.arefSlotCount);
    const arefE = r.take(m.arefSlotCount);
    const slotValue = r.take(m.slotCount);
    const slotGeneric = r.take(m.slotCount);
    const barriers = m.barrierInit.map(() => ({ valid: r.next(), phase: r.next(), pending: r.next(), expected: r.next(), tx: r.next(), observed: r.next() }));
    const namedCount = r.take(namedN);
    const namedThreads = r.take(namedN);
    const tmaCount = r.next();
    const tma: MachineState['tma'] = [];
    for (let j = 0; j < tmaCount; j++) tma.push({ slot: r.next(), span: r.next(), barrier: r.next(), bytes: r.next(), value: r.next(), role: r.next() });
    const present = r.bits();
    const hb = {
      present,
      roles: r.eachBits(m.roles.length),
      barPending: r.eachBits(m.barrierCount),
      barDone: r.eachBits(m.barrierCount),
      arefSlot: r.eachBits(m.arefSlotCount),
      named: Array.from({ length: namedN }, (_, id) => (m.namedUsed[id] ? r.bits() : [])),
    };
    const asyncDone = r.next();
    const s: MachineState = { roles, arefF, arefE, slotValue, slotGeneric, barriers, namedCount, namedThreads, tma, hb, asyncDone };
    const kind = r.next();
    if (kind > 0) {
      const id = r.next();
      const role = r.next();
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

/** Appends words to a reused scratch array (no closures per call: the encoder is on the hot path). */
class WordWriter {
  out = new Int32Array(256);
  n = 0;

  push(x: number): void {
    // an Int32 word would wrap silently: refuse instead (semantics' arg() names the op for value tags)
    if ((x | 0) !== x) throw new RangeError(`state field ${x} does not fit the packed state's 32-bit words`);
    if (this.n === this.out.length) {
      const bigger = new Int32Array(this.out.length * 2);
      bigger.set(this.out);
      this.out = bigger;
    }
    this.out[this.n++] = x;
  }

  fixed(xs: readonly number[]): void {
    for (let i = 0; i < xs.length; i++) this.push(xs[i]!);
  }

  /** Knowledge words are unsigned 32-bit: stored as their Int32 bit pattern, read back with `>>> 0`. */
  bits(xs: readonly number[]): void {
    for (let i = 0; i < xs.length; i++) this.push(xs[i]! | 0);
  }

  list(xs: readonly number[]): void {
    this.push(xs.length);
    this.fixed(xs);
  }

  groups(gs: readonly AsyncGroup[]): void {
    this.push(gs.length);
    for (const g of gs) {
      this.list(g.slots);
      this.push(g.retired ? 1 : 0);
      this.bits(g.know);
    }
  }
}

/** Reads words back in the order WordWriter wrote them. */
class WordReader {
  private i = 0;
  private readonly w: Int32Array;
  private readonly bitWords: number;

  constructor(w: Int32Array, bitWords: number) {
    this.w = w;
    this.bitWords = bitWords;
  }

  next(): number {
    return this.w[this.i++] ?? 0;
  }

  take(n: number): number[] {
    const xs = new Array<number>(n);
    for (let j = 0; j < n; j++) xs[j] = this.w[this.i++] ?? 0;
    return xs;
  }

  /** A knowledge bitset: words as unsigned numbers. */
  bits(): number[] {
    const xs = new Array<number>(this.bitWords);
    for (let j = 0; j < this.bitWords; j++) xs[j] = (this.w[this.i++] ?? 0) >>> 0;
    return xs;
  }

  eachBits(n: number): number[][] {
    const out: number[][] = [];
    for (let j = 0; j < n; j++) out.push(this.bits());
    return out;
  }

  list(): number[] {
    return this.take(this.next());
  }

  groups(): AsyncGroup[] {
    const n = this.next();
    const gs: AsyncGroup[] = [];
    for (let j = 0; j < n; j++) gs.push({ slots: this.list(), retired: this.next() === 1, know: this.bits() });
    return gs;
  }
}
