// What a role learns by passing a wait, for the walks of stuck.ts: a passed wait on b joins the
// knowledge of b's completed phases (mbarrier.ts: barDone, and barPending once the current phase
// completes). When one role A other than the waiter is the only one that can still arrive on b,
// the completions need A's arrivals up to some op of A's straight-line code: A passed its waits
// before that op, so the phases they needed had been reached, and A knew them (the rule of the
// walk itself). This is how a consumer that takes every other k-block knows a stage's earlier
// round was filled: the other consumer, which took it, released the order barrier it waits on.
//
// Everything here is per state. A walk asks for one completion count after another, so A's
// arrivals and waits are followed by a cursor per barrier that goes on from where the last
// question left it: in a long straight line (lifted PTX) a walk over L waits costs O(L), not O(L²).
import type { Knowledge } from './bits.ts';
import type { Futures } from './footprint.ts';
import type { Horizons } from './horizon.ts';
import type { Machine } from './machine.ts';
import { eventWords, PHASE_BITS, type MachineState } from './state.ts';

/** Completion counts whose lessons are indexed directly (stuck.ts asks 0 and 1 of straight-line code). */
const NEAR = 2;

/** The lowest phase a barrier at `lowest` or later can be in once a wait of this parity passed: one of the other parity. */
export function phaseAfterPass(lowest: number, parity: number): number {
  return (lowest & 1) === parity ? lowest + 1 : lowest;
}

/** How far A's arrivals and waits on the way to the completions asked last have been followed, for one barrier b. */
interface Cursor {
  stamp: number;
  /** the last completion count answered; 0: none yet */
  completions: number;
  /** the smallest arrival count A's arrivals are known not to reach (or not known to): Infinity when none failed */
  failed: number;
  /** the op of A, and its effect, where the arrivals reached the count; effect −1: none scanned yet */
  at: number;
  effect: number;
  arrivals: number;
  /** the next wait of A to take */
  wait: number;
  /** per barrier x: 2x its lowest phase, 2x + 1 a phase known, after A's waits before `at` */
  readonly facts: Float64Array;
  /** the knowledge the facts started from (b's completed and pending phases, A's own): its words */
  readonly bits: number[];
  /** the barriers whose lowest phase A's waits raised: [n, x…], and per barrier 1 when listed */
  readonly raised: Int32Array;
  readonly isRaised: Uint8Array;
}

export class Lessons {
  private readonly m: Machine;
  private readonly horizons: Horizons;
  private readonly futures: Futures;
  private s!: MachineState;
  private at: Int32Array = new Int32Array(0);
  private stamp = 0;
  /** the lesson per (completions, barrier, waiter) past NEAR completions, for this state */
  private readonly lessons = new Map<number, Float64Array>();
  /**
   * The same for completions below NEAR, by key: the pool index of the lesson where the stamp is
   * this state's (a walk asks some two thousand times per state on lifted kernels, mostly the
   * same questions: a Map's lookup cost more than the answers).
   */
  private readonly nearStamps: Uint32Array;
  private readonly nearLessons: Int32Array;
  /** lesson arrays, reused from state to state (typed-array allocation costs more than the analysis) */
  private readonly pool: Float64Array[] = [];
  private used = 0;
  /** per knowledge holder (b's completed phases at b, its pending phase at B + b, role a at 2B + a): its row of `knows` and the stamp it is for */
  private readonly rows: Float64Array[] = [];
  private readonly rowStamps: Uint32Array;
  /** scratch: a knowledge's words (base lessons), and the candidate barriers of a lesson */
  private readonly bitsScratch: number[];
  /** the phase bits of a knowledge, first and end (the bits before them are events, which no lesson reads), and the words that hold them */
  private readonly firstPhaseBit: number;
  private readonly endPhaseBit: number;
  private readonly firstPhaseWord: number;
  private readonly endPhaseWord: number;
  /** scratch: the set phase bits of a scan (phaseBitsOf), as [n, bit − firstPhaseBit…]; and the candidate barriers of a lesson */
  private readonly setBits: Int32Array;
  private readonly candidates: Int32Array;
  private readonly cursors: Cursor[] = [];
  /** per barrier: the only role that may still arrive on it (−1: none or several), for the state of `arriverStamps` */
  private readonly arrivers: Int32Array;
  private readonly arriverStamps: Uint32Array;

