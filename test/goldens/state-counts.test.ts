// Exact state and transition counts of the gallery and of a grid of pipeline programs, pinned
// (Stateright's golden counts): an encoding change that merges distinct states, or splits equal
// ones, shows here even when every verdict stays the same. The full graph (no reduction) and the
// graph partial-order reduction keeps are pinned apart. After an intended change: vitest -u.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { programLevel } from '../../src/ir/program.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyProgram } from '../../src/verify.ts';
import { ROOT } from '../../scripts/regen-traces.ts';

describe('pinned state counts', () => {
  it('the gallery and the examples, at each level', async () => {
    const files = [
      ...readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.aref')).map((f) => `examples/${f}`),
      ...readdirSync(join(ROOT, 'examples/gallery')).filter((f) => f.endsWith('.aref')).map((f) => `examples/gallery/${f}`),
    ].sort();
    const counts: Record<string, string> = {};
    for (const f of files) {
      const program = parseProgramText(readFileSync(join(ROOT, f), 'utf8'), f);
      const levels = programLevel(program) === 'aref' ? (['aref', 'mbarrier'] as const) : (['mbarrier'] as const);
      for (const level of levels) {
        const r = verifyProgram(program, { level, reduction: false });
        const p = verifyProgram(program, { level });
        counts[`${f} ${level}`] = `${r.stats.states} states, ${r.stats.transitions} transitions, ${r.verdict}; reduced ${p.stats.states} states, ${p.stats.transitions} transitions`;
      }
    }
    await expect(`${JSON.stringify(counts, null, 2)}\n`).toMatchFileSnapshot('gallery-counts.json');
  });

  it('the pipeline family D 1..3 × P 0..2 × C 1..2 × K {2, 4}, both levels', async () => {
    const counts: Record<string, string> = {};
    for (const depth of [1, 2, 3]) for (const pending of [0, 1, 2]) for (const consumers of [1, 2]) for (const iterations of [2, 4]) {
      const program = pipelineProgram({ depth, pending, consumers, iterations, level: 'aref' });
      for (const level of ['aref', 'mbarrier'] as const) {
        const r = verifyProgram(program, { level, reduction: false });
        const p = verifyProgram(program, { level });
        counts[`D${depth} P${pending} C${consumers} K${iterations} ${level}`] = `${r.stats.states} states, ${r.stats.transitions} transitions, ${r.verdict}; reduced ${p.stats.states} states, ${p.stats.transitions} transitions`;
      }
    }
    await expect(`${JSON.stringify(counts, null, 2)}\n`).toMatchFileSnapshot('pipeline-counts.json');
  });
});
