// Shared by the learn tests: examples compiled and run, in one line each.
import { Chalk } from 'chalk';
import { loadProgramFile } from '../../src/lang/load.ts';
import { recordRandomRun, type RecordedRun } from '../../src/learn/record.ts';
import { buildSequence, type SequenceDiagram } from '../../src/learn/sequence.ts';
import { start, type Machine, type MachineState } from '../../semantics/index.ts';
import type { Program } from '../../src/ir/program.ts';

export const plain = new Chalk({ level: 0 });

export function machineOf(file: string, params: Record<string, number> = {}): { machine: Machine; state: MachineState; program: Program } {
  const program = loadProgramFile(file, new Map(Object.entries(params)));
  return { ...start(program), program };
}

export function seededRun(file: string, seed: number, params: Record<string, number> = {}): { machine: Machine; run: RecordedRun } {
  const { machine, state } = machineOf(file, params);
  return { machine, run: recordRandomRun(machine, state, seed, 1000) };
}

export function seededSequence(file: string, seed: number, params: Record<string, number> = {}): SequenceDiagram {
  const { machine, run } = seededRun(file, seed, params);
  return buildSequence(machine, run.steps, run.ending, { caption: `${file} seed ${seed}` });
}
