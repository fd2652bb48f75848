// How many more phases each barrier can complete on paths of actions outside an ample set, and
// where each role outside the set stops on such paths. It bounds what outside roles can do to a
// barrier over several rounds of a ring: a producer's next-round arrive.expect_tx on full[i] comes
// after its wait on empty[i], which waits for the consumers, which wait on full[i] — so while
// full[i]'s phase does not complete, that arrive cannot happen. Across a cluster the same holds a
// round later: a peer CTA's consumer may pass this round's wait on its own full barrier (its
// copies are in flight) but not the next one, so it arrives on this CTA's empty barrier once.
//
// Named barriers are counters too (B + id): bar.sync and bar.arrive add threads, a generation
// completes at the count, and a role's j-th bar.sync from its pc needs j more generations. So are
// the F and E flags of aref slots, as tokens (horizon.ts `slotCounter`): a role's j-th put into a
// slot from its pc needs j E tokens, which are the flag now and the consumed of the outside; its
// j-th get j F tokens, the flag and the outside's puts. A producer whose next put is into a slot
// the set's consumer still holds stops there, and its later puts are not its horizon.
//
// A least fixed point over bounds N_b (completions still possible), from 0. A role outside the set
// walks its straight-line code from its position (positions.ts: a pc, or an op of its unrolled
// sequence); for each barrier it knows the lowest phase the barrier
// can be in there (passing a wait of parity p means the phase had parity ≠ p) and the highest
// phase it is sure to know (a passed wait observes the phase it passes in). Its stop is the first
// wait (constant operands) where that lowest phase is also the highest one the bound allows and
// has the wait's parity: the wait blocks if the role knows that phase, else it misses it (a
// protocol error that ends the path; `through`: the wait itself may run). Count what the
// outside roles do to each barrier before their stops, and what the copies in flight outside the
// set land; raise N_b to what those updates allow (the current phase needs the pending arrivals
// and, when those are all there is, the bytes; each later phase the expected count); move the
// roles stopped on a raised barrier on; repeat. A wait passed in a walk also teaches its role
// what the barrier's arrivers knew (lessons.ts): a consumer that takes every other k-block knows
// a stage's first round was filled because the other consumer released the order barrier after
// it. Sound by induction on the first completion past a bound: before it every outside role is
// short of its stop, so every update made so far is among those counted, which allow no more
// completions than the bound.
//
// The counts also bound what the outside does to a barrier b that an action of the set updates
// (ample.ts `updateCommutes`). That claim needs b's phase not to complete on outside paths, which
// is what N_b = 0 says; assuming it instead (keeping N_b at 0 whatever the counts) would give
// nothing more: until b is raised both fixed-point iterations make the same moves, and once the
// counts show that the outside alone cannot complete b they never raise it.
import { barrierObject, closesMmaGroup, namedObject, type Futures, type ObjectSpace } from './footprint.ts';
import { fewestPer, NAMED_SYNC, slotCounter, SLOT_TOKEN, TOKEN_WAIT, type Horizons } from './horizon.ts';
import { Lessons, phaseAfterPass } from './lessons.ts';
import type { Machine } from './machine.ts';
import { isStraightLine, runsInOrder, valueAt, type Positions } from './positions.ts';
import { hasOutstanding, outstanding, unitRoles } from './async.ts';
import { currentOp, roleCanMove } from './step.ts';
import { BAR_FREE, BAR_RELEASED, NO_TOKEN, type BarrierState, type MachineState } from './state.ts';

/** A state and an ample set being built: the processes outside it are those that move. */
export interface Outside {
  readonly s: MachineState;
  /** per process, 1 for those of the set: roles 0..R−1, role r's wgmma unit at R + 2r and TMA-store unit at R + 2r + 1, and copy i in flight at firstCopy + i */
  readonly inSet: Uint8Array;
  readonly firstCopy: number;
  /** each role's position in s (positions.ts), worked out once per state by the caller */
  readonly at: Int32Array;
}

/** The process id of the unit that retires role r's groups of kind u (for a warpgroup's wgmma, its first role's), in Outside's layout. */
export function unitProcess(m: Machine, r: number, u: 'mma' | 'store'): number {
  const owner = unitRoles(m, r, u)[0] ?? r;
  return m.roles.length + 2 * owner + (u === 'store' ? 1 : 0);
}

