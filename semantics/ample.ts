// Partial-order reduction: a persistent ("stubborn") set of the enabled actions, computed from
// footprints (footprint.ts). The processes are the roles, each in-flight TMA copy, and each
// role's two async units. Starting from one enabled action, the set is closed under:
//   - an enabled action in the set brings in every process that may ever touch what it touches
//     (a role through its future from its position, positions.ts, a copy through its slot and
//     barrier, a unit through the slots it still reads);
//   - a disabled process in the set brings in the processes that can enable it (a wait on b: the
//     roles whose future touches b and the copies landing on b; a unit: a partner that lacks a
//     committed group, whose commit alone can give it one).
// No process outside the set can then reach an action dependent on one inside before an action of
// the set runs, so the set is persistent (Godefroid 1996, ch. 4). The explorer adds the rest
// when an action of the set leads to a violation (visibility), and uses the reduction only where
// the state graph is acyclic (a progress measure), which makes the cycle proviso hold trivially.
import { barrierObject, currentTouch, Futures, GLOBAL, groupObject, namedObject, objectSpace, positionTouches, type ObjectSpace, type Touch } from './footprint.ts';
import type { OpInstr } from './context.ts';
import { hasOutstanding, unitRoles } from './async.ts';
import { Horizons, updateOf, type BarrierUpdates } from './horizon.ts';
import { StuckBarriers, threadsMissing, unitProcess, waitsOnUnitOf, type Stuck } from './stuck.ts';
import type { Machine } from './machine.ts';
import { BAR_FREE, type MachineState } from './state.ts';
import { currentOp, type Action } from './step.ts';
import { CodePositions, UnrolledPositions } from './positions.ts';

const UNITS = ['mma', 'store'] as const;
type Unit = (typeof UNITS)[number];

export class AmpleSets {
  private readonly m: Machine;
  private readonly o: ObjectSpace;
  private readonly futures: Futures;
  private readonly horizons: Horizons;
  private readonly stuck: StuckBarriers;

  constructor(m: Machine) {
    this.m = m;
    this.o = objectSpace(m);
    // unrolled when the roles' op sequences are short enough: every operand known, no loop to stop at
    const positions = UnrolledPositions.of(m) ?? new CodePositions(m);
    const touches = positionTouches(m, this.o, positions);
    this.futures = new Futures(m, this.o, positions, touches);
    this.horizons = new Horizons(m, this.o, positions, touches);
    this.stuck = new StuckBarriers(m, this.o, this.futures, this.horizons);
    this.closure = new Closure(m, this.o, this.futures, this.horizons, this.stuck);
  }

  /** One closure builder, reset for each state: its arrays are reused rather than allocated per state and per seed. */
  private readonly closure: Closure;
  private readonly retry: number[] = [];
  /** per action index: 1 when the probe found that its seed is not a set of one action */
  private notAlone = new Uint8Array(0);

  /**
   * Indices into `actions` (the full enabled list, enabledActions' order) of a persistent subset,
   * or undefined when no proper subset is found.
   *
   * The set taken is the first, in the order of the passes (SEED_PASSES), of the smallest size any
   * seed gives. Most states of real kernels have a seed that is a set of one action, most often a
   * role at an op on slots or groups (a shared-memory read, a wgmma), while seeds at waits and
   * arrives grow to many actions, an analysis (stuck.ts) at each step. So such role seeds are
   * probed first, each closure built only until it has two enabled actions: once one is alone,
   * the passes need build no closure further than that, and skip the seeds the probe found not
   * alone. The set taken is the same as without the probe.
   */
  choose(s: MachineState, actions: readonly Action[]): number[] | undefined {
    if (actions.length <= 1 || s.violation) return undefined;
    this.stuck.newState(); // the analyses of the last state are no longer needed
    const ctx = this.closure;
    ctx.reset(s, actions);
    if (this.notAlone.length < actions.length) this.notAlone = new Uint8Array(2 * actions.length);
    const notAlone = this.notAlone;
    notAlone.fill(0, 0, actions.length);
    let alone = false;
    // the seed the probe found alone, and its set: the role pass asks the same closure again
    let aloneAt = -1;
    let aloneSet: number[] | undefined;
    for (let i = 0; i < actions.length && !alone; i++) {
      const a = actions[i]!;
      if (a.kind !== 'role' || !onSlotsOrGroups(currentOp(this.m, s, a.role)?.op.kind)) continue;
      const set = ctx.from(a, 2, Infinity); // never GREW: no limit on the analyses
      if (set === undefined || set === GREW) notAlone[i] = 1;
      else {
        alone = true;
        aloneAt = i;
        aloneSet = set;
      }
    }
    let best: number[] | undefined;
    // retried: the unit seeds cut short in their first pass (SEED_PASSES)
    const retry = this.retry;
    retry.length = 0;
    passes: for (const { kind, analyses, cutShortOnly } of SEED_PASSES) {
      for (let i = 0; i < actions.length; i++) {
        if (actions[i]!.kind !== kind || (cutShortOnly && !retry.includes(i)) || (alone && notAlone[i] === 1)) continue;
        // a later seed is taken only when its set is strictly smaller: stop building it at that size
        const limit = best?.length ?? (alone ? 2 : actions.length);
        // a closure is a function of the state, the seed, the limit and the analyses allowed: the probe's is reused
        const set = i === aloneAt && limit === 2 && analyses === Infinity ? aloneSet : ctx.from(actions[i]!, limit, analyses);
        if (set === GREW) retry.push(i);
        if (set === undefined || set === GREW) continue;
        best = set;
        if (best.length === 1) break passes;
      }
    }
    return best !== undefined && best.length < actions.length ? best.sort((x, y) => x - y) : undefined;
  }
}

