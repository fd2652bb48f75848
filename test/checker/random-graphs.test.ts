// Property: on random small graphs the explorer agrees with independent, naive oracles.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import type { Invariant } from '../../checker/model.ts';
import { isFairLasso } from './lasso.ts';
import { naiveBfs } from './naive.ts';
import { type GraphSpec, graphModel } from './toys.ts';

const MAX_NODES = 7;

const graphArb: fc.Arbitrary<GraphSpec> = fc.integer({ min: 1, max: MAX_NODES }).chain((n) =>
  fc.record({
    initial: fc.array(fc.nat(n - 1), { minLength: 1, maxLength: 3 }),
    edges: fc.array(fc.array(fc.record({ to: fc.nat(n - 1), actor: fc.nat(2) }), { maxLength: 3 }), {
      minLength: n,
      maxLength: n,
    }),
    final: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
  }),
);

/**
 * Oracle for a weakly fair infinite run, straight from the definition: some set C of reachable
 * nodes, strongly connected by edges inside C, with an edge inside C, in which every actor
 * enabled at all nodes of C acts on some edge inside C. Tries every subset (n ≤ 7).
 */
function hasFairCycle(spec: GraphSpec, reachable: ReadonlySet<number>): boolean {
  const nodes = [...reachable];
  for (let mask = 1; mask < 1 << nodes.length; mask++) {
    const c = new Set(nodes.filter((_, i) => (mask & (1 << i)) !== 0));
    const inside = (v: number) => (spec.edges[v] ?? []).filter((edge) => c.has(edge.to));
    if (![...c].some((v) => inside(v).length > 0)) continue;
    const start = [...c][0]!;
    const reach = (from: number, reverse: boolean): Set<number> => {
      const seen = new Set([from]);
      const queue = [from];
      while (queue.length > 0) {
        const v = queue.pop()!;
        for (const w of c) {
          const edge = reverse ? inside(w).some((x) => x.to === v) : inside(v).some((x) => x.to === w);
          if (edge && !seen.has(w)) {
            seen.add(w);
            queue.push(w);
          }
        }
      }
      return seen;
    };
    if (reach(start, false).size !== c.size || reach(start, true).size !== c.size) continue;
    const enabledEverywhere = [0, 1, 2].filter((a) => [...c].every((v) => (spec.edges[v] ?? []).some((x) => x.actor === a)));
    const acting = new Set([...c].flatMap((v) => inside(v).map((x) => x.actor)));
    if (enabledEverywhere.every((a) => acting.has(a))) return true;
  }
  return false;
}

describe('random graphs: the explorer matches naive oracles', () => {
  it('same reachable states, deadlock iff a reachable non-final sink (at the same depth)', () => {
    fc.assert(
      fc.property(graphArb, (spec) => {
        const seen = new Set<number>();
        const recordSeen: Invariant<number> = { kind: 'never', check: (node) => void seen.add(node) };
        const model = { ...graphModel(spec), invariants: [recordSeen] };
        const result = check(model, { termination: false });
        const naive = naiveBfs(graphModel(spec));
        expect([...seen].sort()).toEqual([...naive.states.values()].sort());
        expect(result.stats.states).toBe(naive.distance.size);
        const deadlock = result.violations.find((v) => v.kind === 'deadlock');
        expect(deadlock !== undefined).toBe(naive.deadlockDepth !== undefined);
        if (deadlock) expect(deadlock.trace.length - 1).toBe(naive.deadlockDepth);
        expect(result.verdict).toBe(deadlock ? 'violation' : 'verified');
      }),
      { numRuns: 400 },
    );
  });

  it('termination violation iff a weakly fair cycle exists, and the lasso is one', () => {
    fc.assert(
      fc.property(graphArb, (spec) => {
        const model = graphModel(spec);
        const result = check(model);
        const reachable = new Set(naiveBfs(model).states.values());
        const termination = result.violations.find((v) => v.kind === 'termination');
        expect(termination !== undefined).toBe(hasFairCycle(spec, reachable));
        if (termination) {
          expect(isFairLasso(model, termination.trace, termination.loopStart!)).toBe(true);
          // The stem is a shortest path to the cycle's entry.
          const entry = termination.trace[termination.loopStart!]!.state;
          expect(termination.loopStart).toBe(naiveBfs(model).distance.get(String(entry)));
        }
      }),
      { numRuns: 400 },
    );
  });
});
