// The explorer's successor generator: the rules of this folder re-stated on packed words (the
// state schema of layout.ts), with no decoding, no object per state and no allocation per
// transition but the successor's words. The readable rules stay the definition: a transition this
// file does not take itself (any violation, whose message the readable rules write; the end-of-run
// checks; the rare ops init, inval, wait.token and named barriers) returns undefined and the
// caller runs the readable rules on the decoded state. test/semantics/packed.test.ts checks
// encode(step(s)) = packedStep(encode(s)) on states of every op family.
import { READ_ATOMIC, READ_GENERIC, READ_STORE, READ_WGMMA, NO_TOKEN, BAR_WAITING, PHASE_BITS } from './state.ts';
import {
  indexTail,
  BAR_EXPECTED,
  BAR_OBSERVED,
  BAR_PENDING,
  BAR_PHASE,
  BAR_TX,
  BAR_VALID,
  ROLE_BAR_STATE,
  ROLE_PC,
  ROLE_STEPS,
  ROLE_VARS,
  TMA_BARRIER,
  TMA_BYTES,
  TMA_ROLE,
  TMA_SLOT,
  TMA_SPAN,
  TMA_VALUE,
  TMA_WORDS,
  type StateLayout,
} from './layout.ts';
import { ABSENT, MAX_VALUE, NO_VALUE, slotId, type CExpr, type Machine } from './machine.ts';
import { waitMisses } from './hb.ts';
import { MAX_COUNT } from './mbarrier.ts';
import { unitRoles } from './async.ts';
import { genericMark } from './access.ts';
import { controlStep, type Action } from './step.ts';
import type { OpInstr } from './context.ts';
import { READER_KINDS } from './events.ts';

const MMA = 0;
const STORE = 1;
type UnitId = typeof MMA | typeof STORE;
const UNIT_NAMES = ['mma', 'store'] as const;

/** Thrown inside a step to hand the transition to the readable rules. */
class Fallback {}
const FALLBACK = new Fallback();

export class PackedRules {
  private readonly m: Machine;
  /** per role, the slotGeneric mark its generic writes leave (access.ts genericMark) */
  private readonly genericMarks: Int32Array;
  private readonly L: StateLayout;
  /** the successor being built (w[0..n)) */
  private w = new Int32Array(256);
  private n = 0;
  /** per role: its loop variables as numbers, for the compiled expressions */
  private readonly vars: number[][];
  /** per role: vars[r] holds the words' values (reset by load) */
  private readonly varsLoaded: Uint8Array;
  /** tail index of the state in w: per role × unit, the first word of its open list and of its groups */
  private readonly openAt: Int32Array;
  private readonly groupsAt: Int32Array;
  private readonly roleActions: Action[];
  private readonly landActions: Action[] = [];
  private readonly retireActions: Action[];
  private readonly evCount: number;

  constructor(m: Machine, layout: StateLayout) {
    this.m = m;
    this.genericMarks = Int32Array.from(m.roles, (_, r) => genericMark(m, r));
    this.L = layout;
    const R = m.roles.length;
    this.vars = m.roles.map((rc) => new Array<number>(rc.varNames.length).fill(0));
    this.varsLoaded = new Uint8Array(R);
    this.openAt = new Int32Array(2 * R);
    this.groupsAt = new Int32Array(2 * R);
    this.roleActions = m.roles.map((_, role) => ({ kind: 'role', role }));
    this.retireActions = m.roles.flatMap((_, role) => UNIT_NAMES.map((unit) => ({ kind: 'retire' as const, role, unit })));
    this.evCount = m.events.count;
  }

  // ---- the questions the explorer asks of a stored state ------------------------------------

  /** The enabled actions, in enabledActions' order (step.ts). */
  enabled(state: Int32Array, out: Action[]): void {
    const L = this.L;
    this.load(state);
    if (this.w[L.violation] !== 0) return;
    const R = L.roleCount;
    for (let r = 0; r < R; r++) if (this.canMove(r)) out.push(this.roleActions[r]!);
    const copies = this.w[L.fixedWords]!;
    for (let i = 0; i < copies; i++) out.push(this.landAction(i));
    for (let r = 0; r < R; r++) {
      if (this.canRetire(r, MMA)) out.push(this.retireActions[2 * r]!);
      if (this.canRetire(r, STORE)) out.push(this.retireActions[2 * r + 1]!);
    }
  }