/** Role ops on slots, groups and copies, not on a barrier's phase: the probe's seeds in `choose`. */
const ON_SLOTS_OR_GROUPS: ReadonlySet<string> = new Set(['read', 'write', 'atomic', 'wgmma.issue', 'wgmma.commit', 'tma.load', 'tma.store', 'bulk.commit', 'fence.proxy.async']);
const onSlotsOrGroups = (kind: string | undefined): boolean => kind !== undefined && ON_SLOTS_OR_GROUPS.has(kind);

/** Thrown by stuckNow past the closure's allowance of analyses, caught by `from`. */
const OUT_OF_ANALYSES = new Error('the closure needs more runs of the stuck analysis than it is allowed');

/** Thrown by a closure's `add` when the set reaches its limit of enabled actions, caught by `from`. */
const AT_LIMIT = new Error('the closure has as many enabled actions as the set it must beat');

/** One zeroed scratch array per object space, reused by every closure (they run one at a time). */
const scratch = new WeakMap<ObjectSpace, Uint8Array>();
function marksFor(o: ObjectSpace): Uint8Array {
  let m = scratch.get(o);
  if (!m) {
    m = new Uint8Array(o.count);
    scratch.set(o, m);
  }
  return m;
}

/**
 * The seeds choose tries, by kind, in passes. Copies first: in real kernels most interleavings are
 * TMA landings and wgmma retirements in every order. Then units, while a unit's closure needs at most
 * one run of the stuck analysis (stuck.ts): a unit's retirement reads slots that a producer's future
 * writes, and a closure that needs a second run has pulled in a role whose horizon must be worked
 * out again; in a looped pipeline it mostly grows to every action, run after run. Then roles, and
 * last the units cut short, in full. Measured (docs/checker.md): units in full before roles cost
 * mbarrier D12 P1 C6 K64 8.7 s; roles before units took it to 1.9 s but DeepGEMM's multicast kernel
 * from 3,303 states to 17,118; these passes keep DeepGEMM at 3,303 and take C6 to 5.2 s.
 */
const SEED_PASSES = [
  { kind: 'land', analyses: Infinity, cutShortOnly: false },
  { kind: 'retire', analyses: 1, cutShortOnly: false },
  { kind: 'role', analyses: Infinity, cutShortOnly: false },
  { kind: 'retire', analyses: Infinity, cutShortOnly: true },
] as const satisfies readonly { kind: Action['kind']; analyses: number; cutShortOnly: boolean }[];
const everyKindSeeds: Exclude<Action['kind'], (typeof SEED_PASSES)[number]['kind']> extends never ? true : never = true;
void everyKindSeeds;

/** What a closure returns when it needed more runs of the stuck analysis than it was allowed. */
const GREW = 'grew';

/** Process ids: roles 0..R-1, units R + 2r + (store), copies R + 2R + i. */
class Closure {
  private readonly R: number;
  /** processes in this state: 3R + the copies in flight */
  private processes = 0;
  /** process → action index, −1 when disabled (the first `processes` entries) */
  private actionOf = new Int32Array(0);
  private readonly m: Machine;
  private readonly o: ObjectSpace;
  private readonly futures: Futures;
  private readonly horizons: Horizons;
  private s!: MachineState;
  /** each role's position in this state (positions.ts) */
  private readonly at: Int32Array;
  /** each process's touch in this state, computed once for all seeds */
  private readonly touches: (Touch | undefined)[] = [];
  /** per process, what its own touch conflicts with in this state, whatever the set (see `conflicts`) */
  private readonly hits: (Hits | undefined)[] = [];
  /** scratch over the object space (all zero between uses) */
  private readonly marks: Uint8Array;

  private readonly analysis: StuckBarriers;

