// Collapse compression (on by default in verifyProgram) changes how states are stored, never what
// is explored: on the gallery, the examples, the pipeline family, generated programs and a lifted
// kernel, with reduction on and off, a run with collapse reaches the same states and transitions
// and reports the same counterexamples (same kinds, messages and steps) as one without, in fewer
// bytes per state.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { liftPtx } from '../../src/api.ts';
import { arbProgram } from '../../src/arbitraries.ts';
import { programLevel, type Level, type Program } from '../../src/ir/program.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyProgram, type Report } from '../../src/verify.ts';
import { ROOT } from '../../scripts/regen-traces.ts';
import { readPtx } from '../ptx/gluon-cases.ts';

interface Case {
  readonly name: string;
  readonly program: Program;
  readonly level: Level;
}

/** What a run found: verdict, figures, and each counterexample step by step. */
function outcome(r: Report): string {
  const steps = r.violations.map((v) => ({ kind: v.kind, message: v.message, trace: v.trace, actionIndices: v.actionIndices }));
  return JSON.stringify({ verdict: r.verdict, states: r.stats.states, transitions: r.stats.transitions, limit: r.limit?.reason, steps });
}

function expectSame(cases: readonly Case[], reduction: boolean): { compared: number; smaller: number } {
  let smaller = 0;
  for (const c of cases) {
    const options = { level: c.level, maxStates: 100_000, reduction };
    const plain = verifyProgram(c.program, { ...options, collapse: false });
    const collapsed = verifyProgram(c.program, { ...options, collapse: true });
    expect(outcome(collapsed), c.name).toBe(outcome(plain));
    if (collapsed.stats.bytesPerState < plain.stats.bytesPerState) smaller++;
  }
  return { compared: cases.length, smaller };
}

const fileCases: Case[] = [
  ...readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.aref')).map((f) => `examples/${f}`),
  ...readdirSync(join(ROOT, 'examples/gallery')).filter((f) => f.endsWith('.aref')).map((f) => `examples/gallery/${f}`),
].flatMap((f) => {
  const program = parseProgramText(readFileSync(join(ROOT, f), 'utf8'), f);
  const levels: Level[] = programLevel(program) === 'aref' ? ['aref', 'mbarrier'] : ['mbarrier'];
  return levels.map((level) => ({ name: `${f} ${level}`, program, level }));
});

const familyCases: Case[] = [];
for (const depth of [1, 2, 4]) for (const pending of [0, 1, 2]) for (const consumers of [1, 2]) {
  const program = pipelineProgram({ depth, pending, consumers, iterations: 16, level: 'aref' });
  for (const level of ['aref', 'mbarrier'] as const) familyCases.push({ name: `D${depth} P${pending} C${consumers} K16 ${level}`, program, level });
}

describe('collapse compression explores exactly what a plain run explores', () => {
  it('on the gallery and the examples, at each level, reduction on and off', () => {
    expect(expectSame(fileCases, true).compared).toBe(fileCases.length);
    expect(expectSame(fileCases, false).compared).toBe(fileCases.length);
  }, 120_000);

  it('on the pipeline family D {1, 2, 4} × P 0..2 × C 1..2 × K 16, both levels, reduction on and off', () => {
    expect(expectSame(familyCases, true).compared).toBe(familyCases.length);
    expect(expectSame(familyCases, false).compared).toBe(familyCases.length);
  }, 120_000);

  it('in fewer bytes per state once a run is past its first allocations (D4 P1 C2 K256, both levels, no reduction)', () => {
    const program = pipelineProgram({ depth: 4, pending: 1, consumers: 2, iterations: 256, level: 'aref' });
    for (const level of ['aref', 'mbarrier'] as const) {
      const { smaller } = expectSame([{ name: level, program, level }], false);
      expect(smaller, level).toBe(1);
      const plain = verifyProgram(program, { level, reduction: false, collapse: false });
      const collapsed = verifyProgram(program, { level, reduction: false, collapse: true });
      expect(collapsed.stats.bytesPerState / plain.stats.bytesPerState, level).toBeLessThan(0.85);
    }
  }, 120_000);

  it('on 300 generated programs', () => {
    const cases = fc
      .sample(arbProgram({ maxNesting: 2, maxStatements: 3, maxRoles: 3 }), { seed: 41, numRuns: 300 })
      .map((program) => ({ name: 'random program', program, level: programLevel(program) }));
    expect(expectSame(cases, true).compared).toBe(300);
  }, 120_000);

  it('on a lifted Gluon kernel with two violations (race and protocol)', () => {
    const [kernel] = liftPtx(readPtx('two_consumer_ws_m2'), { file: 'two_consumer_ws_m2.ptx' });
    if (!kernel) throw new Error('no kernel lifted');
    const plain = verifyProgram(kernel.program, { collapse: false });
    expect(plain.violations.map((v) => v.kind).sort()).toEqual(['protocol', 'race']);
    expect(outcome(verifyProgram(kernel.program))).toBe(outcome(plain));
  }, 60_000);
});