  /**
   * The successor's words, or undefined when the readable rules must take this transition. The
   * words are a view of this object's scratch: valid until the next call.
   */
  step(state: Int32Array, a: Action): Int32Array | undefined {
    this.load(state);
    try {
      if (a.kind === 'role') this.roleStep(a.role);
      else if (a.kind === 'land') this.land(a.index);
      else this.retire(a.role, a.unit === 'mma' ? MMA : STORE);
    } catch (e) {
      if (e === FALLBACK) return undefined;
      throw e;
    }
    // the end-of-run checks are the readable rules' (they may find a protocol violation)
    if (this.finished()) return undefined;
    return this.w.subarray(0, this.n);
  }

  isFinished(state: Int32Array): boolean {
    this.load(state);
    return this.w[this.L.violation] === 0 && this.finished();
  }

  /** Operations executed plus async completions: grows by one on every transition. */
  progress(state: Int32Array): number {
    const L = this.L;
    let sum = state[L.asyncDone]!;
    for (let r = 0; r < L.roleCount; r++) sum += state[L.role[r]! + ROLE_STEPS]!;
    return sum;
  }

  // ---- working copy -------------------------------------------------------------------------

  private load(state: Int32Array): void {
    if (this.w.length < state.length + 64) this.w = new Int32Array(2 * state.length + 64);
    this.w.set(state);
    this.n = state.length;
    this.varsLoaded.fill(0);
    this.index();
  }

  /** Recompute the tail index (after any change to the tail's lengths). */
  private index(): void {
    indexTail(this.L, this.w, this.openAt, this.groupsAt);
  }

  /** Replace `remove` words at `at` by `insert` (the tail's lists grow and shrink this way). */
  private splice(at: number, remove: number, insert: ArrayLike<number>): void {
    const grow = insert.length - remove;
    if (this.n + grow > this.w.length) {
      const bigger = new Int32Array(2 * (this.n + grow) + 64);
      bigger.set(this.w.subarray(0, this.n));
      this.w = bigger;
    }
    this.w.copyWithin(at + insert.length, at + remove, this.n);
    this.w.set(insert, at);
    this.n += grow;
    this.index();
  }

  private landAction(i: number): Action {
    let a = this.landActions[i];
    if (!a) {
      a = { kind: 'land', index: i };
      this.landActions[i] = a;
    }
    return a;
  }

  // ---- enabledness (the rules' isBlocked) -------------------------------------------------

  private canMove(r: number): boolean {
    const instr = this.currentOp(r);
    if (!instr) return false;
    const w = this.w;
    const L = this.L;
    switch (instr.op.kind) {
      case 'put': {
        const a = this.peekResolve(instr, r, 0);
        return a < 0 || w[L.arefE + a] === 1;
      }
      case 'get': {
        const a = this.peekResolve(instr, r, 0);
        return a < 0 || w[L.arefF + a] === 1;
      }
      case 'wait': {
        const b = this.peekResolve(instr, r, 0);
        const p = this.peek(instr.args[0], r);
        if (b < 0 || w[L.bar(b) + BAR_VALID] !== 1 || (p !== 0 && p !== 1)) return true;
        return (w[L.bar(b) + BAR_PHASE]! & 1) !== p || this.misses(r, b, p);
      }
      case 'wait.token': {
        const b = this.peekResolve(instr, r, 0);
        const t = instr.token === undefined ? NO_TOKEN : w[L.tokens[r]! + instr.token]!;
        if (b < 0 || t === NO_TOKEN || w[L.bar(b) + BAR_VALID] === 0 || t >> 2 !== b) return true;
        return (t & 3) !== 0;
      }
      case 'wgmma.wait':
      case 'bulk.wait': {
        const n = this.peek(instr.args[0], r);
        return Number.isNaN(n) || this.outstanding(r, instr.op.kind === 'wgmma.wait' ? MMA : STORE) <= n;
      }
      case 'bar.sync':
        return w[L.role[r]! + ROLE_BAR_STATE] !== BAR_WAITING;
      default:
        return true;
    }
  }

  private canRetire(r: number, u: UnitId): boolean {
    const members = unitRoles(this.m, r, UNIT_NAMES[u]);
    if (members[0] !== r) return false;
    for (const q of members) if (this.outstanding(q, u) === 0) return false;
    return true;
  }

