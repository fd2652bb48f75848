import { describe, expect, it } from 'vitest';
import { check } from '../../checker/index.ts';
import type { Invariant } from '../../checker/model.ts';
import { keyOf, naiveBfs } from './naive.ts';
import { type LockAction, brokenMutexModel, countersModel, lockModel, sum } from './toys.ts';

describe('counters: golden state counts', () => {
  const cases: Array<[number, number]> = [
    [1, 5],
    [3, 4],
    [5, 3],
    [6, 4],
    [8, 2],
  ];
  for (const [n, k] of cases) {
    it(`${n} counters in [0,${k}) give ${k}^${n} states`, () => {
      const result = check(countersModel(n, k));
      expect(result.verdict).toBe('verified');
      expect(result.violations).toEqual([]);
      expect(result.stats.states).toBe(k ** n);
      expect(result.stats.transitions).toBe(n * (k - 1) * k ** (n - 1));
      expect(result.stats.maxDepth).toBe(n * (k - 1));
      expect(result.limit).toBeUndefined();
    });
  }

  it('with a progress measure: same counts, no edges needed, nothing to note', () => {
    const result = check(countersModel(6, 4, { progress: true }));
    expect(result.verdict).toBe('verified');
    expect(result.stats.states).toBe(4 ** 6);
    expect(result.notes).toBeUndefined();
    const withEdges = check(countersModel(6, 4));
    expect(result.stats.bytesPerState).toBeLessThan(withEdges.stats.bytesPerState);
  });

  it('wrapping counters reach every state of a cyclic graph', () => {
    const result = check(countersModel(4, 3, { wrap: true }), { termination: false });
    expect(result.verdict).toBe('verified');
    expect(result.stats.states).toBe(81);
    expect(result.stats.transitions).toBe(81 * 4);
  });
});

describe('deadlock', () => {
  it('finds the seeded lock-order deadlock with a shortest trace (naive BFS agrees)', () => {
    const model = lockModel(3, [2]);
    const result = check(model);
    const naive = naiveBfs(model);
    expect(naive.deadlockDepth).toBeDefined();
    expect(result.verdict).toBe('violation');
    const deadlock = result.violations.find((v) => v.kind === 'deadlock');
    expect(deadlock).toBeDefined();
    expect(deadlock!.trace.length).toBe(naive.deadlockDepth! + 1);
    expect(result.stats.states).toBe(naive.distance.size);
    expect(deadlock!.message).toMatch(/process 0 waits for lock [AB] held by process 1/);
    expect(deadlock!.message).toMatch(/process 1 waits for lock [AB] held by process 0/);
    // The trace is a real path: each state is the previous one's successor under the action shown.
    const trace = deadlock!.trace;
    expect(trace[0]!.initialIndex).toBe(0);
    expect(trace[0]!.action).toBeUndefined();
    for (let i = 1; i < trace.length; i++) {
      const step = trace[i]!;
      expect(step.depth).toBe(i);
      const next = model.nextState(trace[i - 1]!.state, step.action!);
      expect(keyOf(model.encode(next))).toBe(keyOf(model.encode(step.state)));
    }
    const last = trace.at(-1)!.state;
    const enabled: LockAction[] = [];
    model.actions(last, enabled);
    expect(enabled).toEqual([]);
    expect(model.isFinal(last)).toBe(false);
  });

  it('two-process locks over r rounds: 7r² + 8r + 1 states (naive BFS agrees)', () => {
    for (let r = 1; r <= 6; r++) {
      const model = lockModel(r, []);
      const states = check(model).stats.states;
      expect(states).toBe(7 * r * r + 8 * r + 1);
      expect(states).toBe(naiveBfs(model).distance.size);
    }
  });

  it('the same protocol without the reversed round is verified', () => {
    const model = lockModel(3, []);
    const result = check(model);
    expect(result.verdict).toBe('verified');
    expect(result.stats.states).toBe(naiveBfs(model).distance.size);
  });
});