  constructor(m: Machine, horizons: Horizons, futures: Futures) {
    this.m = m;
    this.horizons = horizons;
    this.futures = futures;
    this.rowStamps = new Uint32Array(2 * m.barrierCount + m.roles.length);
    this.arrivers = new Int32Array(m.barrierCount);
    this.arriverStamps = new Uint32Array(m.barrierCount);
    this.bitsScratch = new Array<number>(eventWords(m)).fill(0);
    this.firstPhaseBit = m.events.count; // phaseBit(m, 0, 0)
    this.endPhaseBit = this.firstPhaseBit + PHASE_BITS * m.barrierCount;
    this.firstPhaseWord = this.firstPhaseBit >>> 5;
    this.endPhaseWord = Math.min(eventWords(m), (this.endPhaseBit + 31) >>> 5);
    this.setBits = new Int32Array(1 + PHASE_BITS * m.barrierCount);
    this.candidates = new Int32Array(1 + m.barrierCount);
    this.nearStamps = new Uint32Array(NEAR * m.barrierCount * m.roles.length);
    this.nearLessons = new Int32Array(this.nearStamps.length);
  }

  /** Start on state s, the roles at positions `at`: every answer of the last state is void. */
  reset(s: MachineState, at: Int32Array): void {
    this.s = s;
    this.at = at;
    this.stamp = (this.stamp + 1) >>> 0 || 1;
    this.lessons.clear();
    this.used = 0;
  }

  /**
   * What role p learns by passing a wait on b that needs `completions` more phases of b than the
   * state has: the barriers it says more about than p's walk starts with (the state's phase as the
   * lowest, what p's own knowledge says as the known), as [n, then x, lowest, known per barrier].
   * Taking the others would leave the walk's values as they are, and a kernel has many barriers.
   */
  lesson(p: number, b: number, completions: number): Float64Array {
    const { m, s } = this;
    const B = m.barrierCount;
    const key = (completions * B + b) * m.roles.length + p;
    const near = completions < NEAR;
    if (near && this.nearStamps[key] === this.stamp) return this.pool[this.nearLessons[key]!]!;
    const cached = near ? undefined : this.lessons.get(key);
    if (cached !== undefined) return cached;
    const cursor = this.cursorAt(p, b, completions);
    let lesson = this.pool[this.used];
    if (lesson === undefined) this.pool.push((lesson = new Float64Array(1 + 3 * B)));
    this.used++;
    const mine = this.roleKnows(p);
    const mineBits = s.hb.roles[p];
    let n = 0;
    // A barrier can say more than the walk starts with (the state's phase as the lowest, p's own
    // knowledge or phase − 2 as the known) only where the facts' knowledge has a phase bit that
    // p's lacks (fewer bits, a distance no smaller), or where A's waits raised its lowest phase:
    // those are found word by word, and the rest of a kernel's many barriers are never looked at.
    if (cursor !== undefined) {
      const { facts, raised } = cursor;
      const candidates = this.phaseBitsBeyond(cursor.bits, mineBits);
      for (let i = 1; i <= candidates[0]!; i++) if (cursor.isRaised[candidates[i]!] !== 1) n = this.take(lesson, n, mine, candidates[i]!, facts[2 * candidates[i]!]!, facts[2 * candidates[i]! + 1]!);
      for (let i = 1; i <= raised[0]!; i++) n = this.take(lesson, n, mine, raised[i]!, facts[2 * raised[i]!]!, facts[2 * raised[i]! + 1]!);
    } else {
      // b's knowledge alone: every barrier at its phase, known from b's completed phases (and,
      // past one completion, from its pending phase)
      const done = this.knows(b, s.hb.barDone[b]);
      const pending = completions > 0 ? this.knows(B + b, s.hb.barPending[b]) : undefined;
      const bits = this.bitsScratch;
      for (let w = this.firstPhaseWord; w < this.endPhaseWord; w++) bits[w] = ((s.hb.barDone[b]?.[w] ?? 0) | (pending === undefined ? 0 : (s.hb.barPending[b]?.[w] ?? 0))) >>> 0;
      const candidates = this.phaseBitsBeyond(bits, mineBits);
      for (let i = 1; i <= candidates[0]!; i++) {
        const x = candidates[i]!;
        n = this.take(lesson, n, mine, x, s.barriers[x]?.phase ?? 0, pending === undefined ? done[x]! : Math.max(done[x]!, pending[x]!));
      }
    }
    lesson[0] = n;
    if (near) {
      this.nearStamps[key] = this.stamp;
      this.nearLessons[key] = this.used - 1;
    } else this.lessons.set(key, lesson);
    return lesson;
  }

