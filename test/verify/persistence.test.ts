// The reduction's premise checked directly (persistence.ts): on generated programs, rings of every
// bug class and a lifted Gluon kernel, each ample subset met on the reduced graph is persistent up
// to a bounded lookahead. Comparing verdicts (reduction.test.ts) sees a wrong subset only when it
// changes an outcome; this sees the wrong dependence itself. It bites: a subset that ignores
// dependence is caught, and so was the footprint bug of por-future-copy.aref before its fix.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { liftPtx } from '../../src/api.ts';
import { arbProgram } from '../../src/arbitraries.ts';
import { programLevel } from '../../src/ir/program.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { lowerProgram } from '../../src/lower.ts';
import { programModel } from '../../src/verify/model.ts';
import { ROOT } from '../../scripts/regen-traces.ts';
import { arbRing, ringText } from '../oracle/rings.ts';
import { readPtx } from '../ptx/gluon-cases.ts';
import { firstBreach, subsetsChecked } from './persistence.ts';

const fixture = (file: string) => parseProgramText(readFileSync(join(ROOT, file), 'utf8'), file);

describe('every ample subset is persistent (bounded lookahead)', () => {
  it('on 200 rings of every bug class and 300 generated programs at their own and the lowered level (seeded)', () => {
    const breaches: string[] = [];
    let subsets = 0;
    for (const r of fc.sample(arbRing, { seed: 41, numRuns: 200 })) {
      const b = firstBreach(programModel(parseProgramText(ringText(r), 'ring.aref')), 400);
      subsets += subsetsChecked;
      if (b) breaches.push(`ring ${JSON.stringify(r)}: ${b}`);
    }
    let lowered = 0;
    for (const p of fc.sample(arbProgram({ maxNesting: 2, maxStatements: 3, maxRoles: 3 }), { seed: 42, numRuns: 300 })) {
      const b = firstBreach(programModel(p), 400);
      subsets += subsetsChecked;
      if (b) breaches.push(`program: ${b}`);
      if (programLevel(p) !== 'aref') continue;
      let low;
      try {
        low = lowerProgram(p);
      } catch {
        continue; // not in the lowering's fragment
      }
      lowered++;
      const bl = firstBreach(programModel(low), 400);
      subsets += subsetsChecked;
      if (bl) breaches.push(`lowered program: ${bl}`);
    }
    expect(breaches).toEqual([]);
    expect(subsets, 'ample subsets checked').toBeGreaterThan(2000);
    expect(lowered).toBeGreaterThan(20);
  }, 300_000);

  it('on the regression fixture and the lifted Gluon two-consumer kernel (mutant 2)', () => {
    expect(firstBreach(programModel(fixture('test/fixtures/programs/por-future-copy.aref')))).toBeUndefined();
    const [kernel] = liftPtx(readPtx('two_consumer_ws_m2'), { file: 'two_consumer_ws_m2.ptx' });
    if (!kernel) throw new Error('no kernel lifted');
    expect(firstBreach(programModel(kernel.program), 3000)).toBeUndefined();
    expect(subsetsChecked).toBeGreaterThan(100);
  }, 120_000);

  it('bites: a subset that ignores dependence (the first enabled action) is not persistent', () => {
    const found = readdirSync(join(ROOT, 'examples/gallery'))
      .filter((f) => f.endsWith('.aref'))
      .map((f) => {
        const model = programModel(fixture(`examples/gallery/${f}`));
        return firstBreach({ ...model, ample: (_s: unknown, actions: readonly unknown[]) => (actions.length > 1 ? [0] : undefined) });
      })
      .filter((b) => b !== undefined);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatch(/do not commute|disables|violates/);
  });
});