describe('invariants', () => {
  it('the mutex violation is found at its BFS depth', () => {
    const model = brokenMutexModel(2);
    const naive = naiveBfs(model);
    const result = check(model);
    const mutex = result.violations.find((v) => v.kind === 'mutex');
    expect(mutex?.message).toBe('both processes are in the critical section');
    expect(mutex!.trace.length - 1).toBe(naive.violationDepth.get('mutex'));
    expect(mutex!.trace.length - 1).toBe(4); // read, read, set, set
    expect(result.stats.states).toBe(naive.distance.size);
  });

  it('a counter-sum bound is violated exactly at depth = bound, and violating states are not expanded', () => {
    const bound = 5;
    const below: Invariant<Int32Array> = {
      kind: 'bound',
      check: (s) => (sum(s) >= bound ? `sum reached ${sum(s)}` : undefined),
    };
    const result = check(countersModel(4, 4, { invariants: [below] }), { termination: false });
    expect(result.verdict).toBe('violation');
    expect(result.violations).toHaveLength(1);
    const [v] = result.violations;
    expect(v!.kind).toBe('bound');
    expect(v!.trace).toHaveLength(bound + 1);
    expect(sum(v!.trace.at(-1)!.state)).toBe(bound);
    // Stored: the states with sum ≤ bound (those with sum = bound are stored but not expanded).
    let expected = 0;
    for (let x = 0; x < 4 ** 4; x++) {
      const digits = [0, 1, 2, 3].map((i) => Math.floor(x / 4 ** i) % 4);
      if (digits.reduce((a, b) => a + b, 0) <= bound) expected++;
    }
    expect(result.stats.states).toBe(expected);
    expect(result.stats.maxDepth).toBe(bound);
  });

  it('records the first violation of each kind, or only one with stopAtFirst', () => {
    const model = lockModel(3, [2]);
    const early: Invariant<unknown> = { kind: 'early', check: () => undefined };
    const roundTwo = {
      kind: 'round-two',
      check: (s: { round: readonly number[] }) => (s.round[0] === 2 ? 'process 0 reached round 2' : undefined),
    };
    const withInvariants = { ...model, invariants: [early, roundTwo] };
    const all = check(withInvariants);
    expect(all.violations.map((v) => v.kind).sort()).toEqual(['deadlock', 'round-two']);
    const first = check(withInvariants, { stopAtFirst: true });
    expect(first.verdict).toBe('violation');
    expect(first.violations).toHaveLength(1);
    expect(first.stats.states).toBeLessThan(all.stats.states);
  });

  it('checks invariants on initial states too', () => {
    const initialBad: Invariant<Int32Array> = { kind: 'init', check: () => 'bad from the start' };
    const result = check(countersModel(2, 2, { invariants: [initialBad] }));
    expect(result.violations).toHaveLength(1);
    expect(result.violations[0]!.trace).toHaveLength(1);
    expect(result.stats.states).toBe(1);
  });
});

describe('limits give inconclusive, never verified', () => {
  it('maxStates', () => {
    const result = check(countersModel(4, 4), { maxStates: 100 });
    expect(result.verdict).toBe('inconclusive');
    expect(result.limit?.reason).toBe('states');
    expect(result.limit?.message).toMatch(/state limit reached \(100\)/);
    expect(result.stats.states).toBe(100);
  });

  it('maxStates equal to the reachable count is not a limit', () => {
    expect(check(countersModel(4, 4), { maxStates: 256 }).verdict).toBe('verified');
    expect(check(countersModel(4, 4), { maxStates: 255 }).verdict).toBe('inconclusive');
  });

  it('maxMs', () => {
    const result = check(countersModel(4, 4), { maxMs: 0 });
    expect(result.verdict).toBe('inconclusive');
    expect(result.limit?.reason).toBe('time');
    expect(result.stats.states).toBeLessThan(256);
  });

  it('maxMs on a run far too big to finish', () => {
    const result = check(countersModel(12, 4, { progress: true }), { maxMs: 30 });
    expect(result.verdict).toBe('inconclusive');
    expect(result.limit?.reason).toBe('time');
  });

  it('maxBytes', () => {
    const result = check(countersModel(8, 4), { maxBytes: 200_000 });
    expect(result.verdict).toBe('inconclusive');
    expect(result.limit?.reason).toBe('memory');
    expect(result.stats.states).toBeLessThan(4 ** 8);
    expect(result.stats.states).toBeGreaterThan(0);
  });

  it('a violation found before a limit still gives verdict violation', () => {
    const result = check(lockModel(4, [0]), { maxStates: 20 });
    expect(result.verdict).toBe('violation');
    expect(result.limit?.reason).toBe('states');
    expect(result.violations[0]!.kind).toBe('deadlock');
  });
});

describe('progress callback', () => {
  it('is called with growing figures during a run longer than a second', () => {
    const base = countersModel(2, 40, { progress: true });
    const slow = {
      ...base,
      actions(state: Int32Array, out: number[]) {
        const until = performance.now() + 1;
        while (performance.now() < until); // about 1 ms per expansion: 1,600 states ≈ 1.6 s
        base.actions(state, out);
      },
    };
    const seen: number[] = [];
    const result = check(slow, { onProgress: (info) => seen.push(info.states) });
    expect(result.stats.states).toBe(1600);
    expect(seen.length).toBeGreaterThan(0);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
  });
});
