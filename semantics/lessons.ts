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
import { phaseDistance } from './hb.ts';
import type { Horizons } from './horizon.ts';
import type { Machine } from './machine.ts';
import type { MachineState } from './state.ts';

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
}

export class Lessons {
  private readonly m: Machine;
  private readonly horizons: Horizons;
  private readonly futures: Futures;
  private s!: MachineState;
  private at: Int32Array = new Int32Array(0);
  private stamp = 0;
  /** the lesson per (completions, barrier, waiter), for this state */
  private readonly lessons = new Map<number, Float64Array>();
  /** lesson arrays, reused from state to state (typed-array allocation costs more than the analysis) */
  private readonly pool: Float64Array[] = [];
  private used = 0;
  /** per knowledge holder (b's completed phases at b, its pending phase at B + b, role a at 2B + a): its row of `knows` and the stamp it is for */
  private readonly rows: Float64Array[] = [];
  private readonly rowStamps: Uint32Array;
  private readonly cursors: Cursor[] = [];
  /** facts for a count no cursor answers */
  private readonly scratch: Float64Array;
  /** per barrier: the only role that may still arrive on it (−1: none or several), for the state of `arriverStamps` */
  private readonly arrivers: Int32Array;
  private readonly arriverStamps: Uint32Array;

  constructor(m: Machine, horizons: Horizons, futures: Futures) {
    this.m = m;
    this.horizons = horizons;
    this.futures = futures;
    this.rowStamps = new Uint32Array(2 * m.barrierCount + m.roles.length);
    this.scratch = new Float64Array(2 * m.barrierCount);
    this.arrivers = new Int32Array(m.barrierCount);
    this.arriverStamps = new Uint32Array(m.barrierCount);
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
    const cached = this.lessons.get(key);
    if (cached !== undefined) return cached;
    const facts = this.factsAt(p, b, completions);
    let lesson = this.pool[this.used];
    if (lesson === undefined) this.pool.push((lesson = new Float64Array(1 + 3 * B)));
    this.used++;
    const mine = this.knows(2 * B + p, s.hb.roles[p]);
    let n = 0;
    for (let x = 0; x < B; x++) {
      const phase = s.barriers[x]?.phase ?? 0;
      const low = facts[2 * x]!;
      const knows = facts[2 * x + 1]!;
      // the walk starts at lowest = phase, known = phase − distance (distance 2: phase − 2)
      if (low <= phase && (knows === -Infinity || knows <= Math.max(mine[x]!, phase - 2))) continue;
      lesson[1 + 3 * n] = x;
      lesson[2 + 3 * n] = low;
      lesson[3 + 3 * n] = knows;
      n++;
    }
    lesson[0] = n;
    this.lessons.set(key, lesson);
    return lesson;
  }

  /** Per barrier x: 2x a lowest phase of x, 2x + 1 a phase of x known, once p passed its wait on b (valid until the next call). */
  private factsAt(p: number, b: number, completions: number): Float64Array {
    const { m, s } = this;
    const bar = s.barriers[b];
    const a = completions > 0 ? this.onlyArriver(b) : undefined;
    if (a === undefined || a === p || !bar || bar.expected <= 0) return this.base(b, completions, this.scratch);
    let cursor = this.cursors[b];
    if (cursor === undefined) this.cursors[b] = cursor = { stamp: 0, completions: 0, failed: Infinity, at: 0, effect: -1, arrivals: 0, wait: 0, facts: new Float64Array(2 * m.barrierCount) };
    if (cursor.stamp !== this.stamp || cursor.completions > completions) this.start(cursor, a, b);
    const need = bar.pending + (completions - 1) * bar.expected;
    // A's arrivals do not reach the count: only b's own knowledge is learnt (and the cursor stays)
    if (need >= cursor.failed || !this.reach(cursor, a, b, need)) {
      cursor.failed = Math.min(cursor.failed, need);
      return this.base(b, completions, this.scratch);
    }
    cursor.completions = completions;
    this.takeWaits(cursor, a);
    return cursor.facts;
  }

  /** The facts b's knowledge alone gives, into `facts`. */
  private base(b: number, completions: number, facts: Float64Array): Float64Array {
    const { m, s } = this;
    const B = m.barrierCount;
    const done = this.knows(b, s.hb.barDone[b]);
    const pending = completions > 0 ? this.knows(B + b, s.hb.barPending[b]) : undefined;
    for (let x = 0; x < B; x++) {
      facts[2 * x] = s.barriers[x]?.phase ?? 0;
      facts[2 * x + 1] = pending === undefined ? done[x]! : Math.max(done[x]!, pending[x]!);
    }
    return facts;
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
    const facts = this.base(b, 1, cursor.facts);
    const arriver = this.knows(2 * B + a, this.s.hb.roles[a]);
    for (let x = 0; x < B; x++) facts[2 * x + 1] = Math.max(facts[2 * x + 1]!, arriver[x]!);
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
    }
  }

  /** Per barrier x, the phase of x that knowledge k knows (the current one or the one before), or −Infinity; once per state and holder h. */
  private knows(h: number, k: Knowledge | undefined): Float64Array {
    const { m, s } = this;
    let row = this.rows[h];
    if (row === undefined) this.rows[h] = row = new Float64Array(m.barrierCount);
    if (this.rowStamps[h] === this.stamp) return row;
    this.rowStamps[h] = this.stamp;
    for (let x = 0; x < row.length; x++) {
      const d = k === undefined ? 2 : phaseDistance(m, k, x);
      row[x] = d === 2 ? -Infinity : (s.barriers[x]?.phase ?? 0) - d;
    }
    return row;
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
