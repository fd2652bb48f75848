// The checker misses no behaviour the reference interpreter can show: every state that random
// runs reach (the interpreter's immer stepping, a seeded scheduler) is a state the checker
// generated while exploring the same program.
import { produce } from 'immer';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check, type Model } from '../../checker/index.ts';
import { arbPipelineParams, arbProgram } from '../../src/arbitraries.ts';
import { seededRandom } from '../../src/interp/random.ts';
import type { Program } from '../../src/ir/program.ts';
import { lowerProgram } from '../../src/lower.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { programModel } from '../../src/verify/model.ts';
import { enabledActions, executeAction, start, type Action, type MachineState } from '../../semantics/index.ts';

const key = (words: Int32Array): string => words.join(',');

/** The program's model, recording the encoding of every state it hands to the explorer. */
function recordingModel(program: Program): { model: Model<MachineState, Action>; seen: Set<string>; encode: (s: MachineState) => string } {
  const inner = programModel(program);
  const seen = new Set<string>();
  const record = (s: MachineState): MachineState => {
    seen.add(key(inner.encode(s)));
    return s;
  };
  const model: Model<MachineState, Action> = {
    ...inner,
    initialStates: () => inner.initialStates().map(record),
    nextState: (s, a) => record(inner.nextState(s, a)),
  };
  return { model, seen, encode: (s) => key(inner.encode(s)) };
}

/** The encodings of the states of one random run, stepped the way the interpreter steps. */
function randomRunStates(program: Program, seed: number, encode: (s: MachineState) => string, maxSteps = 400): string[] {
  const { machine, state } = start(program);
  const random = seededRandom(seed);
  const out = [encode(state)];
  let s = state;
  for (let i = 0; i < maxSteps; i++) {
    const actions = enabledActions(machine, s);
    const a = actions[Math.floor(random() * actions.length)];
    if (!a) break;
    s = produce(s, (draft) => executeAction(machine, draft, a));
    out.push(encode(s));
  }
  return out;
}

/** Explore, then run a few random schedules; returns how many run states were checked (0 if inconclusive). */
function expectRunsCovered(program: Program, seeds: readonly number[]): number {
  const { model, seen, encode } = recordingModel(program);
  const result = check(model, { maxStates: 20_000, reduction: false }); // every run is in the full graph, not in a reduced one
  if (result.verdict === 'inconclusive') return 0;
  let checked = 0;
  for (const seed of seeds) {
    for (const [step, k] of randomRunStates(program, seed, encode).entries()) {
      expect(seen.has(k), `seed ${seed}: the state after step ${step} of a random run was never explored`).toBe(true);
      checked++;
    }
  }
  return checked;
}

describe('random runs stay inside the explored state space', () => {
  it('the examples and a deadlocking pipeline, at both levels', () => {
    const pipeline = pipelineProgram({ depth: 2, pending: 2, consumers: 1, iterations: 6, level: 'aref' });
    const double = pipelineProgram({ depth: 2, pending: 1, consumers: 2, iterations: 6, level: 'aref' });
    let checked = 0;
    for (const p of [pipeline, double, lowerProgram(pipeline), lowerProgram(double)]) checked += expectRunsCovered(p, [1, 2, 3, 4, 5]);
    expect(checked).toBeGreaterThan(100);
  });

  it('random pipelines at both levels', () => {
    let checked = 0;
    fc.assert(
      fc.property(arbPipelineParams(), fc.boolean(), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (params, lowered, seed) => {
        const aref = pipelineProgram({ ...params, iterations: Math.min(params.iterations, 5), level: 'aref' });
        checked += expectRunsCovered(lowered ? lowerProgram(aref) : aref, [seed, seed + 1, seed + 2]);
      }),
      { numRuns: 30, seed: 42 },
    );
    expect(checked).toBeGreaterThan(300);
  });

  it('random programs', () => {
    let checked = 0;
    let programs = 0;
    fc.assert(
      fc.property(arbProgram({ maxRoles: 3, maxStatements: 3 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (program, seed) => {
        const n = expectRunsCovered(program, [seed, seed + 1, seed + 2, seed + 3]);
        if (n > 0) programs++;
        checked += n;
      }),
      { numRuns: 120, seed: 3 },
    );
    expect(programs).toBeGreaterThan(60);
    expect(checked).toBeGreaterThan(500);
  });

  it('would notice a state the checker did not explore', () => {
    // the guard of this test: drop one successor and some random run must fall outside
    const program = pipelineProgram({ depth: 2, pending: 1, consumers: 1, iterations: 3, level: 'aref' });
    const { model, seen, encode } = recordingModel(program);
    const pruned: Model<MachineState, Action> = { ...model, actions: (s, out) => { model.actions(s, out); if (out.length > 1) out.pop(); } };
    check(pruned);
    const outside = [1, 2, 3, 4, 5, 6, 7, 8].some((seed) => randomRunStates(program, seed, encode).some((k) => !seen.has(k)));
    expect(outside).toBe(true);
  });
});