/**
 * Whether role r is blocked at a wgmma.wait or bulk.wait whose unit is in the set (`inSet`, in
 * Outside's layout): only that unit's retirements lower the groups outstanding, so on paths
 * outside the set r stays where it is.
 */
export function waitsOnUnitOf(m: Machine, s: MachineState, inSet: Uint8Array, r: number): boolean {
  const unit = unitWaitOf(m, s, r);
  return unit >= 0 && inSet[unit] === 1;
}

/** The process of the unit role r is blocked on at a wgmma.wait or bulk.wait, or −1: the part of `waitsOnUnitOf` that does not depend on the set. */
function unitWaitOf(m: Machine, s: MachineState, r: number): number {
  const kind = currentOp(m, s, r)?.op.kind;
  if (kind !== 'wgmma.wait' && kind !== 'bulk.wait') return -1;
  return roleCanMove(m, s, r) ? -1 : unitProcess(m, r, kind === 'wgmma.wait' ? 'mma' : 'store');
}

export interface Stuck {
  /** per role: the position of the wait it stops at on paths outside the set (or of the wgmma.wait / bulk.wait it is blocked at, when its unit is in the set), or −1 (no stop, or in the set) */
  readonly stop: Int32Array;
  /**
   * per role: 1 when the wait at its stop may still run, as a protocol error that ends the path (the
   * walk could not tell that the role knows the phase it waits for: stuck.ts `walk`); nothing after
   * it runs either way, but the wait itself is within the role's horizon
   */
  readonly through: Uint8Array;
  /** per barrier, N: how many more phases it can complete on paths outside the set (Infinity: not bounded) */
  readonly bound: Float64Array;
  /**
   * per barrier b, at 3b..3b+2: the arrivals, expected and landed bytes of the outside before the
   * stops; for a named barrier, the threads arriving, the sum of the thread counts the ops name,
   * and how many ops
   */
  readonly counts: Float64Array;
  /** per barrier: what horizon.ts `fewestPer` makes of the outside's ops before the stops */
  readonly fewest: Float64Array;
}

interface Tail {
  readonly barriers: Int32Array;
  readonly counts: Float64Array;
  /** per barrier of the tail: what horizon.ts `fewestPer` makes of its ops */
  readonly fewest: Float64Array;
}
/** a tail with an op that touches every barrier: counted op by op (it sets every count to Infinity) */
const GLOBAL_TAIL = 'global';

/**
 * The analysis for one machine; its scratch arrays are reused by every run (they run one at a
 * time). A worklist: counts grow only when a bound is raised and the roles stopped at a wait on
 * that barrier move on to their next stop, so each op in the outside roles' ranges is counted once.
 */