  /**
   * Put barrier x in `lesson` as its (n+1)-th entry when it says more than the walk starts with
   * (`mine`: what the waiter knows); the entries now. A method, not a closure made per lesson:
   * tsx names every closure it makes (keepNames), which cost a twelfth of a run on lifted kernels.
   */
  private take(lesson: Float64Array, n: number, mine: Float64Array, x: number, low: number, knows: number): number {
    const phase = this.s.barriers[x]?.phase ?? 0;
    if (low <= phase && (knows === -Infinity || knows <= Math.max(mine[x]!, phase - 2))) return n;
    lesson[1 + 3 * n] = x;
    lesson[2 + 3 * n] = low;
    lesson[3 + 3 * n] = knows;
    return n + 1;
  }

  /**
   * The cursor whose facts say what p learns by passing a wait on b that needs `completions` more
   * phases (per barrier x: 2x a lowest phase of x, 2x + 1 a phase of x known; valid until the next
   * call), or undefined when b's knowledge alone is the lesson.
   */
  private cursorAt(p: number, b: number, completions: number): Cursor | undefined {
    const { m, s } = this;
    const bar = s.barriers[b];
    const a = completions > 0 ? this.onlyArriver(b) : undefined;
    if (a === undefined || a === p || !bar || bar.expected <= 0) return undefined;
    let cursor = this.cursors[b];
    if (cursor === undefined) {
      const B = m.barrierCount;
      this.cursors[b] = cursor = { stamp: 0, completions: 0, failed: Infinity, at: 0, effect: -1, arrivals: 0, wait: 0, facts: new Float64Array(2 * B), bits: new Array<number>(this.bitsScratch.length).fill(0), raised: new Int32Array(1 + B), isRaised: new Uint8Array(B) };
    }
    if (cursor.stamp !== this.stamp || cursor.completions > completions) this.start(cursor, a, b);
    const need = bar.pending + (completions - 1) * bar.expected;
    // A's arrivals do not reach the count: only b's own knowledge is learnt (and the cursor stays)
    if (need >= cursor.failed || !this.reach(cursor, a, b, need)) {
      cursor.failed = Math.min(cursor.failed, need);
      return undefined;
    }
    cursor.completions = completions;
    this.takeWaits(cursor, a);
    return cursor;
  }

  /** The facts b's knowledge gives once a phase of b completed, into `facts`. */
  private base(b: number, facts: Float64Array): void {
    const { m, s } = this;
    const B = m.barrierCount;
    const done = this.knows(b, s.hb.barDone[b]);
    const pending = this.knows(B + b, s.hb.barPending[b]);
    for (let x = 0; x < B; x++) {
      facts[2 * x] = s.barriers[x]?.phase ?? 0;
      facts[2 * x + 1] = Math.max(done[x]!, pending[x]!);
    }
  }

