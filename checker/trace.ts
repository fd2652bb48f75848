// Counterexample traces: rebuilt from the arena's parent links (states decoded from their stored
// words, actions found again by index), and replayed from action indices alone (Stateright-style).

import type { StateArena } from './arena.ts';
import type { Model } from './model.ts';
import type { TraceStep } from './result.ts';

/** A step of a path through the stored graph: a state id and the index that reached it. */
export interface PathStep {
  readonly id: number;
  /** Index into `initialStates()` on the first step, into `actions(previous)` after. */
  readonly index: number;
}

/** The path from an initial state to state `id`, by parent links. */
export function pathTo(arena: StateArena, id: number): PathStep[] {
  const path: PathStep[] = [];
  for (let v = id; v >= 0; v = arena.parent(v)) path.push({ id: v, index: arena.actionIndex(v) });
  return path.reverse();
}

/**
 * Turn a path of state ids into trace steps. Each step's action is taken again from the model and
 * checked to lead to the stored state, so a nondeterministic model is caught here, not misreported.
 * A step's state is decoded from the arena each time it is read, never kept: a counterexample of a
 * million steps must not hold a million decoded states.
 */
export function traceOf<S, A>(model: Model<S, A>, arena: StateArena, path: readonly PathStep[], canonical?: (s: S) => S): TraceStep<S, A>[] {
  if (canonical) return concreteTrace(model, arena, path, canonical);
  const steps: TraceStep<S, A>[] = [];
  const actions: A[] = [];
  const stateAt = (id: number): (() => S) => () => model.decode(arena.view(id).slice()); // a copy: a view would pin the whole arena
  let previous: S | undefined;
  for (const [depth, step] of path.entries()) {
    const state = stateAt(step.id)();
    if (depth === 0 || previous === undefined) {
      steps.push(lazyStep({ initialIndex: step.index, depth }, stateAt(step.id)));
    } else {
      actions.length = 0;
      model.actions(previous, actions);
      const action = actions[step.index];
      if (action === undefined) throw new Error(`trace: state has no action #${step.index} (model is not deterministic)`);
      if (!arena.equals(step.id, model.encode(model.nextState(previous, action)))) {
        throw new Error(`trace: action ${model.formatAction(action)} no longer leads to the stored state (model is not deterministic)`);
      }
      steps.push(lazyStep({ action, actionIndex: step.index, depth }, stateAt(step.id)));
    }
    previous = state;
  }
  return steps;
}

/**
 * A path of a symmetry-reduced run as a run of the model. The stored states are orbit
 * representatives, and an action index names an action of the representative, not of the state
 * the run is in. From the initial state, each step takes the action of the current state whose
 * successor has the next stored state as its representative (the one of the stored index first:
 * it is that action whenever the run and the representative agree), or, where the model's
 * representative may differ within an orbit, whose successor is in the stored state's orbit
 * (`sameOrbit`). One exists because the model's symmetries map transitions to transitions; the
 * states are kept encoded.
 */
function concreteTrace<S, A>(model: Model<S, A>, arena: StateArena, path: readonly PathStep[], canonical: (s: S) => S): TraceStep<S, A>[] {
  const steps: TraceStep<S, A>[] = [];
  const actions: A[] = [];
  const first = path[0];
  if (first === undefined) return steps;
  const initial = model.initialStates()[first.index];
  if (initial === undefined) throw new Error(`trace: no initial state #${first.index}`);
  let words = model.encode(initial).slice();
  steps.push(lazyStep({ initialIndex: first.index, depth: 0 }, decodedCopy(model, words)));
  for (let depth = 1; depth < path.length; depth++) {
    const step = path[depth]!;
    const current = model.decode(words);
    actions.length = 0;
    model.actions(current, actions);
    // the stored index first (it is the action whenever the run and the representative agree)
    const order = [step.index, ...[...actions.keys()].filter((i) => i !== step.index)].filter((i) => actions[i] !== undefined);
    const successors = new Map<number, S>(); // each successor made once, only when asked for
    const successor = (i: number): S => {
      let c = successors.get(i);
      if (c === undefined) successors.set(i, (c = model.nextState(current, actions[i]!)));
      return c;
    };
    let taken = order.find((i) => arena.equals(step.id, model.encode(canonical(successor(i)))));
    // where the representative was not the same for the whole orbit, match orbits instead
    if (taken === undefined && model.sameOrbit) {
      const stored = model.decode(arena.view(step.id));
      taken = order.find((i) => model.sameOrbit!(successor(i), stored));
    }
    if (taken === undefined) throw new Error(`trace: no action of step ${depth} leads into the stored orbit (the model's symmetry is not one of its transitions)`);
    const next = successor(taken);
    words = model.encode(next).slice();
    steps.push(lazyStep({ action: actions[taken]!, actionIndex: taken, depth }, decodedCopy(model, words)));
  }
  return steps;
}

const decodedCopy = <S, A>(model: Model<S, A>, words: Int32Array): (() => S) => () => model.decode(words.slice());

/** A trace step whose `state` is computed when read. */
export function lazyStep<S, A>(fields: Omit<TraceStep<S, A>, 'state'>, state: () => S): TraceStep<S, A> {
  return Object.defineProperty({ ...fields }, 'state', { get: state, enumerable: true }) as TraceStep<S, A>;
}

/** The same trace with each step's state seen through `f` (still computed when read). */
export function mapTraceStates<S, T, A>(trace: readonly TraceStep<S, A>[], f: (s: S) => T): TraceStep<T, A>[] {
  return trace.map((t) =>
    lazyStep<T, A>(
      {
        ...(t.action !== undefined ? { action: t.action } : {}),
        ...(t.actionIndex !== undefined ? { actionIndex: t.actionIndex } : {}),
        ...(t.initialIndex !== undefined ? { initialIndex: t.initialIndex } : {}),
        depth: t.depth,
      },
      () => f(t.state),
    ),
  );
}

/** A replay that cannot go on: the index names no initial state or no enabled action. */
export class ReplayError extends Error {
  override readonly name = 'ReplayError';
}

/**
 * Re-run a trace from its indices: `initialIndex` into `initialStates()`, then each action index
 * into `actions(current state)`. Throws ReplayError when an index is out of range.
 */
export function replayActionIndices<S, A>(
  model: Model<S, A>,
  actionIndices: readonly number[],
  initialIndex = 0,
): TraceStep<S, A>[] {
  const initial = model.initialStates()[initialIndex];
  if (initial === undefined) throw new ReplayError(`replay: no initial state #${initialIndex}`);
  const steps: TraceStep<S, A>[] = [{ initialIndex, state: initial, depth: 0 }];
  const actions: A[] = [];
  let state: S = initial;
  for (const [i, index] of actionIndices.entries()) {
    actions.length = 0;
    model.actions(state, actions);
    const action = actions[index];
    if (action === undefined) {
      throw new ReplayError(`replay: step ${i + 1} asks for action #${index} but only ${actions.length} are enabled`);
    }
    state = model.nextState(state, action);
    steps.push({ action, actionIndex: index, state, depth: i + 1 });
  }
  return steps;
}

/** The indices that replay a trace: `replayActionIndices(model, t.actionIndices, t.initialIndex)`. */
export function traceIndices<S, A>(trace: readonly TraceStep<S, A>[]): { initialIndex: number; actionIndices: number[] } {
  const actionIndices: number[] = [];
  for (const step of trace.slice(1)) {
    if (step.actionIndex === undefined) throw new Error('trace: a step after the first has no action index');
    actionIndices.push(step.actionIndex);
  }
  return { initialIndex: trace[0]?.initialIndex ?? 0, actionIndices };
}