export class StuckBarriers {
  private readonly m: Machine;
  private readonly o: ObjectSpace;
  private readonly futures: Futures;
  private readonly horizons: Horizons;
  private readonly counters: number;
  /** the first aref token counter (horizon.ts `slotCounter`) */
  private readonly slotsFrom: number;
  /** per barrier: N, the completions still possible (Infinity: not bounded) */
  private readonly bound: Float64Array;
  /** arrivals, expected and landed bytes per barrier, over what is counted so far */
  private readonly counts: Float64Array;
  /** per barrier: what horizon.ts `fewestPer` makes of the ops counted (an mbarrier's fewest bytes per arrival, a named barrier's fewest threads named; Infinity: none yet) */
  private readonly fewest: Float64Array;
  private readonly queued: Uint8Array;
  private readonly queue: number[] = [];
  /** per role: index into horizons.waits of its stop, or of the wait its walk resumes at; −1 when it has no stop */
  private readonly stopIndex: Int32Array;
  /**
   * The roles stopped at a wait on each barrier, as lists: per barrier its first role (−1: none),
   * per role the next. Raising a bound moves on the roles of one list, where a scan of every role
   * per raise cost half of a run on CUTLASS's 2×2-cluster kernels (20 roles).
   */
  private readonly stoppedFirst: Int32Array;
  private readonly stoppedNext: Int32Array;
  /** scratch: the roles taken off a list, to move on in role order */
  private readonly movers: Int32Array;
  /** per role, for the state of `lessonsFor`: the unit process it is blocked on (unitWaitOf), or −1 */
  private readonly unitWait: Int32Array;
  /** per role of a split warpgroup, in straight-line or unrolled positions: its wgmma.wait positions with their N, and its commits before each position */
  private readonly mmaWaits: ({ readonly at: Int32Array; readonly pending: Int32Array; readonly commitsBefore: Int32Array } | undefined)[];
  /** per role, this run: the first position where a wgmma.wait holds it for good on outside paths (held), or Infinity */
  private readonly heldAt: Float64Array;
  private stop: Int32Array;
  private through: Uint8Array = new Uint8Array(0);
  /** per role and barrier: the lowest phase possible at the role's walk, the highest it surely knows; valid when `seen` is this run's */
  private readonly lowest: Float64Array;
  private readonly known: Float64Array;
  private readonly seen: Uint32Array;
  private runId = 0;
  private s!: MachineState;
  /** the roles' positions in `s` (Outside.at) */
  private at: Int32Array = new Int32Array(0);
  /** what a passed wait teaches (lessons.ts), per state */
  private readonly lessons: Lessons;
  /**
   * The results of `run`, handed out for one state and reused for the next (typed-array
   * allocation cost more than the analysis): the caller keeps them only while it works on that
   * state (newState).
   */
  private readonly results: Stuck[] = [];
  private resultsUsed = 0;
  /** the state `lessons` answers for */
  private lessonsFor: MachineState | undefined;
  /** whether a passed wait teaches its waiter what its barrier's arrivers knew (no role can reset a barrier any more) */
  private transfer = false;
  /**
   * How many more completions of a barrier the analysis follows exactly. Unrolled, the outside
   * roles of a ring can feed each other round after round up to the window's end, one fixed-point
   * step and one lesson (learn, which walks the arriver's ops) per wait: past 1, a barrier is taken
   * as unbounded and no lesson is taught, which keeps a run linear in the window (the stops that
   * pay are one phase ahead). Straight-line code (lifted PTX, its own unrolling) is the same with
   * no window: a role runs to its end, and on a multi-CTA kernel the CTAs the set does not hold
   * back walk every remaining wait of theirs, learning at each (CUTLASS example 53 on a 2×2
   * cluster: about 600 waits per run without the limit). In code positions with loops the straight
   * parts are short: no limit. Both are sound: a larger bound and a walk that knows less make roles
   * stop later and count more.
   */
  private readonly lookahead: number;
  /** per role and position: what its ops from there to the end of the straight part do (countTail) */
  private readonly tails = new Map<number, Tail | typeof GLOBAL_TAIL>();

  constructor(m: Machine, o: ObjectSpace, futures: Futures, horizons: Horizons) {
    this.m = m;
    this.o = o;
    this.futures = futures;
    this.horizons = horizons;
    this.lookahead = horizons.positions.unrolled || isStraightLine(m) ? 1 : Infinity;
    // counters 0..B−1 are the mbarriers, B + id the named barriers, then two per aref slot (horizon.ts)
    this.slotsFrom = m.barrierCount + o.named;
    const C = (this.counters = m.barrierCount + o.named + 2 * m.arefSlotCount);
    const R = m.roles.length;
    this.bound = new Float64Array(C);
    this.counts = new Float64Array(3 * C);
    this.fewest = new Float64Array(C);
    this.queued = new Uint8Array(C);
    this.stopIndex = new Int32Array(R);
    this.stop = new Int32Array(R);
    this.stoppedFirst = new Int32Array(C);
    this.stoppedNext = new Int32Array(R);
    this.movers = new Int32Array(R);
    this.unitWait = new Int32Array(R);
    this.lowest = new Float64Array(R * C);
    this.known = new Float64Array(R * C);
    this.seen = new Uint32Array(R * C);
    this.lessons = new Lessons(m, horizons, futures);
    this.heldAt = new Float64Array(R).fill(Infinity);
    this.mmaWaits = m.roles.map((_, r) => mmaWaitsOf(m, horizons.positions, r));
  }