  /** Note that A's waits raised barrier x's lowest phase (once). */
  private raise(cursor: Cursor, x: number): void {
    if (cursor.isRaised[x] === 1) return;
    cursor.isRaised[x] = 1;
    cursor.raised[++cursor.raised[0]!] = x;
  }

  /**
   * The barriers for which knowledge `bits` has a phase bit that knowledge `mine` lacks, as
   * [n, x…] (valid until the next call): only those can be known more recently through `bits`
   * (hb.ts: a distance is smaller only with more bits).
   */
  private phaseBitsBeyond(bits: readonly number[], mine: Knowledge | undefined): Int32Array {
    const set = this.phaseBitsOf(bits, mine);
    const out = this.candidates;
    out[0] = 0;
    let last = -1;
    // a barrier's two bits are neighbours: its second is a repeat
    for (let i = 1; i <= set[0]!; i++) {
      const x = set[i]! >> 1;
      if (x !== last) out[++out[0]!] = last = x;
    }
    return out;
  }

  /**
   * The phase bits set in knowledge `bits` and not in `except`, in increasing order, as
   * [n, bit − firstPhaseBit…] (valid until the next call): barrier x's bits are 2x (distance 0)
   * and 2x + 1 (distance below 2). Only the words that hold phase bits are read, and only their
   * set bits visited: a holder knows a few barriers of a kernel's many.
   */
  private phaseBitsOf(bits: readonly number[], except: Knowledge | undefined): Int32Array {
    const { firstPhaseBit: first, endPhaseBit: end } = this;
    const out = this.setBits;
    out[0] = 0;
    for (let word = this.firstPhaseWord; word < this.endPhaseWord && word < bits.length; word++) {
      let diff = (bits[word]! & ~(except?.[word] ?? 0)) | 0;
      while (diff !== 0) {
        const low = diff & -diff;
        diff ^= low;
        const bit = 32 * word + 31 - Math.clz32(low);
        if (bit >= first && bit < end) out[++out[0]!] = bit - first;
      }
    }
    return out;
  }

  /** A cursor at A's position, knowing what b's knowledge and A's own give (completions ≥ 1). */
  private start(cursor: Cursor, a: number, b: number): void {
    const B = this.m.barrierCount;
    cursor.stamp = this.stamp;
    cursor.completions = 0;
    cursor.failed = Infinity;
    cursor.at = this.at[a]!;
    cursor.effect = -1;
    cursor.arrivals = 0;
    cursor.wait = this.horizons.firstWait(a, cursor.at);
    const facts = cursor.facts;
    this.base(b, facts);
    const arriver = this.knows(2 * B + a, this.s.hb.roles[a]);
    for (let x = 0; x < B; x++) facts[2 * x + 1] = Math.max(facts[2 * x + 1]!, arriver[x]!);
    const words = this.s.hb;
    for (let w = this.firstPhaseWord; w < this.endPhaseWord; w++) cursor.bits[w] = ((words.barDone[b]?.[w] ?? 0) | (words.barPending[b]?.[w] ?? 0) | (words.roles[a]?.[w] ?? 0)) >>> 0;
    for (let i = 1; i <= cursor.raised[0]!; i++) cursor.isRaised[cursor.raised[i]!] = 0;
    cursor.raised[0] = 0;
  }

