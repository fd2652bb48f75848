// A direct check of the reduction's premise (docs/checker.md, "Partial-order reduction"): the
// ample subset of a state is persistent. From the state, every path of actions outside the subset
// (explored breadth-first up to a bound) must consist of actions independent of each action in it:
// both orders enabled, the same state, and a violating action outside the subset still violating,
// with the same kind, after one inside. Used by persistence.test.ts on generated programs.
import type { Action, MachineState } from '../../semantics/index.ts';
import { describeAction } from '../../semantics/index.ts';
import type { ProgramModel } from '../../src/verify/model.ts';

/** Which process an action belongs to; copies are matched by slot and barrier (their index moves). */
function processKey(s: MachineState, a: Action): string {
  if (a.kind === 'role') return `role ${a.role}`;
  if (a.kind === 'retire') return `unit ${a.role} ${a.unit}`;
  const t = s.tma[a.index];
  return `copy ${t?.slot} ${t?.span} ${t?.barrier} ${t?.value} ${t?.bytes} ${t?.role}`;
}

/** The actions enabled in s, in the model's order. */
export const enabled = (model: ProgramModel, s: MachineState): Action[] => {
  const out: Action[] = [];
  model.actions(s, out);
  return out;
};

export const stateKey = (model: ProgramModel, s: MachineState): string => `${model.encode(s).join(',')}|${s.violation?.kind ?? ''}`;

/** The first breach of persistence found from `s` for the subset `chosen` (indices into its enabled actions), or undefined. */
export function persistenceBreach(model: ProgramModel, s: MachineState, chosen: readonly number[], maxStates = 300): string | undefined {
  const all = enabled(model, s);
  const inside = new Set(chosen.map((i) => processKey(s, all[i]!)));
  const say = (u: MachineState, a: Action): string => describeAction(model.machine, u, a);
  const seen = new Set([stateKey(model, s)]);
  let frontier = [s];
  while (frontier.length > 0 && seen.size < maxStates) {
    const next: MachineState[] = [];
    for (const u of frontier) {
      const acts = enabled(model, u);
      const mine = acts.filter((a) => inside.has(processKey(u, a)));
      for (const b of acts) {
        if (inside.has(processKey(u, b))) continue;
        const ub = model.nextState(u, b);
        for (const a of mine) {
          const ua = model.nextState(u, a);
          if (ua.violation) continue; // visibility expands such a state fully
          const bAfter = enabled(model, ua).find((x) => processKey(ua, x) === processKey(u, b));
          if (!bAfter) return `${say(u, a)} disables ${say(u, b)}`;
          const uab = model.nextState(ua, bAfter);
          if (ub.violation) {
            if (uab.violation?.kind !== ub.violation.kind) return `${say(u, b)} violates (${ub.violation.kind}) before ${say(u, a)} but not after it`;
            continue;
          }
          const aAfter = enabled(model, ub).find((x) => processKey(ub, x) === processKey(u, a));
          if (!aAfter) return `${say(u, b)} disables ${say(u, a)}`;
          if (stateKey(model, model.nextState(ub, aAfter)) !== stateKey(model, uab)) return `${say(u, a)} and ${say(u, b)} do not commute`;
        }
        const key = stateKey(model, ub);
        if (!ub.violation && !seen.has(key)) {
          seen.add(key);
          next.push(ub);
        }
      }
    }
    frontier = next;
  }
  return undefined;
}

/** How many ample subsets the last firstBreach call checked (so a test can tell it was not vacuous). */
export let subsetsChecked = 0;

/** Walk the reduced graph (depth-first, up to `maxStates`) and check persistence at each reduced state. */
export function firstBreach(model: ProgramModel, maxStates = 200): string | undefined {
  subsetsChecked = 0;
  const seen = new Set<string>();
  const stack = model.initialStates();
  for (const s of stack) seen.add(stateKey(model, s));
  while (stack.length > 0 && seen.size < maxStates) {
    const s = stack.pop()!;
    if (s.violation) continue;
    const acts = enabled(model, s);
    const chosen = model.ample?.(s, acts);
    if (chosen) {
      subsetsChecked++;
      const breach = persistenceBreach(model, s, chosen);
      if (breach) return breach;
    }
    for (const i of chosen ?? acts.map((_, j) => j)) {
      const n = model.nextState(s, acts[i]!);
      const key = stateKey(model, n);
      if (!seen.has(key)) {
        seen.add(key);
        stack.push(n);
      }
    }
  }
  return undefined;
}