  /** The bounds, the stops of the outside roles and what they do to each barrier before them. */
  run(out: Outside): Stuck {
    const { m, horizons, bound, counts } = this;
    const s = (this.s = out.s);
    this.at = out.at;
    this.runId = (this.runId + 1) >>> 0 || 1;
    const R = m.roles.length;
    this.forState(s, out.at);
    for (let b = 0; b < bound.length; b++) bound[b] = b >= m.barrierCount || s.barriers[b]?.valid === 1 ? 0 : Infinity;
    // an aref slot's tokens now: F or E at 1 lets one get or put pass before any other op runs
    for (let c = this.slotsFrom; c < this.counters; c++) bound[c] = this.tokensNow(c);
    counts.fill(0);
    this.fewest.fill(Infinity);
    const result = this.nextResult();
    this.stop = result.stop;
    this.stop.fill(-1);
    this.through = result.through;
    this.through.fill(0);
    this.stopIndex.fill(-1);
    this.stoppedFirst.fill(-1);
    for (let p = 0; p < R; p++) this.heldAt[p] = out.inSet[p] === 1 ? Infinity : this.held(p, out.at[p]!, out.inSet);
    for (let p = 0; p < R; p++) {
      const rs = s.roles[p];
      if (out.inSet[p] === 1 || rs === undefined) continue;
      const at = out.at[p]!;
      if (at >= horizons.positions.length(p)) continue;
      if (this.unitWait[p]! >= 0 && (out.inSet[this.unitWait[p]!] === 1 || this.partnerHoldsBack(p, out.inSet))) {
        // blocked at a wgmma.wait or bulk.wait whose unit is in the set (waitsOnUnitOf), or cannot retire outside it
        this.stop[p] = at; // no wait index: it never moves on, and nothing of it is counted
        continue;
      }
      // at a bar.sync it arrived at: its arrival is in the state; released, it only leaves
      const arrived = rs.barState === BAR_FREE ? 0 : 1;
      this.stopIndex[p] = horizons.firstWait(p, at + (rs.barState === BAR_RELEASED ? 1 : 0));
      this.advance(p, at + arrived);
    }
    for (let i = 0; i < s.tma.length; i++) {
      const t = s.tma[i]!;
      if (out.inSet[out.firstCopy + i]) continue;
      counts[3 * t.barrier + 2] = counts[3 * t.barrier + 2]! + t.bytes;
      this.enqueue(t.barrier);
    }
    const { queue, queued } = this;
    while (queue.length > 0) {
      const b = queue.pop()!;
      queued[b] = 0;
      const n =
        b < m.barrierCount
          ? completionsAllowed(s.barriers[b]!, counts[3 * b]!, counts[3 * b + 1]!, counts[3 * b + 2]!, this.fewest[b]!)
          : b < this.slotsFrom
            ? generationsAllowed(s, b - m.barrierCount, this.fewest[b]!, counts[3 * b]!)
            : this.tokensNow(b) + counts[3 * b]!;
      if (n <= bound[b]!) continue;
      bound[b] = n > this.lookahead ? Infinity : n;
      // a bar.sync's own arrival was counted with the ops before its stop
      // the roles stopped on b, in role order (the order a scan of every role took): a role that
      // stops on b again joins b's list for its next raise
      const movers = this.movers;
      let moving = 0;
      for (let p = this.stoppedFirst[b]!; p >= 0; p = this.stoppedNext[p]!) {
        let i = moving++;
        for (; i > 0 && movers[i - 1]! > p; i--) movers[i] = movers[i - 1]!;
        movers[i] = p;
      }
      this.stoppedFirst[b] = -1;
      // a bar.sync's arrival at the stop is counted; a wait, put or get there has not run
      const named = b >= m.barrierCount && b < this.slotsFrom ? 1 : 0;
      for (let i = 0; i < moving; i++) this.advance(movers[i]!, this.stop[movers[i]!]! + named);
    }
    result.bound.set(bound);
    result.counts.set(counts);
    result.fewest.set(this.fewest);
    return result;
  }

  /**
   * Whether the unit role p is blocked on cannot retire on paths outside the set: a warpgroup's
   * wgmma unit retires only once every partner has a committed group outstanding, and a partner
   * of the set that has none makes no commit while the set stays put.
   */
  private partnerHoldsBack(p: number, inSet: Uint8Array): boolean {
    const kind = currentOp(this.m, this.s, p)?.op.kind;
    const u = kind === 'wgmma.wait' ? 'mma' : 'store';
    return unitRoles(this.m, p, u).some((q) => inSet[q] === 1 && !hasOutstanding(this.s.roles[q], u));
  }