  constructor(m: Machine, o: ObjectSpace, futures: Futures, horizons: Horizons, analysis: StuckBarriers) {
    this.m = m;
    this.analysis = analysis;
    this.o = o;
    this.futures = futures;
    this.horizons = horizons;
    this.R = m.roles.length;
    this.at = new Int32Array(this.R);
    this.marks = marksFor(o);
    this.isDeferred = new Uint8Array(this.R);
  }

  /** Start on state s with its enabled actions. */
  reset(s: MachineState, actions: readonly Action[]): void {
    this.s = s;
    this.processes = 3 * this.R + s.tma.length;
    if (this.actionOf.length < this.processes) {
      this.actionOf = new Int32Array(2 * this.processes);
      this.inSet = new Uint8Array(2 * this.processes);
    }
    this.actionOf.fill(-1, 0, this.processes);
    this.touches.length = 0;
    this.hits.length = 0;
    this.stuck.clear();
    this.byAnalysis.clear();
    for (let r = 0; r < this.R; r++) {
      const rs = s.roles[r];
      this.at[r] = rs ? this.horizons.positions.of(r, rs) : this.horizons.positions.length(r);
    }
    actions.forEach((a, i) => {
      this.actionOf[this.processOf(a)] = i;
    });
  }

  private processOf(a: Action): number {
    if (a.kind === 'role') return a.role;
    if (a.kind === 'retire') return unitProcess(this.m, a.role, a.unit);
    return 3 * this.R + a.index;
  }

  /**
   * What process p's next action touches: a role its current op (an empty touch once finished),
   * a unit the slots it still reads and its group list, a copy its slot and its barrier (a landing
   * writes the slot and completes transaction bytes on the barrier).
   */
  private touchOf(p: number): Touch {
    const cached = this.touches[p];
    if (cached !== undefined) return cached;
    const { m, o, s } = this;
    let touch: Touch;
    if (p < this.R) {
      const instr = currentOp(m, s, p);
      touch = instr ? withoutGroups(o, p, currentTouch(m, o, s, p, instr)) : { reads: [], writes: [] };
    } else if (p < 3 * this.R) {
      const r = (p - this.R) >> 1;
      const u = (p - this.R) & 1 ? 'store' : 'mma';
      // a warpgroup's wgmma unit is its first role's, and retires in every partner
      const members = unitRoles(m, r, u);
      touch = members[0] === r ? unitTouch(s, members, u) : { reads: [], writes: [] };
    } else {
      const t = s.tma[p - 3 * this.R];
      touch = { reads: [], writes: t ? [...Array.from({ length: t.span }, (_, i) => t.slot + i), barrierObject(o, t.barrier)] : [] };
    }
    this.touches[p] = touch;
    return touch;
  }

  /**
   * Where a role whose future conflicts goes while it is blocked (set during a closure): such a
   * role is added only if some process that could unblock it is outside the set (see `from`).
   */
  private deferring = false;
  private readonly deferred: number[] = [];
  private readonly isDeferred: Uint8Array;
  /** the processes of the closure being built (a role outside it is bounded by its horizon); reused by every seed */
  private inSet: Uint8Array = new Uint8Array(0);
  /** per blocked role, the processes that could unblock it (undefined: unknown); per closure */
  private readonly enablers = new Map<number, readonly number[] | undefined>();

  /**
   * The enabled actions of the closure of `seed`, or undefined when it must be every action or
   * would have `limit` or more (the closure only grows, so it stops there).
   * A role whose future conflicts with the set but which is blocked now, and can be unblocked only
   * by processes already in the set, cannot move before an action of the set does: it is left
   * out (Godefroid's stubborn sets: a disabled process needs only its enablers). Once the rest of
   * the closure is done, every such role whose enablers are not all in the set is added after all.
   */
  from(seed: Action, limit: number, analyses: number): number[] | undefined | typeof GREW {
    this.analysesLeft = analyses;
    const inSet = this.inSet;
    inSet.fill(0, 0, this.processes);
    const stack = this.stack;
    stack.length = 0;
    stack.push(this.processOf(seed));
    inSet[stack[0]!] = 1;
    this.enabledIn = 1;
    this.limit = limit;
    const add = this.add;
    this.current = this.latest = undefined;
    this.enablers.clear(); // they depend on the set (through horizons)
    const deferred = this.deferred;
    this.deferring = true;
    try {
      const out: number[] = [];
      for (;;) {
        while (stack.length > 0) {
          const p = stack.pop()!;
          const enabled = this.actionOf[p]!;
          if (enabled >= 0 && out.push(enabled) >= limit) return undefined;
          const ok = p < this.R ? this.role(p, enabled >= 0, add) : p < 3 * this.R ? this.unit(p, enabled >= 0, add) : this.copy(p, add);
          if (!ok) return undefined;
        }
        for (const q of deferred) if (!inSet[q] && !this.onlyUnblockedBy(q, inSet)) add(q);
        if (stack.length === 0) return out.length < limit ? out : undefined;
      }
    } catch (e) {
      if (e === OUT_OF_ANALYSES) return GREW;
      if (e === AT_LIMIT) return undefined;
      throw e;
    } finally {
      this.deferring = false;
      for (const q of deferred) this.isDeferred[q] = 0;
      deferred.length = 0;
    }
  }

