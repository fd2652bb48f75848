// An independent check of a termination counterexample: a real path whose tail is a cycle in
// which every party enabled in all of the cycle's states acts.

import type { TraceStep } from '../../checker/index.ts';
import type { Model } from '../../checker/model.ts';
import { keyOf } from './naive.ts';

export function isFairLasso<S, A>(model: Model<S, A>, trace: readonly TraceStep<S, A>[], loopStart: number): boolean {
  const key = (s: S): string => keyOf(model.encode(s));
  for (let i = 1; i < trace.length; i++) {
    const step = trace[i]!;
    if (step.action === undefined) return false;
    if (key(model.nextState(trace[i - 1]!.state, step.action)) !== key(step.state)) return false;
  }
  if (loopStart < 0 || loopStart >= trace.length - 1) return false;
  if (key(trace[loopStart]!.state) !== key(trace.at(-1)!.state)) return false;

  const actorOf = (a: A): number => model.actor?.(a) ?? 0;
  const loopStates = trace.slice(loopStart, -1).map((s) => s.state);
  const acting = new Set(trace.slice(loopStart + 1).map((s) => actorOf(s.action!)));
  const enabledIn = (s: S): Set<number> => {
    const actions: A[] = [];
    model.actions(s, actions);
    return new Set(actions.map(actorOf));
  };
  const [first, ...rest] = loopStates.map(enabledIn);
  const alwaysEnabled = [...first!].filter((actor) => rest.every((set) => set.has(actor)));
  return alwaysEnabled.every((actor) => acting.has(actor));
}