  /**
   * The first position from `at` of a wgmma.wait that holds role p for good on paths outside the
   * set, or Infinity. Its group count there is its groups outstanding now plus its commits on the
   * way; a retirement takes one group of every partner at once, and a partner of the set commits
   * nothing, so at most as many retire as the fewest groups such a partner has now — none when
   * the unit itself is in the set. A wait N with more groups than N plus those retirements never
   * passes.
   */
  private held(p: number, at: number, inSet: Uint8Array): number {
    const waits = this.mmaWaits[p];
    if (!waits) return Infinity;
    let retirable = inSet[unitProcess(this.m, p, 'mma')] === 1 ? 0 : Infinity;
    for (const q of this.m.mmaPartners[p] ?? []) if (q !== p && inSet[q] === 1) retirable = Math.min(retirable, groupsOf(this.s.roles[q]));
    if (retirable === Infinity) return Infinity;
    const now = groupsOf(this.s.roles[p]);
    const before = waits.commitsBefore;
    for (let k = 0; k < waits.at.length; k++) {
      const i = waits.at[k]!;
      if (i < at) continue;
      if (now + before[i]! - before[at]! - retirable > waits.pending[k]!) return i;
    }
    return Infinity;
  }

  /** The per-state facts of every run on state s (roles at positions `at`), worked out once per state. */
  private forState(s: MachineState, at: Int32Array): void {
    if (this.lessonsFor === s) return;
    this.lessonsFor = s;
    this.lessons.reset(s, at);
    // an init or inval ahead could reset what a barrier's completions teach (mbarrier.ts: init clears barDone)
    this.transfer = s.roles.every((_, p) => !this.horizons.touchesEverythingFrom(p, at[p]!));
    for (let p = 0; p < this.m.roles.length; p++) this.unitWait[p] = unitWaitOf(this.m, s, p);
  }

  /** Per role, the unit process it is blocked on in state s (unitWaitOf), or −1: what a run reads of the set's units (ample.ts `analysisKey`). */
  blockedOn(s: MachineState, at: Int32Array): Int32Array {
    this.forState(s, at);
    return this.unitWait;
  }

  /**
   * Start on a new state (or a new ample computation): the results of earlier runs may be
   * overwritten from now on.
   */
  newState(): void {
    this.resultsUsed = 0;
  }

  private nextResult(): Stuck {
    let r = this.results[this.resultsUsed];
    if (r === undefined) {
      r = { stop: new Int32Array(this.m.roles.length), through: new Uint8Array(this.m.roles.length), bound: new Float64Array(this.counters), counts: new Float64Array(3 * this.counters), fewest: new Float64Array(this.counters) };
      this.results.push(r);
    }
    this.resultsUsed++;
    return r;
  }

  private enqueue(b: number): void {
    if (this.bound[b] !== Infinity && !this.queued[b]) {
      this.queued[b] = 1;
      this.queue.push(b);
    }
  }

  /** Walk role p on from wait index stopIndex[p] to its next stop, counting its ops from `from` up to it. */
  private advance(p: number, from: number): void {
    const { m, horizons, counts } = this;
    const pc = this.at[p]!;
    const held = this.heldAt[p]!;
    const end = Math.min(horizons.straightEnd(p, pc), held);
    const next = this.walk(p, this.stopIndex[p]!, end);
    this.stopIndex[p] = next;
    this.stop[p] = next >= 0 ? horizons.waits[p]![next]! : -1;
    if (next >= 0) {
      // on the list of its stop's barrier, and a bar.sync at the stop arrives before it blocks
      const b = horizons.waitBarriers[p]![next]!;
      this.stoppedNext[p] = this.stoppedFirst[b]!;
      this.stoppedFirst[b] = p;
      return this.count(p, from, this.stop[p]! + (horizons.waitParities[p]![next] === NAMED_SYNC ? 1 : 0));
    }
    if (end === held) {
      // held at a wgmma.wait for good (`held`): counted up to it, and nothing after it
      this.stop[p] = held;
      return this.count(p, from, held);
    }
    this.countTail(p, from, end);
    if (end >= horizons.positions.length(p)) return;
    // no stop in the straight-line part: what comes after it (a loop, a branch) is not counted
    for (let b = 0; b < m.barrierCount; b++) {
      if (!this.futures.writes(p, end, barrierObject(this.o, b))) continue;
      counts[3 * b + 1] = counts[3 * b + 2] = Infinity;
      if (this.futures.arrives(p, end, b)) counts[3 * b] = Infinity;
      this.enqueue(b);
    }
    for (let id = 0; id < this.o.named; id++) {
      if (!this.futures.writes(p, end, namedObject(this.o, id))) continue;
      counts[3 * (m.barrierCount + id)] = Infinity;
      this.enqueue(m.barrierCount + id);
    }
    // aref slot a is object a: a later put or consumed may give either token
    for (let a = 0; a < m.arefSlotCount; a++) {
      if (!this.futures.writes(p, end, a)) continue;
      for (const c of [slotCounter(this.o, a, 'E'), slotCounter(this.o, a, 'F')]) {
        counts[3 * c] = Infinity;
        this.enqueue(c);
      }
    }
  }

