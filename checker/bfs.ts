// Breadth-first exploration of a Model's reachable states. BFS order makes the first violation of
// each kind a shortest one. States live in the arena (also the queue), the visited set is a
// typed-array hash table, and invariants / deadlock are checked as states are stored / expanded.
// A violating state is recorded but never expanded.

import { MAX_ACTION_INDEX, StateArena } from './arena.ts';
import { BitSet } from './bitset.ts';
import { Collapser } from './collapse.ts';
import { type EdgeGraph, EdgeRecorder } from './edges.ts';
import { ByteBudget, MemoryLimitError } from './growable.ts';
import type { Model } from './model.ts';
import type { CheckOptions, LimitReason, Violation } from './result.ts';
import { pathTo, traceOf } from './trace.ts';
import { NOT_ADDED, VisitedTable } from './visited.ts';

export interface ExploreSettings {
  /** Record every edge with its actor, for the termination analysis. */
  readonly recordEdges: boolean;
  /** Check that `model.progress` strictly increases on every transition. */
  readonly checkProgress: boolean;
  /** `performance.now()` when the whole check started (time limit and rates count from it). */
  readonly startMs: number;
  /** Expand only the model's ample sets (needs checkProgress, or cycleProviso on a graph with cycles). */
  readonly reduce: boolean;
  /**
   * The graph may have cycles: a state whose ample subset takes a transition the model marks
   * (`cycleEdge`) is expanded fully. Every cycle contains such a transition, so every cycle of
   * the reduced graph has a fully expanded state (no action is ignored forever).
   */
  readonly cycleProviso?: boolean;
  /** Expand no state at this depth or deeper (they are still stored, checked, and tested for deadlock). */
  readonly depthLimit?: number;
}

export interface ExploreOutcome<S, A> {
  readonly arena: StateArena;
  readonly budget: ByteBudget;
  readonly violations: Violation<S, A>[];
  readonly transitions: number;
  readonly maxDepth: number;
  /** The edges, when recorded and the run was not cut short by time or memory. */
  readonly graph?: EdgeGraph;
  readonly limit?: { readonly reason: LimitReason; readonly message: string };
  /** Set when the progress measure failed to increase on this transition (the run stopped there). */
  readonly progressBroken?: { readonly from: number; readonly to: number; readonly action: string };
  /** States expanded through a proper ample subset (partial-order reduction). */
  readonly reducedStates: number;
}

/** The actor of an edge must fit the bit masks of the fairness analysis. */
export const MAX_ACTOR = 31;
const MAX_CHECK_EVERY = 4096; // most expansions between two clock reads
const PROGRESS_EVERY_MS = 1000;

/** A violation's message made on the state a trace ends in: the invariant of that kind, or the deadlock. */
function messageAt<S, A>(model: Model<S, A>, kind: string, state: S): string | undefined {
  if (kind === 'deadlock') return model.explainDeadlock(state);
  return model.invariants.find((inv) => inv.kind === kind)?.check(state);
}

