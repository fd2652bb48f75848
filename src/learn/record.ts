// Whole runs as step records: one seeded random interleaving (the same choices as
// `arefcheck run --seed N`), or the steps of a counterexample's action indices.
import { seededRandom } from '../interp/random.ts';
import type { Machine, MachineState } from '../../semantics/index.ts';
import { Session, type Ending, type StepRecord } from './session.ts';

export interface RecordedRun {
  readonly steps: readonly StepRecord[];
  readonly ending: Ending;
}

/** Run with the interpreter's scheduler: the same seed picks the same actions as `arefcheck run`. */
export function recordRandomRun(machine: Machine, initial: MachineState, seed: number, maxSteps: number): RecordedRun {
  const session = new Session(machine, initial);
  const random = seededRandom(seed);
  for (;;) {
    const ending = session.ending();
    if (ending) return { steps: session.steps, ending };
    if (session.steps.length >= maxSteps) return { steps: session.steps, ending: { kind: 'open', message: `stopped at the step limit (${maxSteps} steps)` } };
    session.step(Math.floor(random() * session.enabled().length));
  }
}

/**
 * Take the enabled action at each position of `indices` (a counterexample's actionIndices);
 * undefined at the first index that is not enabled (the caller's replay names it).
 */
export function recordIndices(machine: Machine, initial: MachineState, indices: readonly number[]): StepRecord[] | undefined {
  const session = new Session(machine, initial);
  for (const i of indices) if (!session.step(i)) return undefined;
  return [...session.steps];
}