  /** the closure being built: its processes still to look at, its enabled processes, the size at which it is given up */
  private readonly stack: number[] = [];
  private enabledIn = 0;
  private limit = 0;
  /**
   * Put process p in the set. At `limit` enabled processes the closure is given up at once,
   * before the analyses the processes still on the stack would ask for (it only grows). Made once,
   * not per closure: tsx names every closure it makes (keepNames).
   */
  private readonly add = (p: number): void => {
    if (this.inSet[p]) return;
    this.inSet[p] = 1;
    this.current = undefined;
    this.stack.push(p);
    if (this.actionOf[p]! >= 0 && ++this.enabledIn >= this.limit) throw AT_LIMIT;
  };

  /** Set a blocked role aside (see `from`). */
  private defer(q: number): void {
    if (this.inSet[q] || this.isDeferred[q]) return;
    this.isDeferred[q] = 1;
    this.deferred.push(q);
  }

  /**
   * The position of the first wait in role q's straight-line code from its pc that q cannot pass
   * on any path of actions outside the set (stuck.ts): so only q's ops before it can conflict with
   * the set (and a bar.sync's arrival there). Undefined when there is none: q's whole future counts.
   * `st`: an analysis to read it from (the set's now when undefined). Asked only of a role with
   * a wait ahead (`earliestStop` defined).
   */
  private horizon(q: number, st: Stuck | undefined): number | undefined {
    const analysis = st ?? this.stuckNow();
    const stop = analysis.stop[q] ?? -1;
    if (stop < 0) return undefined;
    // a bar.sync at the stop arrives before it blocks, and a wait that may miss its phase may run
    // (as a protocol error): that op is within the horizon
    const op = this.horizons.positions.instr(q, stop);
    return analysis.through[q] === 1 || (op?.kind === 'op' && op.op.kind === 'bar.sync') ? stop + 1 : stop;
  }

  /**
   * Where role q's horizon ends at the earliest, whatever the set: at its first wait with known
   * operands in straight-line code (after it, for a bar.sync, which arrives before it blocks), or
   * where it is, blocked at a wgmma.wait or bulk.wait (stuck.ts stops it there when the unit is
   * in the set). Undefined when there is no such wait: q's whole future counts.
   */
  private earliestStop(q: number): number | undefined {
    if (!this.s.roles[q]) return undefined;
    const at = this.at[q]!;
    const k = this.horizons.firstWait(q, at);
    const kind = currentOp(this.m, this.s, q)?.op.kind;
    // an enabled put or get has its token now (its flag is 1), and an enabled wait whose phase has
    // completed its parity: the analysis never stops q there (stuck.ts walk: the lowest phase there
    // is the current one). A wait enabled only to miss its phase may be stopped there (`through`)
    const passes = this.horizons.waits[q]![k] === at && this.actionOf[q]! >= 0 && (kind === 'put' || kind === 'get' || (kind === 'wait' && this.phasePassed(q, k)));
    const first = this.horizons.waits[q]![passes ? k + 1 : k];
    if (first === undefined || first >= this.horizons.straightEnd(q, at)) return undefined;
    // blocked there, the analysis may hold it where it is; enabled, it runs on to its first wait
    if ((kind === 'wgmma.wait' || kind === 'bulk.wait') && this.actionOf[q]! < 0) return at;
    const op = this.horizons.positions.instr(q, first);
    return op?.kind === 'op' && op.op.kind === 'bar.sync' ? first + 1 : first;
  }

  /** Whether role q's wait entry k is a parity wait whose barrier's current phase is not of its parity. */
  private phasePassed(q: number, k: number): boolean {
    const parity = this.horizons.waitParities[q]![k]!;
    const bar = this.s.barriers[this.horizons.waitBarriers[q]![k]!];
    return (parity === 0 || parity === 1) && bar?.valid === 1 && (bar.phase & 1) !== parity;
  }