  private outstanding(r: number, u: UnitId): number {
    const w = this.w;
    let p = this.groupsAt[2 * r + u]!;
    const g = w[p++]!;
    let n = 0;
    for (let j = 0; j < g; j++) {
      const slots = w[p]!;
      if (w[p + 1 + slots] === 0) n++;
      p += 1 + slots + 1 + this.L.W;
    }
    return n;
  }

  private finished(): boolean {
    const w = this.w;
    const L = this.L;
    for (let r = 0; r < L.roleCount; r++) if (w[L.role[r]! + ROLE_PC]! < this.m.roles[r]!.code.length) return false;
    if (w[L.fixedWords] !== 0) return false;
    for (let r = 0; r < L.roleCount; r++) if (this.outstanding(r, MMA) > 0 || this.outstanding(r, STORE) > 0) return false;
    return true;
  }

  // ---- operands -----------------------------------------------------------------------------

  private currentOp(r: number): OpInstr | undefined {
    const instr = this.m.roles[r]!.code[this.w[this.L.role[r]! + ROLE_PC]!];
    return instr?.kind === 'op' ? instr : undefined;
  }

  /** The role's loop variables, read from the words into its number array. */
  private varsOf(r: number): number[] {
    const v = this.vars[r]!;
    if (this.varsLoaded[r] === 1) return v;
    this.varsLoaded[r] = 1;
    const at = this.L.role[r]! + ROLE_VARS;
    for (let i = 0; i < v.length; i++) v[i] = this.w[at + i]!;
    return v;
  }

  /** An expression's value, NaN when it cannot be evaluated (peekArg). */
  private peek(e: CExpr | undefined, r: number): number {
    if (!e) return Number.NaN;
    try {
      return e(this.varsOf(r));
    } catch {
      return Number.NaN;
    }
  }

  /** Global id of ref i (peekResolve), −1 when it cannot be evaluated or is out of range. */
  private peekResolve(instr: OpInstr, r: number, i: number): number {
    const ref = instr.refs[i]!;
    const idx = this.peek(ref.index, r);
    if (!Number.isInteger(idx) || idx < 0 || idx >= ref.res.size) return -1;
    return ref.res.space === 'barrier' ? ref.res.base + idx : slotId(this.m, ref.res, idx);
  }

  /** As peekResolve, where the readable rules would report a violation instead. */
  private resolve(instr: OpInstr, r: number, i: number): number {
    const id = this.peekResolve(instr, r, i);
    if (id < 0) throw FALLBACK;
    return id;
  }

  /** Argument i (the rules' arg): errors and values outside the packed range go to the readable rules. */
  private arg(instr: OpInstr, r: number, i: number): number {
    const e = instr.args[i]!;
    if (e === ABSENT) return NO_VALUE;
    const v = this.peek(e, r);
    if (!(v >= -MAX_VALUE && v <= MAX_VALUE)) throw FALLBACK;
    return v;
  }

  /** A valid barrier (the rules' target), else the readable rules report it. */
  private target(instr: OpInstr, r: number): number {
    const b = this.resolve(instr, r, 0);
    if (this.w[this.L.bar(b) + BAR_VALID] === 0) throw FALLBACK;
    return b;
  }

  // ---- knowledge (hb.ts) --------------------------------------------------------------------

  private has(k: number, e: number): boolean {
    return e >= 0 && ((this.w[k + (e >>> 5)]! >>> (e & 31)) & 1) === 1;
  }

  private setBit(k: number, e: number): void {
    if (e < 0) throw FALLBACK;
    this.w[k + (e >>> 5)]! |= 1 << (e & 31);
  }

  private present(e: number): boolean {
    return this.has(this.L.present, e);
  }

  private orInto(dst: number, src: number): void {
    const w = this.w;
    for (let i = 0; i < this.L.W; i++) w[dst + i]! |= w[src + i]!;
  }

  private roleKnow(r: number): number {
    return this.L.hbRoles + this.L.W * r;
  }

  /** Clear event e in every knowledge holder: the fixed blocks, then each committed group's. */
  private clearEverywhere(e: number): void {
    const w = this.w;
    const L = this.L;
    const word = e >>> 5;
    const mask = ~(1 << (e & 31));
    for (let k = L.hbRoles; k < L.fixedWords; k += L.W) w[k + word]! &= mask;
    for (let q = 0; q < 2 * L.roleCount; q++) {
      let p = this.groupsAt[q]!;
      const g = w[p++]!;
      for (let j = 0; j < g; j++) {
        p += 1 + w[p]! + 1;
        w[p + word]! &= mask;
        p += L.W;
      }
    }
  }

