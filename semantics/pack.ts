// The packed encoding: a MachineState as Int32 words for the explorer's arena and visited
// table, laid out by the state schema (layout.ts): fixed-size fields at fixed offsets, the
// lists in a length-prefixed tail, so equal states give equal words. Violation messages are
// interned in a side table.
import type { Loc } from '../src/ir/program.ts';
import type { Machine } from './machine.ts';
import { BAR_EXPECTED, BAR_OBSERVED, BAR_PENDING, BAR_PHASE, BAR_TX, BAR_VALID, ROLE_BAR_STATE, ROLE_PC, ROLE_STEPS, ROLE_VARS, StateLayout } from './layout.ts';
import type { AsyncGroup, MachineState, Violation } from './state.ts';

const KINDS: readonly Violation['kind'][] = ['race', 'fifo', 'protocol'];

export class StatePacker {
  readonly layout: StateLayout;
  private readonly writer = new WordWriter();
  private readonly messages: string[] = [];
  private readonly messageIds = new Map<string, number>();
  private readonly locs: (Loc | undefined)[] = [];

  private readonly m: Machine;

  constructor(m: Machine) {
    this.m = m;
    this.layout = new StateLayout(m);
  }

  /**
   * Forget how many phases past the second each barrier has completed: phase n ≥ 2 becomes
   * 2 + (n & 1), in place. The rules read a phase only as "≥ 1" and by its parity, and the
   * reduction's walks (stuck.ts, lessons.ts) and the missed-phase test (hb.ts `waitMisses`) only
   * by its distance to other phases, which an even shift keeps. States that differ in raw phases
   * alone then store one barrier block (collapse compression). Traces show raw phases: the report
   * replays their actions on readable states (src/verify/raw-trace.ts).
   */
  canonicalPhases(words: Int32Array): Int32Array {
    const L = this.layout;
    for (let b = 0; b < this.m.barrierCount; b++) {
      const at = L.bar(b) + BAR_PHASE;
      const phase = words[at]!;
      if (phase >= 2) words[at] = 2 + (phase & 1);
    }
    return words;
  }

  encode(s: MachineState): Int32Array {
    const L = this.layout;
    const w = this.writer;
    w.n = 0;
    w.reserve(L.fixedWords);
    const o = w.out;
    s.roles.forEach((r, i) => {
      const at = L.role[i]!;
      o[at + ROLE_PC] = r.pc;
      o[at + ROLE_STEPS] = r.steps;
      o[at + ROLE_BAR_STATE] = r.barState;
      w.fixedAt(at + ROLE_VARS, r.vars);
      w.fixedAt(L.tokens[i]!, r.tokens);
    });
    w.fixedAt(L.arefF, s.arefF);
    w.fixedAt(L.arefE, s.arefE);
    w.fixedAt(L.slotValue, s.slotValue);
    w.fixedAt(L.slotGeneric, s.slotGeneric);
    s.barriers.forEach((b, i) => {
      const at = L.bar(i);
      o[at + BAR_VALID] = b.valid;
      o[at + BAR_PHASE] = b.phase;
      o[at + BAR_PENDING] = b.pending;
      o[at + BAR_EXPECTED] = b.expected;
      o[at + BAR_TX] = b.tx;
      o[at + BAR_OBSERVED] = b.observed;
    });
    w.fixedAt(L.namedCount, s.namedCount);
    w.fixedAt(L.namedThreads, s.namedThreads);
    o[L.asyncDone] = s.asyncDone;
    if (s.violation) {
      o[L.violation] = 1 + KINDS.indexOf(s.violation.kind);
      o[L.violation + 1] = this.intern(s.violation.message, s.violation.loc);
      o[L.violation + 2] = s.violation.role;
    } else o.fill(0, L.violation, L.violation + 3);
    w.bitsAt(L.present, s.hb.present);
    s.hb.roles.forEach((k, i) => w.bitsAt(L.hbRoles + L.W * i, k));
    s.hb.barPending.forEach((k, i) => w.bitsAt(L.barPending + L.W * i, k));
    s.hb.barDone.forEach((k, i) => w.bitsAt(L.barDone + L.W * i, k));
    s.hb.arefSlot.forEach((k, i) => w.bitsAt(L.arefSlot + L.W * i, k));
    s.hb.named.forEach((k, i) => {
      if (L.named[i]! >= 0) w.bitsAt(L.named[i]!, k);
    });
    w.n = L.fixedWords;
    w.push(s.tma.length);
    for (const t of s.tma) {
      w.push(t.slot);
      w.push(t.span);
      w.push(t.barrier);
      w.push(t.bytes);
      w.push(t.value);
      w.push(t.role);
    }
    for (const r of s.roles) {
      w.list(r.mmaOpen);
      w.groups(r.mmaGroups);
      w.list(r.storeOpen);
      w.groups(r.storeGroups);
    }
    return w.out.slice(0, w.n);
  }