  /**
   * The analysis of stuck.ts for the set as it is now, per state and set: it depends on the roles
   * and units of the set and on the bytes its copies withhold from their barriers, and seeds often
   * grow into sets that agree on those.
   */
  private stuckNow(): Stuck {
    if (this.current !== undefined) return this.current;
    const { inSet, s, R } = this;
    let key = '';
    // the roles and units of the set (a role blocked on a unit of the set stays put: stuck.ts)
    for (let p = 0; p < 3 * R; p++) if (inSet[p]) key += `${p},`;
    const withheld = this.withheldKey();
    key += withheld;
    let st = this.stuck.get(key);
    if (!st) {
      if (this.analysesLeft-- <= 0) throw OUT_OF_ANALYSES;
      const same = this.analysisKey() + withheld;
      st = this.byAnalysis.get(same);
      if (!st) {
        st = this.analysis.run({ s, inSet, firstCopy: 3 * R, at: this.at });
        this.byAnalysis.set(same, st);
      }
      this.stuck.set(key, st);
    }
    return (this.current = this.latest = st);
  }
  /** The copies of the set, as the barriers and bytes they withhold (part of both keys of `stuckNow`). */
  private withheldKey(): string {
    const { inSet, s, R } = this;
    const withheld: string[] = [];
    for (let i = 0; i < s.tma.length; i++) if (inSet[3 * R + i]) withheld.push(`${s.tma[i]!.barrier}:${s.tma[i]!.bytes}`);
    return withheld.length > 0 ? `|${withheld.sort().join(',')}` : '';
  }

  /**
   * What the analysis reads of the set (stuck.ts `run`): its roles, and of its units those an
   * outside role is blocked on and the wgmma units of outside roles (`held`: a unit of the set
   * retires nothing, so a wgmma.wait ahead may hold its role for good). Sets that differ in other
   * units get the same analysis, which is run once.
   */
  private analysisKey(): string {
    const { inSet, R } = this;
    const blockedOn = this.analysis.blockedOn(this.s, this.at);
    let key = '';
    for (let p = 0; p < R; p++) {
      if (inSet[p]) {
        key += `${p},`;
        continue;
      }
      if (blockedOn[p]! >= 0 && inSet[blockedOn[p]!]) key += `u${p},`;
      if (inSet[unitProcess(this.m, p, 'mma')]) key += `m${p},`;
    }
    return key;
  }

  /**
   * The last analysis of this closure, made for the set as it was then: a subset of the set now.
   * Its stops still hold: a path of actions outside the set now is also outside that subset, and
   * the stops are claims about every such path. So a role its stop keeps clear of the set's
   * touch needs no new run (a new one could only stop it sooner); one it does not keep clear is
   * asked again of the analysis of the set as it is now (`conflicts`).
   */
  private latest: Stuck | undefined;
  private readonly stuck = new Map<string, Stuck>();
  /** the same analyses by what they read of the set (`analysisKey`): several sets share one */
  private readonly byAnalysis = new Map<string, Stuck>();
  /** stuckNow() since the set last grew */
  private current: Stuck | undefined;
  /** runs of the stuck analysis the closure being built may still make (`from`) */
  private analysesLeft = Infinity;

  /** Whether every process that could unblock blocked role q is in the set. */
  private onlyUnblockedBy(q: number, inSet: Uint8Array): boolean {
    let enablers = this.enablers.get(q);
    if (!this.enablers.has(q)) {
      const saved = this.deferring;
      this.deferring = false;
      const found: number[] = [];
      enablers = this.role(q, false, (p) => void found.push(p)) ? found : undefined;
      this.deferring = saved;
      this.enablers.set(q, enablers);
    }
    return enablers !== undefined && enablers.every((p) => inSet[p] === 1);
  }

  private role(r: number, enabled: boolean, add: (p: number) => void): boolean {
    const instr = currentOp(this.m, this.s, r);
    if (!instr) return true; // finished
    const touch = this.touchOf(r);
    if (touch === GLOBAL) return false;
    if (enabled) {
      const update = this.arriveUpdate(r, instr);
      const named = update ? undefined : this.namedArrival(r, instr);
      const watched = update || named ? undefined : this.waitedBarrier(r, instr);
      const commuting =
        update && this.updateCommutes(update.barrier, update)
          ? barrierObject(this.o, update.barrier)
          : named !== undefined && this.namedCommutes(named.id, named.threads, named.own)
            ? namedObject(this.o, named.id)
            : watched !== undefined && this.waitCommutes(watched)
              ? barrierObject(this.o, watched)
              : undefined;
      this.conflicts(commuting !== undefined ? withoutBarrier(touch, commuting) : touch, r, add);
      return true;
    }
    // disabled: who can enable it
    switch (instr.op.kind) {
      case 'wait':
      case 'wait.token':
      case 'put':
      case 'get':
      case 'bar.sync':
        this.conflicts(touch, r, add);
        return true;
      case 'wgmma.wait':
        add(unitProcess(this.m, r, 'mma'));
        return true;
      case 'bulk.wait':
        add(unitProcess(this.m, r, 'store'));
        return true;
      default:
        return false; // blocked for a reason this file does not know: no reduction
    }
  }