  private freshEvent(e: number, owner: number): void {
    if (e < 0) throw FALLBACK;
    this.clearEverywhere(e);
    this.setBit(this.L.present, e);
    this.setBit(owner, e);
  }

  private retireEvent(e: number): void {
    if (!this.present(e)) return;
    this.clearEverywhere(e);
    this.w[this.L.present + (e >>> 5)]! &= ~(1 << (e & 31));
  }

  /** Barrier b completed a phase: every holder's phase distance grows by one (hb.ts agePhase). */
  private agePhase(b: number): void {
    const b0 = this.evCount + PHASE_BITS * b;
    const w = this.w;
    const L = this.L;
    for (let k = L.hbRoles; k < L.fixedWords; k += L.W) this.age(k, b0);
    for (let q = 0; q < 2 * L.roleCount; q++) {
      let p = this.groupsAt[q]!;
      const g = w[p++]!;
      for (let j = 0; j < g; j++) {
        p += 1 + w[p]! + 1;
        this.age(p, b0);
        p += L.W;
      }
    }
  }

  /** One holder: d < 2 := d < 1, d < 1 := false. */
  private age(k: number, b0: number): void {
    const b1 = b0 + 1;
    if (this.has(k, b0)) this.w[k + (b1 >>> 5)]! |= 1 << (b1 & 31);
    else this.w[k + (b1 >>> 5)]! &= ~(1 << (b1 & 31));
    this.w[k + (b0 >>> 5)]! &= ~(1 << (b0 & 31));
  }

  private freshPhase(k: number, b: number): void {
    const b0 = this.evCount + PHASE_BITS * b;
    this.setBit(k, b0);
    this.setBit(k, b0 + 1);
  }

  private misses(r: number, b: number, p: number): boolean {
    const k = this.roleKnow(r);
    const b0 = this.evCount + PHASE_BITS * b;
    const d = this.has(k, b0) ? 0 : this.has(k, b0 + 1) ? 1 : 2;
    return waitMisses(this.w[this.L.bar(b) + BAR_PHASE]!, d, p);
  }

  // ---- events of a slot (state.ts) ----------------------------------------------------------

  private writeEvent(slot: number): number {
    return this.m.events.write[slot] ?? -1;
  }
  private fenceEvent(slot: number, r: number): number {
    return this.m.events.fence[slot * this.L.roleCount + r] ?? -1;
  }
  private readEvent(slot: number, kind: number, r: number): number {
    return this.m.events.read[(slot * READER_KINDS + kind) * this.L.roleCount + r] ?? -1;
  }
  private readFenceEvent(slot: number, r: number): number {
    return this.m.events.readFence[slot * this.L.roleCount + r] ?? -1;
  }

  // ---- accesses (access.ts); a race goes to the readable rules for its message --------------

  private tmaCovers(slot: number): boolean {
    const w = this.w;
    const start = this.L.fixedWords;
    const copies = w[start]!;
    for (let i = 0; i < copies; i++) {
      const t = start + 1 + TMA_WORDS * i;
      if (slot >= w[t + TMA_SLOT]! && slot < w[t + TMA_SLOT]! + w[t + TMA_SPAN]!) return true;
    }
    return false;
  }

  /** Some role's wgmma or TMA store still reads the slot (issued, or committed and not retired). */
  private readInFlight(slot: number): boolean {
    const w = this.w;
    for (let q = 0; q < 2 * this.L.roleCount; q++) {
      let p = this.openAt[q]!;
      const open = w[p++]!;
      for (let j = 0; j < open; j++) if (w[p + j] === slot) return true;
      p = this.groupsAt[q]!;
      const g = w[p++]!;
      for (let j = 0; j < g; j++) {
        const slots = w[p]!;
        if (w[p + 1 + slots] === 0) for (let i = 0; i < slots; i++) if (w[p + 1 + i] === slot) return true;
        p += 1 + slots + 1 + this.L.W;
      }
    }
    return false;
  }

  private unfencedGenericWrite(know: number, slot: number): boolean {
    if (!this.present(this.writeEvent(slot)) || this.w[this.L.slotGeneric + slot] === 0) return false;
    for (let r = 0; r < this.L.roleCount; r++) {
      const f = this.fenceEvent(slot, r);
      if (this.present(f) && this.has(know, f)) return false;
    }
    return true;
  }

