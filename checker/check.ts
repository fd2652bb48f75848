// `check`: explore a Model, decide termination on the explored graph, and give the verdict.
// `verified` only when the whole reachable graph was explored and nothing was violated.

import { explore, type ExploreOutcome } from './bfs.ts';
import { findFairLasso, type Lasso } from './fairness.ts';
import { MemoryLimitError } from './growable.ts';
import type { Model } from './model.ts';
import type { CheckOptions, CheckResult, LimitReason, Violation } from './result.ts';
import { type PathStep, pathTo, traceOf } from './trace.ts';

export function check<S, A>(model: Model<S, A>, options: CheckOptions = {}): CheckResult<S, A> {
  const startMs = performance.now();
  const termination = options.termination ?? true;
  const notes: string[] = [];
  const useProgress = termination && model.progress !== undefined;
  // reduction needs an acyclic graph (a progress measure, checked on every transition taken), or
  // on a model that declares cycles, the cycle proviso
  const cyclic = model.cycleEdge !== undefined && !termination;
  const reduce = (options.reduction ?? true) && model.ample !== undefined && (model.progress !== undefined || cyclic);
  let outcome = explore(model, options, {
    recordEdges: termination && !useProgress,
    checkProgress: useProgress || (reduce && !cyclic),
    startMs,
    reduce,
    cycleProviso: reduce && cyclic,
  });
  if (outcome.progressBroken) {
    const { from, to, action } = outcome.progressBroken;
    notes.push(
      `progress measure did not increase from state #${from} to state #${to} (action ${action}); ` +
        'explored again, recording edges to check termination',
    );
    outcome = explore(model, options, { recordEdges: true, checkProgress: false, startMs, reduce: false });
  }

  const violations = reduce && !cyclic ? shortest(model, options, outcome, notes, startMs) : [...outcome.violations];
  let limit = outcome.limit;
  const stopped = (options.stopAtFirst ?? false) && violations.length > 0;
  if (termination && !stopped) {
    if (outcome.graph) {
      try {
        const lasso = findFairLasso(outcome.graph, outcome.budget);
        if (lasso) violations.push(terminationViolation(model, outcome, lasso));
      } catch (e) {
        if (!(e instanceof MemoryLimitError)) throw e;
        limit ??= { reason: 'memory', message: e.message };
        notes.push(`termination not analysed: ${e.message}`);
      }
      if (outcome.limit) notes.push('termination analysed on the explored part of the graph only');
    } else if (outcome.limit && !useProgress) {
      notes.push(`termination not analysed: ${outcome.limit.reason} limit reached`);
    }
  }

  const ms = performance.now() - startMs;
  const states = outcome.arena.count;
  const verdict = violations.length > 0 ? 'violation' : limit ? 'inconclusive' : 'verified';
  return {
    verdict,
    violations,
    stats: {
      states,
      transitions: outcome.transitions,
      ms: Math.round(ms),
      statesPerSecond: ms > 0 ? Math.round((states * 1000) / ms) : 0,
      bytesPerState: states > 0 ? Math.round(outcome.budget.used / states) : 0,
      maxDepth: outcome.maxDepth,
    },
    ...(limit ? { limit: limit as { reason: LimitReason; message: string } } : {}),
    ...(notes.length > 0 ? { notes } : {}),
  };
}

/**
 * The violations of a reduced run, each replaced by a shortest one of the full graph. Reduction
 * keeps every violation kind but not every path, so the shallowest violating state of a kind may
 * lie only on interleavings it pruned. Search the full graph breadth-first down to one step short
 * of the deepest counterexample, within the run's time limit and a state budget (below); a
 * kind found there is found at its least depth (breadth-first order). A kind not found where the
 * search was cut short keeps the reduced graph's trace, and a note says so.
 */
function shortest<S, A>(model: Model<S, A>, options: CheckOptions, reduced: ExploreOutcome<S, A>, notes: string[], startMs: number): Violation<S, A>[] {
  const found = reduced.violations;
  if (found.length === 0 || reduced.reducedStates === 0) return [...found];
  const depth = (v: Violation<S, A>): number => v.trace.length - 1;
  const deepest = Math.max(...found.map(depth));
  if (deepest <= 1) return [...found];
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const full = explore(
    model,
    {
      ...options,
      stopAtFirst: false,
      maxStates: Math.min(options.maxStates ?? Number.POSITIVE_INFINITY, Math.max(MIN_SHORTENING_STATES, Math.min(MAX_SHORTENING_STATES, SHORTENING_FACTOR * reduced.arena.count))),
      maxBytes: Math.max(MIN_SHORTENING_BYTES, maxBytes - reduced.budget.used),
    },
    { recordEdges: false, checkProgress: false, startMs, reduce: false, depthLimit: deepest - 1 },
  );
  const shorter = new Map(full.violations.map((v) => [v.kind, v]));
  return found.map((v) => {
    const s = shorter.get(v.kind);
    if (s !== undefined && depth(s) < depth(v)) return s;
    if (s === undefined && full.limit) notes.push(`the ${v.kind} counterexample is a shortest one of the reduced graph: the full graph was searched for a shorter one only to depth ${full.maxDepth} (${full.limit.reason} limit)`);
    return v;
  });
}

/**
 * The states the counterexample search of `shortest` may store: SHORTENING_FACTOR times those of
 * the reduced run, at least MIN and at most MAX of them, so that reporting a violation costs a
 * bounded multiple of finding it (a lifted DeepGEMM kernel whose race took 1.5 s spent its whole
 * 30 s limit in an unbounded search).
 */
const SHORTENING_FACTOR = 20;
const MIN_SHORTENING_STATES = 20_000;
const MAX_SHORTENING_STATES = 2_000_000;
const MIN_SHORTENING_BYTES = 64 * 2 ** 20;

function terminationViolation<S, A>(model: Model<S, A>, outcome: ExploreOutcome<S, A>, lasso: Lasso): Violation<S, A> {
  const { starts } = outcome.graph!;
  const stem = pathTo(outcome.arena, lasso.entry);
  const cycle: PathStep[] = lasso.loop.map(({ from, edge }) => ({
    id: outcome.graph!.targets[edge]!,
    index: edge - starts[from]!, // edges are recorded in action order, one per action
  }));
  const parties: string[] = [];
  for (let actor = 0; actor < 32; actor++) {
    if ((lasso.actors & (1 << actor)) !== 0) parties.push(model.actorName?.(actor) ?? `party ${actor}`);
  }
  const message =
    `a cycle of ${cycle.length} step${cycle.length === 1 ? '' : 's'} from depth ${stem.length - 1} can repeat forever ` +
    `under weak fairness (acting in it: ${parties.join(', ')})`;
  return { kind: 'termination', message, trace: traceOf(model, outcome.arena, [...stem, ...cycle]), loopStart: stem.length - 1 };
}
