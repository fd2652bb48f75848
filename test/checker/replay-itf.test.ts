import { describe, expect, it } from 'vitest';
import {
  ItfError,
  ReplayError,
  check,
  readItfIndices,
  replayActionIndices,
  toItf,
  traceIndices,
} from '../../checker/index.ts';
import { keyOf } from './naive.ts';
import { type LockState, brokenMutexModel, countersModel, lockModel } from './toys.ts';

const lockVars = (s: LockState) => ({ pc: [...s.pc], round: [...s.round], owner: [...s.owner] });

describe('replay of action indices', () => {
  it('re-runs a deadlock trace to the same states', () => {
    const model = lockModel(3, [2]);
    const [deadlock] = check(model).violations;
    const { initialIndex, actionIndices } = traceIndices(deadlock!.trace);
    expect(actionIndices).toHaveLength(deadlock!.trace.length - 1);
    const replayed = replayActionIndices(model, actionIndices, initialIndex);
    expect(replayed.map((s) => keyOf(model.encode(s.state)))).toEqual(deadlock!.trace.map((s) => keyOf(model.encode(s.state))));
    expect(replayed.map((s) => s.actionIndex)).toEqual(deadlock!.trace.map((s) => s.actionIndex));
  });

  it('reaches the violating state of an invariant trace', () => {
    const model = brokenMutexModel(1);
    const [mutex] = check(model).violations;
    const { actionIndices } = traceIndices(mutex!.trace);
    const last = replayActionIndices(model, actionIndices).at(-1)!.state;
    expect(model.invariants[0]!.check(last)).toBe('both processes are in the critical section');
  });

  it('says which step cannot be replayed', () => {
    const model = countersModel(2, 2);
    expect(() => replayActionIndices(model, [0, 5])).toThrow(ReplayError);
    expect(() => replayActionIndices(model, [0, 5])).toThrow(/step 2 asks for action #5 but only 1 are enabled/);
    expect(() => replayActionIndices(model, [], 1)).toThrow(/no initial state #1/);
  });
});

describe('ITF traces', () => {
  it('round trip: trace → ITF JSON text → indices → replay gives the same states', () => {
    const model = lockModel(3, [2]);
    const [deadlock] = check(model).violations;
    const itf = toItf(deadlock!.trace, {
      vars: lockVars,
      formatAction: model.formatAction,
      meta: { kind: deadlock!.kind, message: deadlock!.message },
    });
    expect(itf['#meta'].format).toBe('ITF');
    expect(itf['#meta']['kind']).toBe('deadlock');
    expect(itf.vars).toEqual(['pc', 'round', 'owner']);
    expect(itf.states[0]!['#meta']).toEqual({ index: 0, initialIndex: 0 });
    expect(itf.states[1]!['#meta'].action).toMatch(/^process [01]$/);
    expect(itf.loop).toBeUndefined();
    const parsed: unknown = JSON.parse(JSON.stringify(itf));
    const { initialIndex, actionIndices } = readItfIndices(parsed);
    const replayed = replayActionIndices(model, actionIndices, initialIndex);
    expect(replayed.map((s) => lockVars(s.state))).toEqual(deadlock!.trace.map((s) => lockVars(s.state)));
  });

  it('keeps the loop of a lasso', () => {
    const model = countersModel(2, 2, { wrap: true });
    const termination = check(model).violations.find((v) => v.kind === 'termination')!;
    const itf = toItf(termination.trace, {
      vars: (s) => ({ counters: Array.from(s) }),
      formatAction: model.formatAction,
      loopStart: termination.loopStart!,
    });
    const read = readItfIndices(JSON.parse(JSON.stringify(itf)));
    expect(read.loop).toBe(termination.loopStart);
    expect(read.actionIndices).toHaveLength(termination.trace.length - 1);
  });

  it('rejects documents that cannot be replayed', () => {
    expect(() => readItfIndices(null)).toThrow(ItfError);
    expect(() => readItfIndices({ states: [] })).toThrow(/empty/);
    expect(() => readItfIndices({ states: [{ x: 1 }] })).toThrow(/states\[0\] has no "#meta"/);
    expect(() => readItfIndices({ states: [{ '#meta': {} }, { '#meta': { actionIndex: -1 } }] })).toThrow(
      /states\[1\]\["#meta"\].actionIndex must be a non-negative integer/,
    );
    expect(() => readItfIndices({ states: [{ '#meta': {} }], loop: 3 })).toThrow(/"loop"/);
    expect(readItfIndices({ states: [{ '#meta': {} }, { '#meta': { actionIndex: 2 } }] })).toEqual({
      initialIndex: 0,
      actionIndices: [2],
    });
  });

  it('refuses states whose variables differ', () => {
    const model = countersModel(1, 3);
    const trace = replayActionIndices(model, [0, 0]);
    expect(() =>
      toItf(trace, { vars: (s) => (s[0] === 1 ? { a: 1 } : { b: 2 }), formatAction: String }),
    ).toThrow(/state 1 has variables \[a\], expected \[b\]/);
  });
});