  /** Role r's current op as an update of one barrier, when it is an arrive or arrive.expect_tx with known operands. */
  private arriveUpdate(r: number, instr: OpInstr): (BarrierUpdates & { barrier: number }) | undefined {
    const op = instr.op;
    if (op.kind !== 'arrive' && op.kind !== 'arrive.expect_tx') return undefined;
    const rs = this.s.roles[r];
    const ref = instr.refs[0];
    if (!rs || !ref) return undefined;
    try {
      const index = ref.index(rs.vars);
      const amount = instr.args[0]!(rs.vars);
      if (!Number.isInteger(index) || index < 0 || index >= ref.res.size || !Number.isInteger(amount) || amount < 0) return undefined;
      return { barrier: ref.res.base + index, ...updateOf(op.kind, amount) };
    } catch {
      return undefined;
    }
  }

  /** The barrier role r's current op waits on, when it is a parity wait with a known barrier. */
  private waitedBarrier(r: number, instr: OpInstr): number | undefined {
    const rs = this.s.roles[r];
    const ref = instr.refs[0];
    if (instr.op.kind !== 'wait' || !rs || !ref) return undefined;
    try {
      const index = ref.index(rs.vars);
      return Number.isInteger(index) && index >= 0 && index < ref.res.size ? ref.res.base + index : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Whether an enabled wait on barrier b commutes with everything the outside does to b. A wait
   * reads b's phase and done knowledge and sets `observed`; arrivals, expect_tx and landings that
   * do not complete the phase change neither, and of them only an arrival reads `observed` (the
   * missing-wait check, in phase 1 or later). So it commutes when the outside cannot complete b's
   * phase (stuck.ts: N_b = 0) and either makes no arrival on b before its stops or that check
   * cannot fire (phase 0, or a wait already observed the last completion). The wait stays enabled
   * meanwhile: its parity is read against a phase the outside does not move.
   */
  private waitCommutes(b: number): boolean {
    const bar = this.s.barriers[b];
    if (!bar || bar.valid !== 1) return false;
    const st = this.stuckNow();
    if (st.bound[b] !== 0) return false;
    return bar.phase === 0 || bar.observed === 1 || st.counts[3 * b] === 0;
  }

  /** Role r's current op as an arrival at a named barrier (bar.sync arriving, bar.arrive) with constant operands. */
  private namedArrival(r: number, instr: OpInstr): { id: number; threads: number; own: number } | undefined {
    const op = instr.op;
    const rs = this.s.roles[r];
    if ((op.kind !== 'bar.sync' && op.kind !== 'bar.arrive') || !rs || (op.kind === 'bar.sync' && rs.barState !== BAR_FREE)) return undefined;
    try {
      const id = instr.args[0]!(rs.vars);
      const threads = instr.args[1]!(rs.vars);
      if (!Number.isInteger(id) || id < 0 || id >= this.o.named || !Number.isInteger(threads) || threads <= 0) return undefined;
      return { id, threads, own: (this.m.roles[r]?.warps ?? 1) * 32 };
    } catch {
      return undefined;
    }
  }

  /**
   * Whether an arrival of `own` threads at named barrier id commutes with everything the outside
   * does to it: arrivals only add threads and union knowledge, so they commute unless a generation
   * completes among them, and none can while the set's arrival and every outside arrival up to the
   * stops (stuck.ts counts them, a bar.sync's own arrival included) stay within the threads still
   * missing. At exactly as many the generation completes at the last arrival, whichever it is, and
   * every arriver is released alike (named.ts), so both orders reach one state; the outside alone
   * cannot complete it, so nothing outside can wait on that completion before the set moves.
   */
  private namedCommutes(id: number, threads: number, own: number): boolean {
    const st = this.stuckNow();
    const c = this.m.barrierCount + id;
    // every arrival names the same count, or whichever opens the generation decides whether the
    // others complete one without the set or fail (a protocol error): no claim then
    const opened = this.s.namedThreads[id] ?? 0;
    if (opened !== 0 && opened !== threads) return false;
    const ops = st.counts[3 * c + 2]!;
    if (ops > 0 && !(st.fewest[c] === threads && st.counts[3 * c + 1] === threads * ops)) return false;
    return own + st.counts[3 * c]! <= threadsMissing(this.s, id, threads);
  }

  private unit(p: number, enabled: boolean, add: (p: number) => void): boolean {
    if (!enabled) {
      // it retires once every partner has a committed group outstanding, and only a partner's own
      // commit gives it one: any one partner that lacks a group is a necessary enabling set
      // (Valmari's stubborn sets). Take one already in the set when there is one, else the first.
      const r = (p - this.R) >> 1;
      const u = (p - this.R) & 1 ? 'store' : 'mma';
      const lacking = unitRoles(this.m, r, u).filter((q) => !hasOutstanding(this.s.roles[q], u));
      if (lacking.length === 0) for (const q of unitRoles(this.m, r, u)) add(q);
      else if (!lacking.some((q) => this.inSet[q] === 1)) add(lacking[0]!);
      return true;
    }
    this.conflicts(this.touchOf(p) as Plain, p, add);
    return true;
  }

  private copy(p: number, add: (p: number) => void): boolean {
    const t = this.s.tma[p - 3 * this.R];
    const touch = this.touchOf(p) as Plain;
    this.conflicts(t && this.updateCommutes(t.barrier, updateOf('tma.load', t.bytes)) ? withoutBarrier(touch, barrierObject(this.o, t.barrier)) : touch, p, add);
    return true;
  }

  /**
   * Whether an update of barrier b by an action of the set — `own` arrivals, expected bytes and
   * landed bytes — commutes with everything done to b on paths outside the set. Arrives,
   * expect_tx and landings only add to b's counters and union knowledge into its pending set, so
   * two of them commute unless the phase completes between them (no arrival pending and tx
   * exactly 0); a wait's outcome changes only at a completion. What the roles outside the set may
   * still do to b is counted up to their stops (stuck.ts: over several rounds of a ring, a role's
   * later-round updates lie past a wait that cannot pass while b's phase does not complete).
   */
  private updateCommutes(b: number, own: BarrierUpdates): boolean {
    const bar = this.s.barriers[b];
    if (!bar || bar.valid !== 1 || own.arrivals + own.lands <= 0) return false;
    return this.commutesWith(b, own, this.stuckNow());
  }

  /**
   * Given `st`, where the outside roles stop and what the outside does to b before that (the set's
   * own update excluded):
   *  - fewer arrivals than are pending: the phase cannot complete;
   *  - more: an arrive may overshoot (a protocol error whose place depends on the order): no claim;
   *  - exactly as many (each needed): the bytes missing once every update is made — tx + expects −
   *    landings — decide. Below 0, tx may pass through 0 early: no claim. Above 0, the phase
   *    cannot complete. At 0 it completes at the last update, whichever it is (before the set's
   *    own update an arrival or its bytes are missing; after it, an arrival or an outside copy),
   *    which changes only what reads b after it: no outside role may read b before its stop (a
   *    wait there on b itself blocks until the completion, which comes only with the set's update).
   * In each case the outside updates alone cannot complete the phase.
   */
  private commutesWith(b: number, own: BarrierUpdates, st: Stuck): boolean {
    const { s, inSet } = this;
    const positions = this.horizons.positions;
    const bar = s.barriers[b]!;
    const arrivals = own.arrivals + st.counts[3 * b]!;
    if (arrivals !== bar.pending) return arrivals < bar.pending;
    const missing = bar.tx + own.expects + st.counts[3 * b + 1]! - own.lands - st.counts[3 * b + 2]!;
    if (missing !== 0) return missing > 0;
    const x = barrierObject(this.o, b);
    for (let p = 0; p < this.R; p++) {
      const ps = s.roles[p];
      const n = positions.length(p);
      if (inSet[p] || !ps) continue;
      const at = this.at[p]!;
      if (at >= n) continue;
      const stop = st.stop[p]!;
      // a wait at the stop that may miss its phase may run, and it reads b's phase
      const end = stop >= 0 ? stop + st.through[p]! : this.horizons.straightEnd(p, at);
      if (this.horizons.readsIn(p, x, at, end)) return false;
      if (stop < 0 && end < n && this.futures.conflicts(p, end, { reads: [], writes: [x] })) return false; // past a loop or branch
    }
    return true;
  }

  /**
   * Add every process other than `self` that may do something conflicting with `touch`, self's
   * touch or a part of it. Which processes conflict at all does not depend on the set: for self's
   * whole touch it is worked out once per state (`hits`); whether a role's conflicting ops lie
   * before its stop does (its horizon).
   */
  private conflicts(touch: Plain, self: number, add: (p: number) => void): void {
    const whole = touch === this.touches[self];
    let hits = whole ? this.hits[self] : undefined;
    if (hits === undefined) {
      hits = this.hitsOf(touch, self);
      if (whole) this.hits[self] = hits;
    }
    // units and copies first: they need no analysis, and an enabled one may bring the set to its limit
    for (const q of hits.others) add(q);
    let asked: number[] | undefined;
    for (const q of hits.roles) {
      // q stops at its first wait at the earliest: a conflict before it needs no analysis
      const earliest = this.earliestStop(q);
      // blocked on a unit of the set: the analysis stops it where it is (stuck.ts), so nothing of its future conflicts
      if (earliest !== undefined && waitsOnUnitOf(this.m, this.s, this.inSet, q)) continue;
      // a conflict before q's first wait still needs the analysis when a partner of the set may
      // hold q at a wgmma.wait on the way (stuck.ts `held`), which depends on the set
      if ((earliest === undefined || this.horizons.conflictsIn(q, this.at[q]!, earliest, touch)) && !this.partnerInSet(q)) this.bring(q, add);
      else (asked ??= []).push(q);
    }
    for (const q of asked ?? []) {
      // what q can do before it blocks at a wait only the set can release
      const stale = this.current === undefined ? this.latest : undefined;
      const h = this.horizon(q, stale);
      if (h !== undefined && !this.horizons.conflictsIn(q, this.at[q]!, h, touch)) continue;
      if (stale !== undefined) {
        const fresh = this.horizon(q, undefined);
        if (fresh !== undefined && !this.horizons.conflictsIn(q, this.at[q]!, fresh, touch)) continue;
      }
      this.bring(q, add);
    }
  }

  /** Whether another role of q's warpgroup is in the set: its commits, which q's wgmma.waits may need, stop with it. */
  private partnerInSet(q: number): boolean {
    const partners = this.m.mmaPartners[q];
    return partners !== undefined && partners.some((p) => p !== q && this.inSet[p] === 1);
  }

  /** Add role q to the set, or set it aside while it is blocked (see `from`). */
  private bring(q: number, add: (p: number) => void): void {
    if (this.deferring && this.actionOf[q]! < 0) this.defer(q);
    else add(q);
  }

  /** The processes other than `self` that may do something conflicting with `touch`: roles by their futures, units and copies by their next action. */
  private hitsOf(touch: Plain, self: number): Hits {
    const roles: number[] = [];
    const others: number[] = [];
    const positions = this.horizons.positions;
    for (let q = 0; q < this.R; q++) {
      const at = this.at[q]!;
      if (q !== self && this.s.roles[q] && at < positions.length(q) && this.futures.conflicts(q, at, touch)) roles.push(q);
    }
    // units and copies in flight: their next actions are known in this state. Mark what `touch`
    // touches once, then test each process's touch against the marks (linear, not pairwise)
    const marks = this.marks;
    for (const x of touch.reads) marks[x] = 1;
    for (const x of touch.writes) marks[x] = 2;
    for (let p = this.R; p < this.processes; p++) if (p !== self && clashesWithMarks(marks, this.touchOf(p) as Plain)) others.push(p);
    for (const x of touch.reads) marks[x] = 0;
    for (const x of touch.writes) marks[x] = 0;
    return { roles, others };
  }
}

/** What a process's touch conflicts with in one state: roles whose futures conflict (their horizons still to check), and units and copies. */
interface Hits {
  readonly roles: readonly number[];
  readonly others: readonly number[];
}

type Plain = Exclude<Touch, typeof GLOBAL>;

/** A touch without barrier object x (an update of it that commutes with everything else done to it). */
const withoutBarrier = (t: Plain, x: number): Plain => ({ reads: t.reads.filter((y) => y !== x), writes: t.writes.filter((y) => y !== x) });

/**
 * A role's touch without its own group lists, which only its ops and its units' retirements write.
 * An enabled op of the role commutes with a retirement (async.ts): a commit appends a group behind
 * the oldest outstanding one, which is what a retirement takes; an enabled wait takes groups already
 * retired, which a retirement leaves alone (the read event a retirement renews is cleared from every
 * holder in either order). A disabled wait's enabler, its unit, is added by `role` itself.
 */
function withoutGroups(o: ObjectSpace, r: number, t: Touch): Touch {
  if (t === GLOBAL) return t;
  const mma = groupObject(o, r, 'mma');
  const store = groupObject(o, r, 'store');
  return t.writes.some((x) => x === mma || x === store) ? { reads: t.reads, writes: t.writes.filter((x) => x !== mma && x !== store) } : t;
}

/** Whether touch b conflicts with the marked touch (1: read, 2: written): one writes what the other touches. */
function clashesWithMarks(marks: Uint8Array, b: Plain): boolean {
  for (const x of b.writes) if (marks[x] !== 0) return true;
  for (const x of b.reads) if (marks[x] === 2) return true;
  return false;
}

/**
 * A unit retires groups and reads the slots of its roles' open and outstanding reads. It also
 * writes their group lists, left out here: only those roles' own commits and waits touch them,
 * and each commutes with a retirement wherever both are enabled (withoutGroups, the other side).
 */
function unitTouch(s: MachineState, roles: readonly number[], u: Unit): Plain {
  const reads: number[] = [];
  for (const r of roles) {
    const rs = s.roles[r];
    if (!rs) continue;
    reads.push(...(u === 'mma' ? rs.mmaOpen : rs.storeOpen));
    for (const g of u === 'mma' ? rs.mmaGroups : rs.storeGroups) if (!g.retired) reads.push(...g.slots);
  }
  return { reads, writes: [] };
}