  /** `value`: a generic write's tag; one of the same data as the slot's last generic write needs no order after it (access.ts writeRace). */
  private checkWrite(know: number, slot: number, async: boolean, value = NO_VALUE): void {
    if (this.tmaCovers(slot) || this.readInFlight(slot)) throw FALLBACK;
    const we = this.writeEvent(slot);
    if (this.present(we) && !this.has(know, we) && !(value !== NO_VALUE && this.w[this.L.slotValue + slot] === value && this.w[this.L.slotGeneric + slot] !== 0)) throw FALLBACK;
    for (let kind = 0; kind < READER_KINDS; kind++)
      for (let r = 0; r < this.L.roleCount; r++) {
        const e = this.readEvent(slot, kind, r);
        if (this.present(e) && !this.has(know, e)) throw FALLBACK;
      }
    if (!async) return;
    if (this.unfencedGenericWrite(know, slot)) throw FALLBACK;
    for (let r = 0; r < this.L.roleCount; r++) {
      if (!this.present(this.readEvent(slot, READ_GENERIC, r)) && !this.present(this.readEvent(slot, READ_ATOMIC, r))) continue;
      const f = this.readFenceEvent(slot, r);
      if (!this.present(f) || !this.has(know, f)) throw FALLBACK;
    }
  }

  private checkRead(know: number, slot: number, async: boolean): void {
    if (this.tmaCovers(slot)) throw FALLBACK;
    const we = this.writeEvent(slot);
    if (this.present(we) && !this.has(know, we)) throw FALLBACK;
    if (async && this.unfencedGenericWrite(know, slot)) throw FALLBACK;
    // atomics (access.ts readRace): known, and fenced before an async read
    for (let r = 0; r < this.L.roleCount; r++) {
      const a = this.readEvent(slot, READ_ATOMIC, r);
      if (!this.present(a)) continue;
      if (!this.has(know, a)) throw FALLBACK;
      const f = this.readFenceEvent(slot, r);
      if (async && (!this.present(f) || !this.has(know, f))) throw FALLBACK;
    }
  }

  private checkFifo(slot: number, expect: number): void {
    if (expect !== NO_VALUE && this.w[this.L.slotValue + slot] !== expect) throw FALLBACK;
  }

  /** `generic`: the slotGeneric mark (access.ts genericMark), 0 for a TMA copy's write. */
  private doWrite(slot: number, value: number, generic: number, owner: number): void {
    const R = this.L.roleCount;
    this.w[this.L.slotValue + slot] = value;
    this.w[this.L.slotGeneric + slot] = generic;
    for (let r = 0; r < R; r++) this.retireEvent(this.fenceEvent(slot, r));
    for (let kind = 0; kind < READER_KINDS; kind++) for (let r = 0; r < R; r++) this.retireEvent(this.readEvent(slot, kind, r));
    for (let r = 0; r < R; r++) this.retireEvent(this.readFenceEvent(slot, r));
    this.freshEvent(this.writeEvent(slot), owner);
  }

  private doRead(slot: number, kind: number, role: number, owner: number): void {
    if (kind === READ_GENERIC) this.retireEvent(this.readFenceEvent(slot, role));
    this.freshEvent(this.readEvent(slot, kind, role), owner);
  }

  // ---- barriers (mbarrier.ts) ---------------------------------------------------------------

  private completeIfDone(b: number): void {
    const w = this.w;
    const L = this.L;
    const bar = L.bar(b);
    if (w[bar + BAR_PENDING] !== 0 || w[bar + BAR_TX] !== 0) return;
    w[bar + BAR_PHASE]! += 1;
    w[bar + BAR_PENDING] = w[bar + BAR_EXPECTED]!;
    w[bar + BAR_OBSERVED] = 0;
    this.agePhase(b);
    for (let r = 0; r < L.roleCount; r++) {
      const at = L.tokens[r]!;
      for (let i = 0; i < L.tokenCount[r]!; i++) {
        const t = w[at + i]!;
        if (t !== NO_TOKEN && t >> 2 === b && (t & 3) < 2) w[at + i] = t + 1;
      }
    }
    const pending = L.barPending + L.W * b;
    const done = L.barDone + L.W * b;
    this.orInto(done, pending);
    w.fill(0, pending, pending + L.W);
  }