  /** The tokens aref counter c (from slotsFrom on) has in the state: its slot's E or F flag. */
  private tokensNow(c: number): number {
    const i = c - this.slotsFrom;
    return ((i & 1) === 0 ? this.s.arefE[i >> 1] : this.s.arefF[i >> 1]) ?? 0;
  }

  /**
   * The index (into horizons.waits[p]) of role p's first wait from index k on, before `end`, that
   * blocks for good while every barrier stays within its bound, or would miss its phase (`through`);
   * −1 when none. Waits passed update the lowest phase and the known phase of their barrier.
   */
  private walk(p: number, k: number, end: number): number {
    const { s, horizons, lowest, known } = this;
    this.through[p] = 0;
    const waits = horizons.waits[p]!;
    const barriers = horizons.waitBarriers[p]!;
    const parities = horizons.waitParities[p]!;
    for (; k < waits.length && waits[k]! < end; k++) {
      const b = barriers[k]!;
      const parity = parities[k]!;
      if (parity === TOKEN_WAIT) {
        // it passes once the phase its arrive joined completes. Claimed blocked only where b cannot
        // complete on the paths considered and that phase is b's current one: the arrive is still
        // ahead (b stays in its phase until it), or its token names the current phase (d = 0)
        if (this.bound[b] === 0 && this.tokenPhaseIsCurrent(p, k, b)) return k;
        continue;
      }
      if (parity === NAMED_SYNC || parity === SLOT_TOKEN) {
        // its j-th bar.sync on the barrier from here needs j more generations to complete, its
        // j-th put or get on a slot j tokens; past an unbounded counter the count needs no keeping
        if (this.bound[b] === Infinity) continue;
        const at = this.entry(p, b);
        const needed = lowest[at]! + 1;
        if (needed > this.bound[b]!) return k;
        lowest[at] = needed;
        continue;
      }
      const bar = s.barriers[b];
      if (!bar || (parity !== 0 && parity !== 1)) continue; // a protocol error if reached
      const at = this.entry(p, b);
      const highest = bar.phase + this.bound[b]!;
      const low = lowest[at]!;
      if (low === highest && (low & 1) === parity) {
        // blocked if it knows this phase; else it misses it, a protocol error that ends the path
        // (the walk's knowledge is a lower bound, so either may be the case): nothing after runs
        this.through[p] = known[at]! >= low ? 0 : 1;
        return k;
      }
      // passed: the waiter observed the phase it passed in
      const after = phaseAfterPass(low, parity);
      lowest[at] = after;
      known[at] = Math.max(known[at]!, after);
      if (this.transfer && after - bar.phase <= this.lookahead) this.learn(p, b, after - bar.phase);
    }
    return -1;
  }

  /** Whether the token role p's wait entry k reads names barrier b's current phase, on paths where b completes no phase. */
  private tokenPhaseIsCurrent(p: number, k: number, b: number): boolean {
    const arrive = this.horizons.tokenArrives[p]![k]!;
    if (arrive >= this.at[p]!) return true;
    // set before p's position: the last arrive setting it before the wait is behind p too, so the
    // token in the state is the one the wait reads
    const instr = this.horizons.positions.instr(p, this.horizons.waits[p]![k]!);
    const slot = instr?.kind === 'op' ? instr.token : undefined;
    const t = slot === undefined ? undefined : this.s.roles[p]?.tokens[slot];
    return t !== undefined && t !== NO_TOKEN && t >> 2 === b && (t & 3) === 0;
  }

  /** Role p's walk position: the lowest and known phase of barrier b there, set from the state on first use in this run. */
  private entry(p: number, b: number): number {
    const at = p * this.counters + b;
    if (this.seen[at] !== this.runId) {
      // a named barrier counts the generations the walk needed so far, from 0
      const phase = this.s.barriers[b]?.phase ?? 0;
      this.seen[at] = this.runId;
      this.lowest[at] = phase;
      // distance 0: knows the current phase; 1: the one before; 2: an older one
      this.known[at] = b < this.m.barrierCount ? Math.max(this.lessons.roleKnows(p)[b]!, phase - 2) : -Infinity;
    }
    return at;
  }

