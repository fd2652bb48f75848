// An independent breadth-first search over a Program's model, written as plainly as possible
// (string keys in a Map, no arena, no parent links): the depth of the shallowest state that shows
// each violation kind. The checker's traces must be exactly this long (they are shortest).
import type { Program } from '../../src/ir/program.ts';
import { programModel } from '../../src/verify/model.ts';

export function shallowestViolations(program: Program, maxStates = 1_000_000): Map<string, number> {
  const model = programModel(program);
  const depthOf = new Map<string, number>();
  const found = new Map<string, number>();
  let frontier = model.initialStates();
  for (const s of frontier) depthOf.set(model.encode(s).join(','), 0);
  for (let depth = 0; frontier.length > 0; depth++) {
    const next: typeof frontier = [];
    for (const s of frontier) {
      let bad = false;
      for (const inv of model.invariants) {
        if (inv.check(s) === undefined) continue;
        bad = true;
        if (!found.has(inv.kind)) found.set(inv.kind, depth);
      }
      if (bad) continue; // a violating state is an end, as in the checker
      const actions: Parameters<typeof model.formatAction>[0][] = [];
      model.actions(s, actions);
      if (actions.length === 0) {
        if (!model.isFinal(s) && !found.has('deadlock')) found.set('deadlock', depth);
        continue;
      }
      for (const a of actions) {
        const t = model.nextState(s, a);
        const key = model.encode(t).join(',');
        if (depthOf.has(key)) continue;
        depthOf.set(key, depth + 1);
        if (depthOf.size > maxStates) throw new Error(`more than ${maxStates} states`);
        next.push(t);
      }
    }
    frontier = next;
  }
  return found;
}
