import { describe, expect, it } from 'vitest';
import { check, replayActionIndices, traceIndices } from '../../checker/index.ts';
import type { Model } from '../../checker/model.ts';
import { isFairLasso } from './lasso.ts';
import { type GraphSpec, countersModel, graphModel, lockModel } from './toys.ts';

const e = (to: number, actor: number) => ({ to, actor });

// Node 0 spins (actor 0) while actor 1 could finish (0 → 1, final) at any time.
const spinOrFinish: GraphSpec = { initial: [0], edges: [[e(0, 0), e(1, 1)], []], final: [false, true] };
// Actors 0 and 1 hand a token back and forth; actor 2 could leave only from node 0.
const politeLivelock: GraphSpec = {
  initial: [0],
  edges: [[e(1, 0), e(2, 2)], [e(0, 1)], []],
  final: [false, false, true],
};
// Actor 2 may leave from both 0 and 1 (enabled all over the cycle) but never acts inside it.
const exitAlwaysEnabled: GraphSpec = {
  initial: [0],
  edges: [[e(1, 0), e(2, 2)], [e(0, 1), e(2, 2)], []],
  final: [false, false, true],
};
// The SCC {0,1,2}: actor 1 can leave from 0 and 1 but not from 2; a fair cycle must pass node 2.
const fairOnlyThroughTwo: GraphSpec = {
  initial: [4],
  edges: [[e(1, 0), e(3, 1)], [e(0, 0), e(2, 0), e(3, 1)], [e(0, 0)], [], [e(0, 0)]],
  final: [false, false, false, true, false],
};

describe('termination under weak fairness', () => {
  it('an unfair spin is not a violation: the finishing party is enabled throughout', () => {
    const result = check(graphModel(spinOrFinish));
    expect(result.verdict).toBe('verified');
  });

  it('without parties (one actor) the same spin is a violation, with a one-step lasso', () => {
    const result = check(graphModel(spinOrFinish, { useActors: false }));
    expect(result.verdict).toBe('violation');
    const [v] = result.violations;
    expect(v!.kind).toBe('termination');
    expect(v!.trace.map((s) => s.state)).toEqual([0, 0]);
    expect(v!.loopStart).toBe(0);
  });

  it('a polite livelock where both parties act is a violation', () => {
    const model = graphModel(politeLivelock);
    const result = check(model);
    expect(result.verdict).toBe('violation');
    const [v] = result.violations;
    expect(v!.kind).toBe('termination');
    expect(v!.trace.map((s) => s.state)).toEqual([0, 1, 0]);
    expect(v!.loopStart).toBe(0);
    expect(v!.message).toMatch(/cycle of 2 steps from depth 0/);
    expect(v!.message).toMatch(/actor 0, actor 1/);
    expect(isFairLasso(model, v!.trace, v!.loopStart!)).toBe(true);
  });

  it('a cycle whose exit stays enabled all along is not a violation', () => {
    expect(check(graphModel(exitAlwaysEnabled)).verdict).toBe('verified');
  });

  it('the lasso visits the state where a party is disabled, so the cycle is really fair', () => {
    const model = graphModel(fairOnlyThroughTwo);
    const result = check(model);
    const [v] = result.violations;
    expect(v!.kind).toBe('termination');
    const loop = v!.trace.slice(v!.loopStart!).map((s) => s.state);
    expect(loop).toContain(2);
    expect(v!.trace[0]!.state).toBe(4);
    expect(v!.loopStart).toBe(1); // 4 → 0 is the shortest stem
    expect(isFairLasso(model, v!.trace, v!.loopStart!)).toBe(true);
  });

  it('termination: false skips the analysis', () => {
    expect(check(graphModel(politeLivelock), { termination: false }).verdict).toBe('verified');
  });

  it('wrapping counters loop forever: a fair 3-counter cycle of 9 steps', () => {
    const model = countersModel(3, 3, { wrap: true });
    const result = check(model);
    const [v] = result.violations;
    expect(v!.kind).toBe('termination');
    expect(v!.trace.length - 1 - v!.loopStart!).toBe(9);
    expect(isFairLasso(model, v!.trace, v!.loopStart!)).toBe(true);
    // The lasso replays from its indices.
    const { initialIndex, actionIndices } = traceIndices(v!.trace);
    const replayed = replayActionIndices(model, actionIndices, initialIndex);
    expect(replayed.map((s) => Array.from(s.state))).toEqual(v!.trace.map((s) => Array.from(s.state)));
  });

  it('a finite protocol with rounds terminates', () => {
    expect(check(lockModel(2, [])).verdict).toBe('verified');
  });
});

describe('progress measure', () => {
  it('a strictly increasing measure: verified without recording edges', () => {
    const result = check(countersModel(5, 3, { progress: true }));
    expect(result.verdict).toBe('verified');
    expect(result.notes).toBeUndefined();
  });

  it('a measure that fails on a cyclic model: noted, edges recorded, the cycle found', () => {
    const base = graphModel(politeLivelock);
    const model: Model<number, { to: number; actor: number }> = { ...base, progress: (node) => node };
    const result = check(model);
    expect(result.notes?.[0]).toMatch(/progress measure did not increase/);
    expect(result.violations.map((v) => v.kind)).toEqual(['termination']);
  });

  it('a measure that fails on an acyclic model: noted, then verified', () => {
    const base = countersModel(3, 3);
    const result = check({ ...base, progress: () => 0 });
    expect(result.notes?.[0]).toMatch(/progress measure did not increase/);
    expect(result.verdict).toBe('verified');
    expect(result.stats.states).toBe(27);
  });

  it('a state limit with a progress measure stays inconclusive', () => {
    const result = check(countersModel(5, 3, { progress: true }), { maxStates: 50 });
    expect(result.verdict).toBe('inconclusive');
  });
});

describe('termination on a partial graph', () => {
  it('a fair cycle among the explored states is still reported when the state limit is hit', () => {
    // Node 0 ⇄ 1 livelock, and a long chain 0 → 2 → 3 → … that the limit cuts.
    const n = 50;
    const edges = [[e(1, 0), e(2, 2)], [e(0, 1)], ...Array.from({ length: n - 2 }, (_, i) => [e(Math.min(i + 3, n - 1), 2)])];
    const spec: GraphSpec = { initial: [0], edges, final: Array.from({ length: n }, () => false) };
    const result = check(graphModel(spec), { maxStates: 10 });
    expect(result.limit?.reason).toBe('states');
    expect(result.verdict).toBe('violation');
    expect(result.violations.map((v) => v.kind)).toEqual(['termination']);
    expect(result.notes).toContain('termination analysed on the explored part of the graph only');
  });
});