  /**
   * Role p passed a wait on barrier b that needs `completions` more phases of b than the state has:
   * it learns what those completions imply (lessons.ts) about every barrier.
   */
  private learn(p: number, b: number, completions: number): void {
    const lesson = this.lessons.lesson(p, b, completions);
    const { lowest, known } = this;
    for (let i = 1, end = 1 + 3 * lesson[0]!; i < end; i += 3) {
      const at = this.entry(p, lesson[i]!);
      lowest[at] = Math.max(lowest[at]!, lesson[i + 1]!);
      known[at] = Math.max(known[at]!, lesson[i + 2]!);
    }
  }

  /** Add what role p's ops at lo..hi−1 do to barriers. */
  private count(p: number, lo: number, hi: number): void {
    const { horizons, counts } = this;
    const c = horizons.countsOfEffect(p);
    for (let i = horizons.effectsFrom(p, lo), end = horizons.effectsFrom(p, hi); i < end; i++) {
      const b = horizons.barrierOfEffect(p, i);
      if (b < 0) {
        counts.fill(Infinity);
        for (let x = 0; x < this.counters; x++) this.enqueue(x);
        return;
      }
      for (let j = 0; j < 3; j++) counts[3 * b + j] = counts[3 * b + j]! + c[3 * i + j]!;
      this.fewest[b] = fewestPer(b >= this.m.barrierCount, this.fewest[b]!, c[3 * i]!, c[3 * i + 1]!);
      this.enqueue(b);
    }
  }

  /**
   * Add what role p's ops from `from` to `end` (its straight-line end) do: the same sums for every
   * run that lets p run to the end of a straight part, kept per position (sparse: barrier, counts).
   */
  private countTail(p: number, from: number, end: number): void {
    // unrolled, `end` moves with the role (sums per (from, end) would be kept for every pair): running sums
    if (this.horizons.positions.unrolled) return void (this.horizons.sumsIn(p, from, end, this.addSums) || this.count(p, from, end));
    const key = from * 4096 + p; // positions below 2^40 and roles below 4096 keep keys exact
    let tail = this.tails.get(key);
    if (tail === undefined) {
      tail = this.tailSums(p, from, end);
      this.tails.set(key, tail);
    }
    if (tail === GLOBAL_TAIL) return this.count(p, from, end);
    const counts = this.counts;
    for (let i = 0; i < tail.barriers.length; i++) {
      const b = tail.barriers[i]!;
      for (let j = 0; j < 3; j++) counts[3 * b + j] = counts[3 * b + j]! + tail.counts[3 * i + j]!;
      this.fewest[b] = Math.min(this.fewest[b]!, tail.fewest[i]!);
      this.enqueue(b);
    }
  }

  /** countTail's adder for Horizons.sumsIn */
  private readonly addSums = (b: number, arrivals: number, expects: number, lands: number, fewest: number): void => {
    const counts = this.counts;
    counts[3 * b] = counts[3 * b]! + arrivals;
    counts[3 * b + 1] = counts[3 * b + 1]! + expects;
    counts[3 * b + 2] = counts[3 * b + 2]! + lands;
    this.fewest[b] = Math.min(this.fewest[b]!, fewest);
    this.enqueue(b);
  };

  private tailSums(p: number, from: number, end: number): Tail | typeof GLOBAL_TAIL {
    const { horizons } = this;
    const c = horizons.countsOfEffect(p);
    const index = new Map<number, number>();
    const barriers: number[] = [];
    const sums: number[] = [];
    const fewest: number[] = [];
    for (let i = horizons.effectsFrom(p, from), last = horizons.effectsFrom(p, end); i < last; i++) {
      const b = horizons.barrierOfEffect(p, i);
      if (b < 0) return GLOBAL_TAIL;
      let k = index.get(b);
      if (k === undefined) {
        k = barriers.length;
        index.set(b, k);
        barriers.push(b);
        sums.push(0, 0, 0);
        fewest.push(Infinity);
      }
      for (let j = 0; j < 3; j++) sums[3 * k + j] = sums[3 * k + j]! + c[3 * i + j]!;
      fewest[k] = fewestPer(b >= this.m.barrierCount, fewest[k]!, c[3 * i]!, c[3 * i + 1]!);
    }
    return { barriers: Int32Array.from(barriers), counts: Float64Array.from(sums), fewest: Float64Array.from(fewest) };
  }
}

