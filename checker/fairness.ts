// Termination under weak fairness. An infinite run ends up looping inside one SCC; it is weakly
// fair when every party that stays enabled acts. So an SCC holds a weakly fair cycle iff it has an
// edge and every party enabled in ALL of its states takes some edge inside it (then a cycle through
// all its edges is fair; otherwise a party enabled throughout never acts in any cycle in it).
// The counterexample is a lasso: the BFS path to the SCC's earliest state, then a fair cycle.

import type { EdgeGraph } from './edges.ts';
import type { ByteBudget } from './growable.ts';
import { forEachScc } from './scc.ts';

/** One edge of the cycle: from state `from` along edge `edge` (its target is the next state). */
export interface LoopStep {
  readonly from: number;
  readonly edge: number;
}

export interface Lasso {
  /** The cycle's first state: the SCC's smallest id, so the BFS path to it is a shortest one. */
  readonly entry: number;
  /** A weakly fair cycle from `entry` back to `entry` (at least one edge). */
  readonly loop: readonly LoopStep[];
  /** Bit mask of the parties that act in the cycle. */
  readonly actors: number;
}

/** A shortest-entry weakly fair cycle of the graph, or undefined when every fair run terminates. */
export function findFairLasso(graph: EdgeGraph, budget: ByteBudget): Lasso | undefined {
  const { starts, targets, actors } = graph;
  const enabledAt = (v: number): number => {
    let mask = 0;
    for (let e = starts[v]!; e < starts[v + 1]!; e++) mask |= 1 << actors[e]!;
    return mask;
  };

  let best: Int32Array | undefined;
  let bestEntry = graph.stateCount;
  forEachScc(graph, budget, ({ members, has }) => {
    let entry = graph.stateCount;
    let enabledEverywhere = -1;
    let actedInside = 0;
    let edgesInside = 0;
    for (const v of members) {
      if (v < entry) entry = v;
      enabledEverywhere &= enabledAt(v);
      for (let e = starts[v]!; e < starts[v + 1]!; e++) {
        if (!has(targets[e]!)) continue;
        edgesInside++;
        actedInside |= 1 << actors[e]!;
      }
    }
    if (edgesInside === 0 || (enabledEverywhere & ~actedInside) !== 0 || entry >= bestEntry) return;
    best = members.slice();
    bestEntry = entry;
  });
  if (!best) return undefined;
  return buildLasso(graph, budget, best, bestEntry, enabledAt);
}

/**
 * Walk inside the SCC from `entry` until every party enabled in all the cycle's states has acted
 * (visit a state where a party is disabled, or take one of its edges), then return to `entry`.
 * Each round settles one party for good, so at most 32 rounds.
 */
function buildLasso(
  graph: EdgeGraph,
  budget: ByteBudget,
  members: Int32Array,
  entry: number,
  enabledAt: (v: number) => number,
): Lasso {
  const { starts, targets, actors } = graph;
  const inside = budget.alloc(Uint8Array, graph.stateCount);
  for (const v of members) inside[v] = 1;
  let enabledEverywhere = -1;
  for (const v of members) enabledEverywhere &= enabledAt(v);
  const search = new InsideSearch(graph, inside, members.length, budget);
  const edgeOfActor = (v: number, actor: number): number => {
    for (let e = starts[v]!; e < starts[v + 1]!; e++) if (actors[e] === actor && inside[targets[e]!] === 1) return e;
    return -1;
  };

  const loop: LoopStep[] = [];
  let current = entry;
  let enabledOnLoop = enabledAt(entry);
  let acted = 0;
  const walk = (steps: readonly LoopStep[]): void => {
    for (const step of steps) {
      loop.push(step);
      current = targets[step.edge]!;
      acted |= 1 << actors[step.edge]!;
      enabledOnLoop &= enabledAt(current);
    }
  };
  for (let missing = enabledOnLoop; missing !== 0; missing = enabledOnLoop & ~acted) {
    const actor = 31 - Math.clz32(missing & -missing);
    const bit = 1 << actor;
    if ((enabledEverywhere & bit) !== 0) {
      walk(search.pathTo(current, (v) => edgeOfActor(v, actor) >= 0, false));
      walk([{ from: current, edge: edgeOfActor(current, actor) }]);
    } else {
      walk(search.pathTo(current, (v) => (enabledAt(v) & bit) === 0, false));
    }
  }
  walk(search.pathTo(current, (v) => v === entry, loop.length === 0));
  search.release();
  budget.release(inside);
  return { entry, loop, actors: acted };
}

/** Breadth-first search restricted to the SCC's states, reusing its arrays between searches. */
class InsideSearch {
  private readonly via: Int32Array; // state → edge that reached it, -1 = not reached
  private readonly queue: Int32Array;
  private readonly from: Int32Array; // queue position → state it was reached from

  private readonly graph: EdgeGraph;
  private readonly inside: Uint8Array;
  private readonly budget: ByteBudget;

  constructor(graph: EdgeGraph, inside: Uint8Array, size: number, budget: ByteBudget) {
    this.graph = graph;
    this.inside = inside;
    this.budget = budget;
    this.via = budget.alloc(Int32Array, graph.stateCount).fill(-1);
    this.queue = budget.alloc(Int32Array, size);
    this.from = budget.alloc(Int32Array, graph.stateCount);
  }

  /** A shortest path from `start` to a goal state (of ≥ 1 edge when `nonEmpty`). */
  pathTo(start: number, isGoal: (v: number) => boolean, nonEmpty: boolean): LoopStep[] {
    if (!nonEmpty && isGoal(start)) return [];
    const { starts, targets } = this.graph;
    let head = 0;
    let tail = 0;
    this.queue[tail++] = start;
    let found = -1;
    search: while (head < tail) {
      const v = this.queue[head++]!;
      for (let e = starts[v]!; e < starts[v + 1]!; e++) {
        const w = targets[e]!;
        if (this.inside[w] !== 1 || this.via[w] !== -1) continue;
        this.via[w] = e;
        this.from[w] = v;
        if (isGoal(w)) {
          found = w;
          break search;
        }
        if (w !== start) this.queue[tail++] = w;
      }
    }
    const path: LoopStep[] = [];
    for (let w = found; w !== -1 && path.length <= tail; ) {
      path.push({ from: this.from[w]!, edge: this.via[w]! });
      w = this.from[w] === start ? -1 : this.from[w]!;
    }
    // Reset what this search touched: every reached state is in the queue or is `found`/`start`.
    for (let i = 0; i < tail; i++) for (let e = starts[this.queue[i]!]!; e < starts[this.queue[i]! + 1]!; e++) this.via[targets[e]!] = -1;
    if (found === -1) throw new Error('fairness: no path inside a strongly connected component (internal error)');
    return path.reverse();
  }

  release(): void {
    this.budget.release(this.via);
    this.budget.release(this.queue);
    this.budget.release(this.from);
  }
}
