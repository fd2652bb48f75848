// Partial-order reduction on a graph with cycles: the cycle proviso (a state whose ample subset
// takes a marked cycle-closing transition is expanded fully) keeps an action from being ignored
// forever around a cycle.
import { describe, expect, it } from 'vitest';
import { check, type Model } from '../../checker/index.ts';
import { explore } from '../../checker/bfs.ts';

// state [a, b]: process A counts a = 0, 1, 2, 0, … forever; process B moves b 0 → 1 once, and
// b = 1 violates "bad". The ample set always offers A alone: without a proviso, B is never taken.
type S = readonly [number, number];
type A = 'a' | 'b';

function model(markCycles: boolean): Model<S, A> {
  return {
    initialStates: () => [[0, 0]],
    actions: (s, out) => {
      out.push('a');
      if (s[1] === 0) out.push('b');
    },
    nextState: (s, act) => (act === 'a' ? [(s[0] + 1) % 3, s[1]] : [s[0], 1]),
    invariants: [{ kind: 'bad', check: (s) => (s[1] === 1 ? 'b moved' : undefined) }],
    isFinal: () => false,
    explainDeadlock: () => '',
    encode: (s) => Int32Array.from(s),
    decode: (w) => [w[0] ?? 0, w[1] ?? 0],
    formatAction: (act) => act,
    ample: (_s, actions) => (actions.length > 1 ? [0] : undefined),
    ...(markCycles ? { cycleEdge: (from: S, to: S) => to[0] < from[0] } : {}),
  };
}

describe('the cycle proviso', () => {
  it('finds the violation an ample set would postpone forever around a cycle', () => {
    const r = check(model(true), { termination: false });
    expect(r.verdict).toBe('violation');
    expect(r.violations.map((v) => v.kind)).toEqual(['bad']);
  });

  it('without cycleEdge a model with cycles is not reduced (a progress measure is required)', () => {
    const r = check(model(false), { termination: false });
    expect(r.verdict).toBe('violation');
  });

  it('the proviso is what finds it: the same reduced exploration without it ignores B forever', () => {
    const settings = { recordEdges: false, checkProgress: false, startMs: performance.now(), reduce: true };
    expect(explore(model(true), {}, { ...settings, cycleProviso: false }).violations).toEqual([]);
    expect(explore(model(true), {}, { ...settings, cycleProviso: true }).violations.map((v) => v.kind)).toEqual(['bad']);
  });

  it('the reduced trace is a real path, no shorter than the full graph trace', () => {
    const on = check(model(true), { termination: false });
    const off = check(model(true), { termination: false, reduction: false });
    expect(off.violations[0]?.trace.map((t) => t.action)).toEqual([undefined, 'b']);
    expect(on.violations[0]?.trace.at(-1)?.action).toBe('b');
  });
});
