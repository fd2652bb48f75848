// The state schema: where each field of a MachineState lives in its packed words. One layout per
// Machine drives the readable encoder (pack.ts) and the packed successor generator (packed.ts),
// so the two cannot disagree on an offset. Every fixed-size field sits at a fixed offset; the
// lists whose length the run decides (copies in flight, open reads and committed groups of the
// async units) follow in a tail, length-prefixed, so equal states give equal words.
//
// fixed part:  per role [pc, steps, barState, vars…, tokens…]
//              arefF[A], arefE[A], slotValue[S], slotGeneric[S]
//              per barrier [valid, phase, pending, expected, tx, observed]
//              namedCount[N], namedThreads[N], asyncDone, violation [kind, message id, role]
//              knowledge: present, then the holders, W words each: roles, barPending, barDone,
//              arefSlot, the named barriers some op names
// tail:        tma count, per copy [slot, span, barrier, bytes, value, role]
//              per role: mmaOpen, mmaGroups, storeOpen, storeGroups, where a list is
//              [n, items…] and a group [n, slots…, retired, know (W words)]
import type { Machine } from './machine.ts';
import { eventWords } from './state.ts';

/** Words per barrier and their order. */
export const BAR_WORDS = 6;
export const BAR_VALID = 0;
export const BAR_PHASE = 1;
export const BAR_PENDING = 2;
export const BAR_EXPECTED = 3;
export const BAR_TX = 4;
export const BAR_OBSERVED = 5;

/** Words per copy in flight and their order. */
export const TMA_WORDS = 6;
export const TMA_SLOT = 0;
export const TMA_SPAN = 1;
export const TMA_BARRIER = 2;
export const TMA_BYTES = 3;
export const TMA_VALUE = 4;
export const TMA_ROLE = 5;

/** Offsets inside a role's fixed block. */
export const ROLE_PC = 0;
export const ROLE_STEPS = 1;
export const ROLE_BAR_STATE = 2;
export const ROLE_VARS = 3;

export class StateLayout {
  /** knowledge words per holder */
  readonly W: number;
  readonly roleCount: number;
  /** first word of each role's fixed block */
  readonly role: Int32Array;
  /** first token word of each role */
  readonly tokens: Int32Array;
  readonly varCount: Int32Array;
  readonly tokenCount: Int32Array;
  readonly arefF: number;
  readonly arefE: number;
  readonly slotValue: number;
  readonly slotGeneric: number;
  readonly barriers: number;
  readonly namedCount: number;
  readonly namedThreads: number;
  readonly asyncDone: number;
  /** kind (0 none, 1 race, 2 fifo, 3 protocol), message id, role */
  readonly violation: number;
  readonly present: number;
  readonly hbRoles: number;
  readonly barPending: number;
  readonly barDone: number;
  readonly arefSlot: number;
  /** per named barrier id, its holder's first word, or −1 when no op names it (no words) */
  readonly named: Int32Array;
  /** first word of the tail (the tma count); the knowledge holders of the fixed part are the W-word blocks from hbRoles up to here */
  readonly fixedWords: number;

  constructor(m: Machine) {
    const R = m.roles.length;
    this.W = eventWords(m);
    this.roleCount = R;
    this.role = new Int32Array(R);
    this.tokens = new Int32Array(R);
    this.varCount = new Int32Array(R);
    this.tokenCount = new Int32Array(R);
    let at = 0;
    m.roles.forEach((rc, r) => {
      this.role[r] = at;
      this.varCount[r] = rc.varNames.length;
      this.tokenCount[r] = rc.tokenNames.length;
      this.tokens[r] = at + ROLE_VARS + rc.varNames.length;
      at += ROLE_VARS + rc.varNames.length + rc.tokenNames.length;
    });
    const take = (n: number): number => {
      const start = at;
      at += n;
      return start;
    };
    const namedN = m.usesNamedBarriers ? m.namedBarriers : 0;
    this.arefF = take(m.arefSlotCount);
    this.arefE = take(m.arefSlotCount);
    this.slotValue = take(m.slotCount);
    this.slotGeneric = take(m.slotCount);
    this.barriers = take(BAR_WORDS * m.barrierCount);
    this.namedCount = take(namedN);
    this.namedThreads = take(namedN);
    this.asyncDone = take(1);
    this.violation = take(3);
    this.present = take(this.W);
    this.hbRoles = take(this.W * R);
    this.barPending = take(this.W * m.barrierCount);
    this.barDone = take(this.W * m.barrierCount);
    this.arefSlot = take(this.W * m.arefSlotCount);
    this.named = new Int32Array(namedN).fill(-1);
    for (let id = 0; id < namedN; id++) if (m.namedUsed[id]) this.named[id] = take(this.W);
    this.fixedWords = at;
  }

  bar(b: number): number {
    return this.barriers + BAR_WORDS * b;
  }

  /**
   * The blocks collapse compression stores once each (checker/collapse.ts): the barriers, the
   * happens-before knowledge, and the tail (work in flight). Each takes far fewer distinct values
   * than there are states: the roles' positions, loop counters and value tags, which tell states
   * apart, stay outside.
   */
  collapseBlocks(): { from: number; to?: number }[] {
    const blocks: { from: number; to?: number }[] = [];
    // the barriers' words end where the named-barrier counts begin (the constructor takes them in that order)
    if (this.namedCount > this.barriers) blocks.push({ from: this.barriers, to: this.namedCount });
    if (this.fixedWords > this.present) blocks.push({ from: this.present, to: this.fixedWords });
    blocks.push({ from: this.fixedWords });
    return blocks;
  }
}

/**
 * Where the tail's lists lie in packed state w, as pack.ts writes them: per role r and unit u (0
 * wgmma, 1 TMA store), the first word of its open list at open[2r + u] and of its committed groups
 * at groups[2r + u] (a list is [n, items…], the groups [n, groups…] with a group [n, slots…,
 * retired, know (W words)]). Returns the first word past the tail.
 */
export function indexTail(L: StateLayout, w: ArrayLike<number>, open: Int32Array, groups: Int32Array): number {
  let p = L.fixedWords;
  p += 1 + TMA_WORDS * w[p]!;
  for (let r = 0; r < L.roleCount; r++) {
    for (let u = 0; u < 2; u++) {
      open[2 * r + u] = p;
      p += 1 + w[p]!;
      groups[2 * r + u] = p;
      const n = w[p++]!;
      for (let g = 0; g < n; g++) p += 1 + w[p]! + 1 + L.W;
    }
  }
  return p;
}
