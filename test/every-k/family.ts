// The pipeline family grid for the every-K tests: K=any against every K in 1..32, per program.
import { expect, it } from 'vitest';
import { verifyEveryK } from '../../src/every-k/verify.ts';
import type { Level } from '../../src/ir/program.ts';
import { lowerProgram } from '../../src/lower.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyProgram } from '../../src/verify.ts';

export const GRID_K = 32;

/** 32 concrete checks of a D = 6, C = 2 lowering take about a minute on a loaded 2-core machine. */
const GRID_TIMEOUT_MS = 300_000;

/** One test per D in `depths` × P 0..3 × C 1..2 at `level` (the aref program, or its lowering checked as is). */
export function familyGrid(level: Level, depths: readonly number[]): void {
  for (const d of depths) {
    for (let p = 0; p <= 3; p++) {
      for (let c = 1; c <= 2; c++) {
        it(`D${d} P${p} C${c}: K=any agrees with every K in 1..${GRID_K}`, () => {
          const aref = pipelineProgram({ depth: d, pending: p, consumers: c, iterations: 8, level: 'aref' });
          const program = level === 'aref' ? aref : lowerProgram(aref);
          const any = verifyEveryK(program, { param: 'K' });
          expect(any.verdict).not.toBe('inconclusive');
          // the smallest K of each kind among 1..32, concretely
          const first = new Map<string, number>();
          for (let k = 1; k <= GRID_K; k++) {
            const r = verifyProgram(program, { params: new Map([['K', k]]) });
            expect(r.verdict, `K = ${k}`).not.toBe('inconclusive');
            for (const v of r.violations) if (!first.has(v.kind)) first.set(v.kind, k);
          }
          const found = new Map(any.violations.map((v) => [v.kind, v.params?.['K']]));
          for (const [kind, k] of first) expect(found.get(kind), kind).toBe(k);
          // a kind K=any finds beyond 32 is allowed (it covers every K), but none below 33 may be missed or extra
          for (const [kind, k] of found) if ((k ?? 0) <= GRID_K) expect(first.get(kind), kind).toBe(k);
          expect(any.verdict).toBe(first.size > 0 || found.size > 0 ? 'violation' : 'verified');
        }, GRID_TIMEOUT_MS);
      }
    }
  }
}