  private arriveOn(r: number, b: number, count: number): void {
    const w = this.w;
    const bar = this.L.bar(b);
    if (w[bar + BAR_PHASE]! >= 1 && w[bar + BAR_OBSERVED] === 0) throw FALLBACK;
    if (!Number.isInteger(count) || count < 1 || count > w[bar + BAR_PENDING]!) throw FALLBACK;
    w[bar + BAR_PENDING]! -= count;
    this.orInto(this.L.barPending + this.L.W * b, this.roleKnow(r));
    this.completeIfDone(b);
  }

  private addTx(b: number, delta: number): void {
    const at = this.L.bar(b) + BAR_TX;
    const tx = this.w[at]! + delta;
    if (Math.abs(tx) > MAX_COUNT) throw FALLBACK;
    this.w[at] = tx;
  }

  private setToken(instr: OpInstr, r: number, b: number): void {
    if (instr.token !== undefined) this.w[this.L.tokens[r]! + instr.token] = b * 4;
  }

  // ---- the async units (async.ts) -----------------------------------------------------------

  /** Commit the unit's open reads as one group. */
  private commit(r: number, u: UnitId): void {
    const w = this.w;
    const openAt = this.openAt[2 * r + u]!;
    const open = w.slice(openAt, openAt + 1 + w[openAt]!);
    const groupsAt = this.groupsAt[2 * r + u]!;
    // the group goes after the last one: [n, slots…, retired = 0, know = 0…]
    let end = groupsAt + 1;
    for (let j = 0; j < w[groupsAt]!; j++) end += 1 + w[end]! + 1 + this.L.W;
    const group = new Int32Array(open.length + 1 + this.L.W);
    group.set(open);
    w[groupsAt]! += 1;
    this.splice(end, 0, group);
    this.splice(openAt, open.length, [0]);
  }

  private issueRead(instr: OpInstr, r: number, u: UnitId): void {
    const slot = this.resolve(instr, r, 0);
    const expect = u === MMA ? this.arg(instr, r, 0) : NO_VALUE;
    this.checkRead(this.roleKnow(r), slot, true);
    this.checkFifo(slot, expect);
    const at = this.openAt[2 * r + u]!;
    const n = this.w[at]!;
    this.w[at] = n + 1;
    this.splice(at + 1 + n, 0, [slot]);
  }

  /** wgmma.wait / bulk.wait n: drop all but the last n groups, acquiring what they learned. */
  private waitGroups(instr: OpInstr, r: number, u: UnitId): void {
    const n = this.arg(instr, r, 0);
    if (!Number.isInteger(n) || n < 0) throw FALLBACK;
    const w = this.w;
    const at = this.groupsAt[2 * r + u]!;
    const g = w[at]!;
    const drop = Math.max(0, g - n);
    if (drop === 0) return;
    const know = this.roleKnow(r);
    let p = at + 1;
    for (let j = 0; j < drop; j++) {
      p += 1 + w[p]! + 1;
      this.orInto(know, p);
      p += this.L.W;
    }
    w[at] = g - drop;
    this.splice(at + 1, p - (at + 1), []);
  }

  private tmaLoad(instr: OpInstr, r: number): void {
    const w = this.w;
    const L = this.L;
    const slot = this.resolve(instr, r, 0);
    const b = this.resolve(instr, r, 1);
    const bytes = this.arg(instr, r, 0);
    const value = this.arg(instr, r, 1);
    const slots = this.arg(instr, r, 2);
    const span = slots === NO_VALUE ? 1 : slots;
    const ref = instr.refs[0]!;
    const first = this.peek(ref.index, r);
    if (!Number.isInteger(span) || span < 1 || first + span > ref.res.size) throw FALLBACK;
    if (w[L.bar(b) + BAR_VALID] === 0) throw FALLBACK;
    if (!Number.isInteger(bytes) || bytes < 0) throw FALLBACK;
    for (let i = slot; i < slot + span; i++) this.checkWrite(this.roleKnow(r), i, true);
    // in flight, kept sorted (step.ts compareTma) so equal sets encode equally
    const copy = [slot, span, b, bytes, value, r];
    const start = L.fixedWords;
    const copies = w[start]!;
    let i = 0;
    while (i < copies && compareCopy(w, start + 1 + TMA_WORDS * i, copy) <= 0) i++;
    w[start] = copies + 1;
    this.splice(start + 1 + TMA_WORDS * i, 0, copy);
  }

