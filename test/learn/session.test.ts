// The stepping session and recorded runs agree with the reference interpreter (`arefcheck run`).
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbProgram } from '../../src/arbitraries.ts';
import { randomRun, type RunOutcome } from '../../src/interp/run.ts';
import { recordIndices, recordRandomRun } from '../../src/learn/record.ts';
import { Session, type Ending } from '../../src/learn/session.ts';
import { enabledActions, start } from '../../semantics/index.ts';
import type { Program } from '../../src/ir/program.ts';
import { machineOf } from './helpers.ts';

function sameOutcome(ending: Ending, outcome: RunOutcome): boolean {
  if (outcome.kind === 'finished') return ending.kind === 'finished';
  if (outcome.kind === 'stuck') return ending.kind === 'stuck' && ending.reasons.join('\n') === outcome.reasons.join('\n');
  if (outcome.kind === 'error') return ending.kind === 'violation' && ending.violation === outcome.violation.kind && ending.message === outcome.violation.message && ending.line === outcome.violation.line;
  return ending.kind === 'open';
}

function expectSameAsInterpreter(program: Program, seed: number, maxSteps: number): void {
  const { machine, state } = start(program);
  const recorded = recordRandomRun(machine, state, seed, maxSteps);
  const reference = randomRun(program, { seed, maxSteps });
  expect(recorded.steps.map((s) => [s.index, s.actor, s.text, s.changes])).toEqual(reference.steps.map((s) => [s.index, s.actor, s.action, s.changes]));
  expect(sameOutcome(recorded.ending, reference.outcome)).toBe(true);
}

describe('recorded runs', () => {
  it('take the same steps as `arefcheck run` with the same seed, on every example', () => {
    for (const file of ['examples/double-buffer.aref', 'examples/double-buffer-mbar.aref', 'examples/depth-equals-pending.aref', 'examples/early-release-mbar.aref']) {
      const { program } = machineOf(file);
      for (let seed = 0; seed < 15; seed++) expectSameAsInterpreter(program, seed, 1000);
    }
  });

  it('take the same steps as `arefcheck run` on random programs (property)', () => {
    fc.assert(
      fc.property(arbProgram(), fc.integer({ min: 0, max: 2 ** 32 - 1 }), (program, seed) => {
        expectSameAsInterpreter(program, seed, 200);
      }),
      { numRuns: 60 },
    );
  });

  it('end as the examples say: finished, stuck (D = P), race (early release) with its line', () => {
    const ending = (file: string): Ending => {
      const { machine, state } = machineOf(file);
      return recordRandomRun(machine, state, 1, 1000).ending;
    };
    expect(ending('examples/double-buffer.aref').kind).toBe('finished');
    const stuck = ending('examples/depth-equals-pending.aref');
    expect(stuck.kind === 'stuck' && stuck.reasons.length).toBe(2);
    const race = ending('examples/early-release-mbar.aref');
    expect(race).toMatchObject({ kind: 'violation', violation: 'race', line: 16 });
  });

  it('stop at the step limit with an open ending', () => {
    const { machine, state } = machineOf('examples/double-buffer.aref');
    const run = recordRandomRun(machine, state, 1, 5);
    expect(run.steps).toHaveLength(5);
    expect(run.ending).toEqual({ kind: 'open', message: 'stopped at the step limit (5 steps)' });
  });

  it('replay action indices, and refuse one that is not enabled', () => {
    const { machine, state } = machineOf('examples/double-buffer.aref');
    const steps = recordIndices(machine, state, [0, 0, 0]);
    expect(steps?.map((s) => s.text)).toEqual(['put A[0], 0', 'put A[1], 1', 'get A[0] expect 0']);
    // after both puts only the consumer can move: index 1 is not enabled
    expect(recordIndices(machine, state, [0, 0, 1])).toBeUndefined();
  });
});

describe('Session', () => {
  it('steps, undoes to the very state before, and refuses a choice that is not enabled', () => {
    const { machine, state } = machineOf('examples/double-buffer.aref');
    const session = new Session(machine, state);
    expect(session.step(1)).toBeUndefined(); // only the producer's put is enabled at first
    const first = session.step(0);
    expect(first?.text).toBe('put A[0], 0');
    expect(first?.changes).toEqual(['σ(A[0]) = ⟨0, 1, 0⟩']);
    const afterFirst = session.state;
    session.step(1);
    expect(session.steps).toHaveLength(2);
    expect(session.undo()).toBe(true);
    expect(session.state).toBe(afterFirst);
    expect(session.undo()).toBe(true);
    expect(session.state).toBe(state);
    expect(session.undo()).toBe(false);
  });

  it('records each role step with its source position; async units have none', () => {
    const { machine, state } = machineOf('examples/early-release-mbar.aref');
    const session = new Session(machine, state);
    for (let i = 0; i < 3; i++) session.step(0); // wait, arrive.expect_tx, tma.load
    expect(session.steps.map((s) => s.loc?.line)).toEqual([14, 15, 16]);
    const land = enabledActions(machine, session.state).findIndex((a) => a.kind === 'land');
    const step = session.step(land);
    expect(step?.actor).toBe('TMA (producer)');
    expect(step?.loc).toBeUndefined();
  });
});