export function explore<S, A>(model: Model<S, A>, options: CheckOptions, settings: ExploreSettings): ExploreOutcome<S, A> {
  const budget = new ByteBudget(options.maxBytes ?? Number.POSITIVE_INFINITY);
  const maxStates = options.maxStates ?? Number.POSITIVE_INFINITY;
  const deadline = settings.startMs + (options.maxMs ?? Number.POSITIVE_INFINITY);
  const stopAtFirst = options.stopAtFirst ?? false;
  const arena = new StateArena(budget, options.collapse && model.blocks?.length ? new Collapser(budget, model.blocks) : undefined);
  const visited = new VisitedTable(budget, arena);
  const violating = new BitSet(budget); // recorded, never expanded
  const edges = settings.recordEdges ? new EdgeRecorder(budget) : undefined;
  const violations: Violation<S, A>[] = [];
  const kindsSeen = new Set<string>(); // one entry per violation kind: never on the hot path
  let transitions = 0;
  let depth = 0;
  let maxDepth = 0;
  let expanded = 0;
  let lastReport = settings.startMs;
  let lastCheck = settings.startMs;
  let checkEvery = 1;
  let untilCheck = 0;
  let limit: ExploreOutcome<S, A>['limit'];
  let progressBroken: ExploreOutcome<S, A>['progressBroken'];
  let reducedStates = 0;

  // symmetry: store one state per orbit (the fairness analysis names parties, so not with edges)
  const canonical = options.symmetry && !settings.recordEdges && model.canonical ? model.canonical.bind(model) : undefined;
  const record = (kind: string, message: string, id: number): void => {
    if (kindsSeen.has(kind)) return;
    kindsSeen.add(kind);
    const trace = traceOf(model, arena, pathTo(arena, id), canonical);
    // a trace made concrete may end in another member of the orbit: say what that state shows
    violations.push({ kind, message: canonical ? messageAt(model, kind, trace[trace.length - 1]!.state) ?? message : message, trace });
  };
  /** Check invariants on a newly stored state; false when it violates one. */
  const admit = (id: number, state: S): boolean => {
    let ok = true;
    for (const invariant of model.invariants) {
      const message = invariant.check(state);
      if (message === undefined) continue;
      ok = false;
      record(invariant.kind, message, id);
    }
    if (!ok) violating.add(id);
    return ok;
  };
  const figures = (): string =>
    `${arena.count.toLocaleString('en-US')} states stored, ${(arena.count - expanded).toLocaleString('en-US')} not yet expanded, depth ${depth}`;
  const stopRequested = (): boolean => stopAtFirst && violations.length > 0;

  try {
    explore: {
      const initials = model.initialStates();
      for (const [i, state] of initials.entries()) {
        const words = model.encode(canonical ? canonical(state) : state);
        const id = visited.findOrAdd(words, -1, i, arena.count < maxStates);
        if (id === NOT_ADDED) {
          limit = { reason: 'states', message: `state limit reached (${maxStates.toLocaleString('en-US')}): ${figures()}` };
          break explore;
        }
        if (id >= 0) admit(id, state);
        if (stopRequested()) break explore;
      }

      const actions: A[] = [];
      const successor = model.successor ? model.successor.bind(model) : model.nextState.bind(model);
      let levelEnd = arena.count;
      for (let id = 0; id < arena.count; id++) {
        expanded = id;
        if (id === levelEnd) {
          depth++;
          levelEnd = arena.count;
        }
        if (--untilCheck <= 0) {
          const now = performance.now();
          // Read the clock about every few ms whatever a state costs to expand.
          const gap = now - lastCheck;
          lastCheck = now;
          if (gap < 2) checkEvery = Math.min(checkEvery * 2, MAX_CHECK_EVERY);
          else if (gap > 20) checkEvery = Math.max(1, checkEvery >> 1);
          untilCheck = checkEvery;
          if (now >= deadline) {
            limit = { reason: 'time', message: `time limit reached (${options.maxMs} ms): ${figures()}` };
            break explore;
          }
          if (options.interrupted?.()) {
            limit = { reason: 'interrupted', message: `interrupted (Ctrl-C): ${figures()}` };
            break explore;
          }
          if (options.onProgress && now - lastReport >= PROGRESS_EVERY_MS) {
            lastReport = now;
            const ms = now - settings.startMs;
            options.onProgress({
              states: arena.count,
              transitions,
              queue: arena.count - id,
              depth,
              ms,
              statesPerSecond: ms > 0 ? (arena.count * 1000) / ms : 0,
            });
          }
        }
        edges?.begin(id);
        if (violating.has(id)) continue;

        const state = model.decode(arena.expand(id));
        actions.length = 0;
        model.actions(state, actions);
        const count = actions.length;
        if (count === 0) {
          if (!model.isFinal(state)) {
            record('deadlock', model.explainDeadlock(state), id);
            if (stopRequested()) break explore;
          }
          continue;
        }
        if (settings.depthLimit !== undefined && depth >= settings.depthLimit) continue;
        if (count > MAX_ACTION_INDEX + 1) {
          throw new Error(`model: ${count} actions enabled in one state; at most ${MAX_ACTION_INDEX + 1} are supported`);
        }
        const measure = settings.checkProgress ? model.progress!(state) : 0;
        const chosen = settings.reduce ? model.ample!(state, actions) : undefined;
        if (chosen) reducedStates++;
        // pass 0: the ample subset (or every action when there is none); pass 1: the rest, when an
        // action of the subset led to a violation (it was visible)
        let visible = false;
        for (let pass = 0; pass < 2 && (pass === 0 || (chosen !== undefined && visible)); pass++) {
          const inPass = pass === 0 && chosen ? chosen : undefined;
          const n = inPass ? inPass.length : count;
          for (let j = 0; j < n; j++) {
            const i = inPass ? inPass[j]! : j;
            if (pass === 1 && chosen!.includes(i)) continue;
            const action = actions[i]!;
            const next = successor(state, action);
            transitions++;
            if (inPass && settings.cycleProviso && model.cycleEdge!(state, next)) visible = true;
            let target = visited.findOrAdd(model.encode(canonical ? canonical(next) : next), id, i, arena.count < maxStates);
            if (target === NOT_ADDED) {
              limit = { reason: 'states', message: `state limit reached (${maxStates.toLocaleString('en-US')}): ${figures()}` };
              edges?.dropEdgesOf(id); // a half-expanded state would understate who is enabled there
              break explore;
            }
            // a successor that violates an invariant (checked once, when it is stored) makes the subset visible
            if (target >= 0) {
              if (depth + 1 > maxDepth) maxDepth = depth + 1;
              if (!admit(target, next) && inPass) visible = true;
              if (stopRequested()) break explore;
            } else {
              target = ~target;
              if (inPass && violating.has(target)) visible = true;
            }
            if (edges) edges.add(target, actorOf(model, action));
            if (settings.checkProgress && !(model.progress!(next) > measure)) {
              progressBroken = { from: id, to: target, action: model.formatAction(action) };
              break explore;
            }
          }
        }
      }
      expanded = arena.count;
    }
  } catch (e) {
    if (!(e instanceof MemoryLimitError)) throw e;
    limit = { reason: 'memory', message: `${e.message}: ${figures()}` };
  }

  const cutShort = limit !== undefined && limit.reason !== 'states';
  const graph = edges && !cutShort && !progressBroken ? edges.finish(arena.count) : undefined;
  return {
    arena,
    budget,
    violations,
    transitions,
    maxDepth,
    reducedStates,
    ...(graph ? { graph } : {}),
    ...(limit ? { limit } : {}),
    ...(progressBroken ? { progressBroken } : {}),
  };
}

function actorOf<S, A>(model: Model<S, A>, action: A): number {
  if (!model.actor) return 0;
  const actor = model.actor(action);
  if (!Number.isInteger(actor) || actor < 0 || actor > MAX_ACTOR) {
    throw new Error(`model: actor(${model.formatAction(action)}) = ${actor}; actors must be integers in 0..${MAX_ACTOR}`);
  }
  return actor;
}