  private land(i: number): void {
    const w = this.w;
    const L = this.L;
    const at = L.fixedWords + 1 + TMA_WORDS * i;
    const slot = w[at + TMA_SLOT]!;
    const span = w[at + TMA_SPAN]!;
    const b = w[at + TMA_BARRIER]!;
    const bytes = w[at + TMA_BYTES]!;
    const value = w[at + TMA_VALUE]!;
    w[L.fixedWords]! -= 1;
    this.splice(at, TMA_WORDS, []); // shrinks: w stays this.w
    w[L.asyncDone]! += 1;
    // complete_tx releases only the copy's own write (PTX §8.9.1.1)
    const pending = L.barPending + L.W * b;
    for (let x = slot; x < slot + span; x++) this.doWrite(x, value, 0, pending);
    if (w[L.bar(b) + BAR_VALID] === 0) throw FALLBACK;
    w[L.bar(b) + BAR_TX]! -= bytes;
    this.completeIfDone(b);
  }

  private retire(r: number, u: UnitId): void {
    const w = this.w;
    const L = this.L;
    w[L.asyncDone]! += 1;
    const members = unitRoles(this.m, r, UNIT_NAMES[u]);
    const knows: number[] = [];
    for (const q of members) {
      let p = this.groupsAt[2 * q + u]!;
      const g = w[p++]!;
      for (let j = 0; j < g; j++) {
        const slots = w[p]!;
        const retiredAt = p + 1 + slots;
        if (w[retiredAt] === 0) {
          w[retiredAt] = 1;
          const know = retiredAt + 1;
          for (let x = 0; x < slots; x++) this.doRead(w[p + 1 + x]!, u === MMA ? READ_WGMMA : READ_STORE, q, know);
          knows.push(know);
          break;
        }
        p = retiredAt + 1 + L.W;
      }
    }
    // one warpgroup operation: each partner's wait acquires every partner's reads
    if (knows.length > 1) {
      for (const k of knows) if (k !== knows[0]) this.orInto(knows[0]!, k);
      for (const k of knows) if (k !== knows[0]) w.copyWithin(k, knows[0]!, knows[0]! + L.W);
    }
  }

  // ---- a role's operation -------------------------------------------------------------------

  private roleStep(r: number): void {
    const instr = this.currentOp(r);
    if (!instr) throw FALLBACK;
    const w = this.w;
    const L = this.L;
    const know = this.roleKnow(r);
    switch (instr.op.kind) {
      case 'put': {
        const a = this.resolve(instr, r, 0);
        const value = this.arg(instr, r, 0);
        this.orInto(know, L.arefSlot + L.W * a);
        this.checkWrite(know, a, false);
        this.doWrite(a, value, 0, know);
        w[L.arefF + a] = 1;
        w[L.arefE + a] = 0;
        this.orInto(L.arefSlot + L.W * a, know);
        break;
      }
      case 'get': {
        const a = this.resolve(instr, r, 0);
        const expect = this.arg(instr, r, 0);
        this.orInto(know, L.arefSlot + L.W * a);
        this.checkRead(know, a, false);
        this.checkFifo(a, expect);
        this.doRead(a, READ_GENERIC, r, know);
        w[L.arefF + a] = 0;
        w[L.arefE + a] = 0;
        break;
      }
      case 'consumed': {
        const a = this.resolve(instr, r, 0);
        if (!(w[L.arefF + a] === 0 && w[L.arefE + a] === 0) && !this.m.literal) throw FALLBACK;
        this.orInto(L.arefSlot + L.W * a, know);
        w[L.arefF + a] = 0;
        w[L.arefE + a] = 1;
        break;
      }
      case 'arrive': {
        const b = this.target(instr, r);
        const count = this.arg(instr, r, 0);
        this.setToken(instr, r, b);
        this.arriveOn(r, b, count);
        break;
      }
      case 'arrive.expect_tx': {
        const b = this.target(instr, r);
        const bytes = this.arg(instr, r, 0);
        this.setToken(instr, r, b);
        const bar = L.bar(b);
        if (w[bar + BAR_PHASE]! >= 1 && w[bar + BAR_OBSERVED] === 0) throw FALLBACK;
        this.addTx(b, bytes);
        this.arriveOn(r, b, 1);
        break;
      }
      case 'expect_tx': {
        const b = this.target(instr, r);
        this.addTx(b, this.arg(instr, r, 0));
        break;
      }
      case 'complete_tx': {
        const b = this.target(instr, r);
        this.addTx(b, -this.arg(instr, r, 0));
        this.completeIfDone(b);
        break;
      }
      case 'wait': {
        const b = this.target(instr, r);
        const p = this.arg(instr, r, 0);
        if ((p !== 0 && p !== 1) || this.misses(r, b, p)) throw FALLBACK;
        this.orInto(know, L.barDone + L.W * b);
        this.freshPhase(know, b);
        w[L.bar(b) + BAR_OBSERVED] = 1;
        break;
      }
      case 'tma.load':
        this.tmaLoad(instr, r);
        break;
      case 'tma.store':
        this.issueRead(instr, r, STORE);
        break;
      case 'bulk.commit':
        this.commit(r, STORE);
        break;
      case 'bulk.wait':
        this.waitGroups(instr, r, STORE);
        break;
      case 'wgmma.issue':
        this.issueRead(instr, r, MMA);
        if (instr.op.commit) this.commit(r, MMA);
        break;
      case 'wgmma.commit':
        this.commit(r, MMA);
        break;
      case 'wgmma.wait':
        this.waitGroups(instr, r, MMA);
        break;
      case 'read': {
        const slot = this.resolve(instr, r, 0);
        const expect = this.arg(instr, r, 0);
        this.checkRead(know, slot, false);
        this.checkFifo(slot, expect);
        this.doRead(slot, READ_GENERIC, r, know);
        break;
      }
      case 'write': {
        const slot = this.resolve(instr, r, 0);
        const value = this.arg(instr, r, 0);
        this.checkWrite(know, slot, false, value);
        this.doWrite(slot, value, this.genericMarks[r]!, know);
        break;
      }
      case 'fence.proxy.async':
        this.fence(r);
        break;
      default:
        // init, inval, wait.token, named barriers, atomics: the readable rules
        throw FALLBACK;
    }
    // this.w, not w: a list that grew may have moved the words
    const base = L.role[r]!;
    this.w[base + ROLE_STEPS]! += 1;
    this.w[base + ROLE_PC]! += 1;
    this.settle(r);
  }

