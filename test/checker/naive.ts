// An independent, deliberately simple explorer for cross-checking: a Map keyed by the encoded
// words as a string, a plain array queue, no fingerprints, no arena.

import type { Model } from '../../checker/model.ts';

export interface NaiveResult<S> {
  /** Every reachable state's key, with its BFS distance from an initial state. */
  readonly distance: Map<string, number>;
  readonly states: Map<string, S>;
  /** Shortest distance to a non-final state with no action, or undefined. */
  readonly deadlockDepth: number | undefined;
  /** Shortest distance to a state violating an invariant (violating states are not expanded). */
  readonly violationDepth: Map<string, number>;
}

export const keyOf = (words: Int32Array): string => Array.from(words).join(',');

export function naiveBfs<S, A>(model: Model<S, A>): NaiveResult<S> {
  const distance = new Map<string, number>();
  const states = new Map<string, S>();
  const violationDepth = new Map<string, number>();
  let deadlockDepth: number | undefined;
  const queue: S[] = [];
  const visit = (state: S, d: number): void => {
    const key = keyOf(model.encode(state));
    if (distance.has(key)) return;
    distance.set(key, d);
    states.set(key, state);
    let violating = false;
    for (const inv of model.invariants) {
      if (inv.check(state) === undefined) continue;
      violating = true;
      if (!violationDepth.has(inv.kind)) violationDepth.set(inv.kind, d);
    }
    if (!violating) queue.push(state);
  };
  for (const s of model.initialStates()) visit(s, 0);
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head]!;
    const d = distance.get(keyOf(model.encode(state)))!;
    const actions: A[] = [];
    model.actions(state, actions);
    if (actions.length === 0 && !model.isFinal(state) && deadlockDepth === undefined) deadlockDepth = d;
    for (const a of actions) visit(model.nextState(state, a), d + 1);
  }
  return { distance, states, deadlockDepth, violationDepth };
}