/**
 * How many phases a barrier can complete when these updates are all that happens to it: none when the current
 * phase cannot complete — fewer arrivals than pending, or exactly as many and bytes still missing
 * once all is done (after the last arrival only landings come, and they only lower tx, so it stays
 * above 0), or fewer bytes landing than tx is now (expects only add to it) — else one, and one
 * more per `expected` arrivals left over (an arrival past the pending count is a protocol error
 * that ends the path). Bytes bound the later phases too: each needs `expected` arrivals of its
 * own, each bringing at least `perArrival` expected bytes (the fewest any op counted brings), and
 * its tx is 0 when it completes, so those bytes land within it; the current phase takes at least
 * max(tx, 0) of the landings. An Infinity or NaN (a count not known) allows any number.
 */
export function completionsAllowed(bar: BarrierState, arrivals: number, expects: number, lands: number, perArrival: number): number {
  if (arrivals < bar.pending || (arrivals === bar.pending && bar.tx + expects - lands > 0) || lands < bar.tx) return 0;
  if (!Number.isFinite(arrivals) || bar.expected <= 0) return Infinity;
  const byArrivals = 1 + Math.floor((arrivals - bar.pending) / bar.expected);
  const perPhase = bar.expected * perArrival;
  if (!(perPhase > 0) || !Number.isFinite(perPhase) || !Number.isFinite(lands)) return byArrivals;
  return Math.min(byArrivals, 1 + Math.floor((lands - Math.max(bar.tx, 0)) / perPhase));
}

/**
 * How many generations named barrier `id` can complete when `arrivals` more threads arrive, by ops
 * that name `threads` threads at the fewest (horizon.ts `fewestPer`; Infinity: no op counted): none
 * while fewer than it still misses (the count it was opened for, or else `threads`, less those in),
 * else one and one more per `threads` left over. 0 for `threads`: some op names a count that is
 * not a constant (any number).
 */
export function generationsAllowed(s: MachineState, id: number, threads: number, arrivals: number): number {
  if (threads <= 0 || !Number.isFinite(arrivals)) return Infinity;
  if (!Number.isFinite(threads)) return arrivals > 0 ? Infinity : 0;
  const missing = threadsMissing(s, id, threads);
  if (arrivals < missing) return 0;
  return 1 + Math.floor((arrivals - missing) / threads);
}

/** Threads named barrier id still misses in its current generation: the count it was opened for, else `threads`, less those in. */
export function threadsMissing(s: MachineState, id: number, threads: number): number {
  return (s.namedThreads[id] || threads) - (s.namedCount[id] ?? 0);
}


/**
 * The wgmma.wait positions of role r, with their N, and its commits before each position, for a
 * role whose positions run in order (straight-line code or unrolled); undefined otherwise, when it
 * has no wgmma.wait, or where an N cannot be told (then no wait is taken as held).
 */
function mmaWaitsOf(m: Machine, p: Positions, r: number): { at: Int32Array; pending: Int32Array; commitsBefore: Int32Array } | undefined {
  if (!m.roles[r]?.code.some((instr) => instr.kind === 'op' && instr.op.kind === 'wgmma.wait')) return undefined;
  const n = p.length(r);
  if (!runsInOrder(p, r)) return undefined;
  const commitsBefore = new Int32Array(n + 1);
  const at: number[] = [];
  const pending: number[] = [];
  for (let i = 0; i < n; i++) {
    const instr = p.instr(r, i);
    const op = instr?.kind === 'op' ? instr.op : undefined;
    commitsBefore[i + 1] = commitsBefore[i]! + (op !== undefined && closesMmaGroup(op) ? 1 : 0);
    if (op?.kind !== 'wgmma.wait' || instr?.kind !== 'op') continue;
    const v = valueAt(p, r, i, instr.args[0], op.pending.kind === 'num');
    if (v === undefined || !Number.isInteger(v) || v < 0) return undefined;
    at.push(i);
    pending.push(v);
  }
  return { at: Int32Array.from(at), pending: Int32Array.from(pending), commitsBefore };
}

/** A role's wgmma groups outstanding, as its wgmma.wait counts them (async.ts `outstanding`); none for a role not started. */
const groupsOf = (rs: MachineState['roles'][number] | undefined): number => (rs ? outstanding(rs, 'mma') : 0);
