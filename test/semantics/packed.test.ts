// The packed successor generator (semantics/packed.ts) against the readable rules: the same
// enabled actions in the same order, and encode(step(s)) = packedStep(encode(s)) for every action
// it takes itself, on states of real explorations (gallery, examples, lowered pipelines, the
// lifted-kernel fixtures) and of random programs of every op family.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbPipelineParams, arbProgram } from '../../src/arbitraries.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { lowerProgram } from '../../src/lower.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { cloneState, compileMachine, enabledActions, executeAction, initialState, settleAll, SettleLimitError, type MachineState } from '../../semantics/index.ts';
import { StatePacker } from '../../semantics/pack.ts';
import { PackedRules } from '../../semantics/packed.ts';
import type { Action } from '../../semantics/step.ts';
import type { Program } from '../../src/ir/program.ts';
import { InputError } from '../../src/diag.ts';

const ROOT = join(import.meta.dirname, '../..');

interface Tally {
  packed: number;
  readable: number;
}

/** Compare both generators on every action of `s`; returns the readable successors. */
function compareAt(packer: StatePacker, rules: PackedRules, machine: ReturnType<typeof compileMachine>, s: MachineState, tally: Tally): MachineState[] {
  const words = packer.encode(s);
  const readable = enabledActions(machine, s);
  const packedActions: Action[] = [];
  rules.enabled(words, packedActions);
  expect(packedActions).toEqual(readable);
  const out: MachineState[] = [];
  for (const a of readable) {
    const next = cloneState(s);
    executeAction(machine, next, a);
    const viaPacked = rules.step(words, a);
    if (viaPacked) {
      tally.packed++;
      expect(Array.from(viaPacked)).toEqual(Array.from(packer.encode(next)));
    } else tally.readable++;
    out.push(next);
  }
  expect(rules.isFinished(words)).toBe(readable.length === 0 && !s.violation && machineFinished(machine, s));
  return out;
}

const machineFinished = (machine: ReturnType<typeof compileMachine>, s: MachineState): boolean =>
  s.roles.every((r, i) => r.pc >= (machine.roles[i]?.code.length ?? 0)) && s.tma.length === 0 && s.roles.every((r) => r.mmaGroups.every((g) => g.retired) && r.storeGroups.every((g) => g.retired));

/** Breadth-first over the first `limit` distinct states of the program, comparing at each. */
function exploreAndCompare(program: Program, limit: number, tally: Tally): void {
  const machine = compileMachine(program);
  const packer = new StatePacker(machine);
  const rules = new PackedRules(machine, packer.layout);
  const seen = new Set<string>();
  const queue = [settleAll(machine, initialState(machine))];
  for (let i = 0; i < queue.length && seen.size < limit; i++) {
    const s = queue[i]!;
    const key = packer.encode(s).join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    queue.push(...compareAt(packer, rules, machine, s, tally));
  }
}

const load = (file: string): Program => parseProgramText(readFileSync(join(ROOT, file), 'utf8'), file);
const files = [
  ...readdirSync(join(ROOT, 'examples/gallery')).filter((f) => f.endsWith('.aref')).map((f) => `examples/gallery/${f}`),
  ...readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.aref')).map((f) => `examples/${f}`),
  ...readdirSync(join(ROOT, 'test/fixtures/programs')).filter((f) => f.endsWith('.aref') && !f.includes('past-32')).map((f) => `test/fixtures/programs/${f}`),
];

/** A lowering, where the program has one (an aref program is checked at the mbarrier level through it). */
function lowered(program: Program): Program | undefined {
  if (!program.resources.some((r) => r.kind === 'aref')) return undefined;
  try {
    return lowerProgram(program);
  } catch (e) {
    if (e instanceof InputError) return undefined;
    throw e;
  }
}

describe('packed successors equal the readable rules', () => {
  const files_ = { packed: 0, readable: 0 };
  it.each(files)('%s: every transition of the first 400 states', (file) => {
    const program = load(file);
    exploreAndCompare(program, 400, files_);
    const low = lowered(program);
    if (low) exploreAndCompare(low, 400, files_);
  });

  it('the files above: most of their transitions are packed (the comparison is not vacuous)', () => {
    expect(files_.packed).toBeGreaterThan(3 * files_.readable);
  });

  it('the pipeline family at both levels, cooperative included: nearly every transition is packed', () => {
    const tally = { packed: 0, readable: 0 };
    for (const level of ['aref', 'mbarrier'] as const)
      for (const consumers of [1, 2, 3])
        for (const [depth, pending] of [[2, 0], [3, 1], [4, 1], [2, 2]] as const) exploreAndCompare(pipelineProgram({ depth, pending, consumers, iterations: 6, level }), 600, tally);
    exploreAndCompare(pipelineProgram({ depth: 3, pending: 1, consumers: 2, iterations: 6, level: 'mbarrier', cooperative: true }), 600, tally);
    // the readable rules take only violations and final states here
    expect(tally.readable / (tally.packed + tally.readable)).toBeLessThan(0.05);
  });

  it('random programs of every op family: random walks', () => {
    const programs = fc.oneof(
      arbProgram(),
      arbProgram({ atomics: true }),
      fc.tuple(arbPipelineParams(), fc.constantFrom('aref' as const, 'mbarrier' as const)).map(([p, level]) => pipelineProgram({ ...p, level })),
    );
    const tally = { packed: 0, readable: 0 };
    fc.assert(
      fc.property(programs, fc.array(fc.nat(), { minLength: 1, maxLength: 80 }), (program, choices) => {
        let machine;
        let s: MachineState;
        try {
          machine = compileMachine(program);
          s = settleAll(machine, initialState(machine));
        } catch (e) {
          if (e instanceof SettleLimitError) return;
          throw e;
        }
        const packer = new StatePacker(machine);
        const rules = new PackedRules(machine, packer.layout);
        for (const c of choices) {
          const next = compareAt(packer, rules, machine, s, tally);
          if (next.length === 0) break;
          s = next[c % next.length]!;
        }
      }),
      { numRuns: 300, seed: 20261126 },
    );
    expect(tally.packed).toBeGreaterThan(tally.readable);
  });
});