  /** fence.proxy.async (named.ts): order the generic accesses the role knows of before later async ones. */
  private fence(r: number): void {
    const know = this.roleKnow(r);
    for (let slot = 0; slot < this.m.slotCount; slot++) {
      const we = this.writeEvent(slot);
      const f = this.fenceEvent(slot, r);
      if (this.w[this.L.slotGeneric + slot] !== 0 && this.present(we) && this.has(know, we) && !this.present(f)) this.freshEvent(f, know);
      for (let q = 0; q < this.L.roleCount; q++) {
        // named.ts fencedAccess: q's last read and atomic, each known where present
        const rd = this.readEvent(slot, READ_GENERIC, q);
        const ra = this.readEvent(slot, READ_ATOMIC, q);
        const read = this.present(rd);
        const atomic = this.present(ra);
        if ((read || atomic) && (!read || this.has(know, rd)) && (!atomic || this.has(know, ra))) {
          const rf = this.readFenceEvent(slot, q);
          this.setBit(this.L.present, rf);
          this.setBit(know, rf);
        }
      }
    }
  }

  /** Control flow up to the role's next operation (step.ts settle); errors go to the readable rules. */
  private settle(r: number): void {
    const code = this.m.roles[r]!.code;
    const base = this.L.role[r]!;
    const vars = this.varsOf(r);
    let pc = this.w[base + ROLE_PC]!;
    try {
      for (let guard = 0; guard < 1_000_000; guard++) {
        const instr = code[pc];
        if (!instr || instr.kind === 'op') break;
        pc = controlStep(instr, vars, pc);
      }
    } catch {
      throw FALLBACK;
    }
    const instr = code[pc];
    if (instr && instr.kind !== 'op') throw FALLBACK; // a long run of control steps: the readable rules decide
    for (let i = 0; i < vars.length; i++) {
      const v = vars[i]!;
      if ((v | 0) !== v) throw FALLBACK;
      this.w[base + ROLE_VARS + i] = v;
    }
    this.w[base + ROLE_PC] = pc;
  }
}

/** step.ts compareTma on a stored copy and a new one. */
function compareCopy(w: Int32Array, at: number, c: readonly number[]): number {
  return (
    w[at + TMA_SLOT]! - c[0]! ||
    w[at + TMA_SPAN]! - c[1]! ||
    w[at + TMA_BARRIER]! - c[2]! ||
    w[at + TMA_VALUE]! - c[4]! ||
    w[at + TMA_BYTES]! - c[3]! ||
    w[at + TMA_ROLE]! - c[5]!
  );
}