  /**
   * Move the cursor on to the op of A's straight-line code at which its arrivals on b from its
   * position reach `need` (an op that arrives more than once may answer several counts); false
   * when they do not, or are not known there.
   */
  private reach(cursor: Cursor, a: number, b: number, need: number): boolean {
    const { horizons } = this;
    if (cursor.effect >= 0 && cursor.arrivals >= need) return true;
    const c = horizons.countsOfEffect(a);
    let arrivals = cursor.arrivals;
    let i = cursor.effect >= 0 ? cursor.effect + 1 : horizons.effectsFrom(a, cursor.at);
    for (let at = cursor.at, end = horizons.straightEnd(a, this.at[a]!); at < end; at++) {
      for (const last = horizons.effectsFrom(a, at + 1); i < last; i++) {
        const x = horizons.barrierOfEffect(a, i);
        if (x < 0) return false;
        if (x !== b) continue;
        arrivals += c[3 * i]!;
        if (!Number.isFinite(arrivals)) return false;
        if (arrivals >= need) {
          cursor.at = at;
          cursor.effect = i;
          cursor.arrivals = arrivals;
          return true;
        }
      }
    }
    return false;
  }

  /** Take A's waits before the cursor's op: passing one means its phase was reached, and A knew it. */
  private takeWaits(cursor: Cursor, a: number): void {
    const { horizons, s } = this;
    const waits = horizons.waits[a]!;
    const facts = cursor.facts;
    for (; cursor.wait < waits.length && waits[cursor.wait]! < cursor.at; cursor.wait++) {
      const x = horizons.waitBarriers[a]![cursor.wait]!;
      const parity = horizons.waitParities[a]![cursor.wait]!;
      if (s.barriers[x]?.valid !== 1 || (parity !== 0 && parity !== 1)) continue;
      const after = phaseAfterPass(facts[2 * x]!, parity);
      facts[2 * x] = after;
      facts[2 * x + 1] = Math.max(facts[2 * x + 1]!, after);
      this.raise(cursor, x);
    }
  }

  /** Per barrier x, the phase of x that role p knows (the current one or the one before), or −Infinity; valid for this state. */
  roleKnows(p: number): Float64Array {
    return this.knows(2 * this.m.barrierCount + p, this.s.hb.roles[p]);
  }

  /** Per barrier x, the phase of x that knowledge k knows (the current one or the one before), or −Infinity; once per state and holder h. */
  private knows(h: number, k: Knowledge | undefined): Float64Array {
    let row = this.rows[h];
    if (row === undefined) this.rows[h] = row = new Float64Array(this.m.barrierCount);
    if (this.rowStamps[h] === this.stamp) return row;
    this.rowStamps[h] = this.stamp;
    row.fill(-Infinity);
    if (k !== undefined) this.knownPhases(k, row);
    return row;
  }

  /**
   * Set row[x] to the phase of x that k knows, for the barriers whose phase bits k has (hb.ts
   * `phaseDistance`: bit 0 of x, distance 0; else bit 1, distance 1; neither, 2). Only the set bits
   * are visited: a holder knows a few barriers of a kernel's many (84 in CUTLASS example 57's
   * grouped Pingpong kernel), and a row is made for every barrier and role in every state.
   */
  private knownPhases(k: Knowledge, row: Float64Array): void {
    const set = this.phaseBitsOf(k, undefined);
    for (let i = 1; i <= set[0]!; i++) {
      const x = set[i]! >> 1;
      // bit 0 (distance 0) comes before bit 1 (distance 1): the larger phase wins
      const phase = (this.s.barriers[x]?.phase ?? 0) - (set[i]! & 1);
      if (phase > row[x]!) row[x] = phase;
    }
  }

  /** The one role that may still arrive on b (or reset it), or undefined when none or several may. */
  private onlyArriver(b: number): number | undefined {
    // it depends on the state and b alone: worked out once per state, whatever is asked about b
    if (this.arriverStamps[b] !== this.stamp) {
      this.arriverStamps[b] = this.stamp;
      this.arrivers[b] = this.findOnlyArriver(b);
    }
    const a = this.arrivers[b]!;
    return a < 0 ? undefined : a;
  }

  private findOnlyArriver(b: number): number {
    let found = -1;
    for (let r = 0; r < this.m.roles.length; r++) {
      if (!this.futures.arrives(r, this.s.roles[r] ? this.at[r]! : Infinity, b)) continue;
      if (found >= 0) return -1;
      found = r;
    }
    return found;
  }

}