  decode(w: Int32Array): MachineState {
    // loops and module functions, no closures: tsx names every closure it makes (keepNames), and
    // the reduction decodes every state it expands
    const L = this.layout;
    const m = this.m;
    const tail = new WordReader(w, L.W, L.fixedWords);
    const tmaCount = tail.next();
    const tma: MachineState['tma'] = [];
    for (let j = 0; j < tmaCount; j++) tma.push({ slot: tail.next(), span: tail.next(), barrier: tail.next(), bytes: tail.next(), value: tail.next(), role: tail.next() });
    const roles: MachineState['roles'] = new Array(m.roles.length);
    for (let i = 0; i < m.roles.length; i++) {
      const base = L.role[i]!;
      roles[i] = {
        pc: w[base + ROLE_PC] ?? 0,
        vars: wordsAt(w, base + ROLE_VARS, L.varCount[i]!),
        steps: w[base + ROLE_STEPS] ?? 0,
        barState: w[base + ROLE_BAR_STATE] ?? 0,
        mmaOpen: tail.list(),
        mmaGroups: tail.groups(),
        storeOpen: tail.list(),
        storeGroups: tail.groups(),
        tokens: wordsAt(w, L.tokens[i]!, L.tokenCount[i]!),
      };
    }
    const namedN = L.named.length;
    const barriers: MachineState['barriers'] = new Array(m.barrierInit.length);
    for (let i = 0; i < m.barrierInit.length; i++) {
      const b = L.bar(i);
      barriers[i] = { valid: w[b + BAR_VALID] ?? 0, phase: w[b + BAR_PHASE] ?? 0, pending: w[b + BAR_PENDING] ?? 0, expected: w[b + BAR_EXPECTED] ?? 0, tx: w[b + BAR_TX] ?? 0, observed: w[b + BAR_OBSERVED] ?? 0 };
    }
    const named: number[][] = new Array(namedN);
    for (let id = 0; id < namedN; id++) named[id] = L.named[id]! >= 0 ? bitsAt(w, L.named[id]!, L.W) : [];
    const hb = {
      present: bitsAt(w, L.present, L.W),
      roles: blocksAt(w, L.hbRoles, m.roles.length, L.W),
      barPending: blocksAt(w, L.barPending, m.barrierCount, L.W),
      barDone: blocksAt(w, L.barDone, m.barrierCount, L.W),
      arefSlot: blocksAt(w, L.arefSlot, m.arefSlotCount, L.W),
      named,
    };
    const s: MachineState = {
      roles,
      arefF: wordsAt(w, L.arefF, m.arefSlotCount),
      arefE: wordsAt(w, L.arefE, m.arefSlotCount),
      slotValue: wordsAt(w, L.slotValue, m.slotCount),
      slotGeneric: wordsAt(w, L.slotGeneric, m.slotCount),
      barriers,
      namedCount: wordsAt(w, L.namedCount, namedN),
      namedThreads: wordsAt(w, L.namedThreads, namedN),
      tma,
      hb,
      asyncDone: w[L.asyncDone] ?? 0,
    };
    const kind = w[L.violation] ?? 0;
    if (kind > 0) s.violation = this.violationOf(kind, w[L.violation + 1] ?? 0, w[L.violation + 2] ?? 0);
    return s;
  }

  /** The violation a packed state's three violation words stand for. */
  violationOf(kind: number, id: number, role: number): Violation {
    const v: Violation = { kind: KINDS[kind - 1] ?? 'protocol', message: this.messages[id] ?? '?', role };
    const loc = this.locs[id];
    if (loc) v.loc = loc;
    return v;
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

/** n words of w from `start`, as numbers. */
function wordsAt(w: Int32Array, start: number, n: number): number[] {
  const xs = new Array<number>(n);
  for (let j = 0; j < n; j++) xs[j] = w[start + j]!;
  return xs;
}

/** A knowledge of W words from `start`, unsigned. */
function bitsAt(w: Int32Array, start: number, W: number): number[] {
  const xs = new Array<number>(W);
  for (let j = 0; j < W; j++) xs[j] = w[start + j]! >>> 0;
  return xs;
}

/** n knowledges of W words each from `start`. */
function blocksAt(w: Int32Array, start: number, n: number, W: number): number[][] {
  const out = new Array<number[]>(n);
  for (let i = 0; i < n; i++) out[i] = bitsAt(w, start + W * i, W);
  return out;
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

  /** Make room for n words from the start (the fixed part, written by offset). */
  reserve(n: number): void {
    if (this.out.length < n) this.out = new Int32Array(Math.max(n, 2 * this.out.length));
  }

  /** Write xs at a fixed offset (inside the reserved part); the range check of push applies. */
  fixedAt(at: number, xs: readonly number[]): void {
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      if ((x | 0) !== x) throw new RangeError(`state field ${x} does not fit the packed state's 32-bit words`);
      this.out[at + i] = x;
    }
  }

  /** Knowledge words at a fixed offset: unsigned, stored as their Int32 bit pattern. */
  bitsAt(at: number, xs: readonly number[]): void {
    for (let i = 0; i < xs.length; i++) this.out[at + i] = xs[i]! | 0;
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
  private i: number;
  private readonly w: Int32Array;
  private readonly bitWords: number;

  constructor(w: Int32Array, bitWords: number, start: number) {
    this.w = w;
    this.bitWords = bitWords;
    this.i = start;
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
