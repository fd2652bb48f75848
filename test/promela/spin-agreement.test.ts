// The Promela export checked by SPIN agrees with arefcheck (issue 11.4): the same verdict and the
// same set of violation kinds on every gallery program and example (each level), the pipeline
// family D 1..4 × P 0..2 × C 1..2 × K {4, 8} at both levels, generated rings of every bug class and
// programs of every op family (seeded), and lifted PTX (CUDA, Triton and Gluon kernels with their
// mutants). SPIN runs each model exhaustively: spin -a, gcc, pan -E -c0 (src/promela/pan-output.ts).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpinRunner, spinTools } from '../../bench/spin.ts';
import { liftPtx } from '../../src/api.ts';
import { arbProgram } from '../../src/arbitraries.ts';
import { programLevel, type Level, type Program } from '../../src/ir/program.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { toPromela } from '../../src/promela/export.ts';
import type { PanReport } from '../../src/promela/pan-output.ts';
import { verifyProgram } from '../../src/verify.ts';
import { ROOT } from '../../scripts/regen-traces.ts';
import { arbRing, ringText } from '../oracle/rings.ts';
import { readPtx } from '../ptx/gluon-cases.ts';
import { CUDA_KERNELS, cudaPtx, TRITON } from '../ptx/paths.ts';

const tools = spinTools();
const missing = [tools.spin ? '' : 'spin', tools.gcc ? '' : 'gcc'].filter((x) => x !== '');

interface Case {
  readonly group: string;
  readonly name: string;
  readonly program: Program;
  readonly level: Level;
}

const atLevels = (group: string, name: string, program: Program): Case[] =>
  (programLevel(program) === 'aref' ? (['aref', 'mbarrier'] as const) : (['mbarrier'] as const)).map((level) => ({ group, name: `${name} ${level}`, program, level }));

const files = [
  ...readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.aref')).map((f) => `examples/${f}`),
  ...readdirSync(join(ROOT, 'examples/gallery')).filter((f) => f.endsWith('.aref')).map((f) => `examples/gallery/${f}`),
  'test/fixtures/programs/por-future-copy.aref',
  'test/fixtures/programs/fence-two-slots.aref',
  'test/fixtures/programs/warpgroup-shared-mma.aref',
  'test/fixtures/programs/warpgroup-missing-mma.aref',
];
const cases: Case[] = files.flatMap((f) => atLevels('gallery', f, parseProgramText(readFileSync(join(ROOT, f), 'utf8'), f)));
{
  // the same warpgroup with each role retiring alone (a race)
  const { warpgroups: _, ...alone } = parseProgramText(readFileSync(join(ROOT, 'test/fixtures/programs/warpgroup-shared-mma.aref'), 'utf8'), 'warpgroup-shared-mma.aref');
  cases.push({ group: 'gallery', name: 'warpgroup-shared-mma.aref without its warpgroup line', program: alone, level: 'mbarrier' });
}
for (const level of ['aref', 'mbarrier'] as const)
  for (let depth = 1; depth <= 4; depth++)
    for (let pending = 0; pending <= 2; pending++)
      for (let consumers = 1; consumers <= 2; consumers++)
        for (const iterations of [4, 8])
          cases.push({ group: 'family', name: `D${depth} P${pending} C${consumers} K${iterations} ${level}`, program: pipelineProgram({ depth, pending, consumers, iterations, level: 'aref' }), level });
fc.sample(arbRing, { seed: 11, numRuns: 40 }).forEach((r, i) => cases.push({ group: 'generated', name: `ring ${i} ${r.mutation}`, program: parseProgramText(ringText(r), `ring${i}.aref`), level: 'mbarrier' }));
fc.sample(arbProgram(), { seed: 12, numRuns: 40 }).forEach((p, i) => cases.push({ group: 'generated', name: `program ${i}`, program: p, level: programLevel(p) }));
const lifted = (name: string, ptx: string): Case => {
  const [kernel] = liftPtx(ptx, { file: `${name}.ptx` });
  if (!kernel) throw new Error(`${name}: no kernel`);
  return { group: 'ptx', name, program: kernel.program, level: 'mbarrier' };
};
for (const k of CUDA_KERNELS) cases.push(lifted(k, readFileSync(cudaPtx(k), 'utf8')));
cases.push(lifted('triton-3.6-gemm-tma-3stage', readFileSync(TRITON, 'utf8')));
for (const k of ['gemm_ws_m0', 'gemm_ws_m1', 'gemm_ws_m2', 'gemm_ws_m3', 'gemm_ws_m4', 'gemm_ws_m7', 'elementwise_ws_m7', 'two_consumer_ws_m2']) cases.push(lifted(k, readPtx(k)));

const arefcheckKinds = (c: Case): { verdict: string; kinds: string } => {
  const r = verifyProgram(c.program, { level: c.level });
  return { verdict: r.verdict, kinds: [...new Set(r.violations.map((v) => v.kind))].sort().join(',') };
};

describe.skipIf(missing.length > 0)('the Promela export under SPIN agrees with arefcheck (needs spin) (needs gcc)', () => {
  const spin = new Map<string, PanReport>();
  const multicore = new Map<string, PanReport>();
  // the --multicore export (scratch in the state vector, zeroed by every step) under a plain pan
  const multicoreCases = cases.filter((c) => c.group === 'gallery').slice(0, 12);
  let workDir = '';

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'arefcheck-promela-'));
    const runner = new SpinRunner(workDir, 2);
    await Promise.all(
      cases.map(async (c, i) => {
        const model = toPromela(c.program, { level: c.level });
        spin.set(c.name, await runner.verifyExported(`case${i}`, model.text, model.layout.vectorBytes));
      }),
    );
    await Promise.all(
      multicoreCases.map(async (c, i) => {
        const model = toPromela(c.program, { level: c.level, multicore: true });
        multicore.set(c.name, await runner.verifyExported(`multicore${i}`, model.text, model.layout.vectorBytes));
      }),
    );
  }, 900_000);

  afterAll(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  for (const group of ['gallery', 'family', 'generated', 'ptx']) {
    const mine = cases.filter((c) => c.group === group);
    it(`${group}: ${mine.length} programs, the same verdict and violation kinds`, () => {
      const differ: string[] = [];
      for (const c of mine) {
        const s = spin.get(c.name);
        expect(s, c.name).toBeDefined();
        if (!s) continue;
        expect(s.limit, `${c.name}: pan did not finish`).toBeUndefined();
        const a = arefcheckKinds(c);
        if (a.verdict !== s.verdict || a.kinds !== s.kinds.join(',')) differ.push(`${c.name}: arefcheck ${a.verdict} [${a.kinds}], SPIN ${s.verdict} [${s.kinds.join(',')}]`);
      }
      expect(differ).toEqual([]);
    }, 300_000);
  }

  it('the --multicore export: the same kinds and the same number of states as the hidden-scratch one', () => {
    for (const c of multicoreCases) {
      const a = spin.get(c.name);
      const b = multicore.get(c.name);
      expect(b?.kinds, c.name).toEqual(a?.kinds);
      expect(b?.states, c.name).toBe(a?.states);
    }
  });

  it('the comparison is not empty: every kind occurs, and SPIN explored real state spaces', () => {
    const kinds = new Set([...spin.values()].flatMap((s) => s.kinds));
    expect([...kinds].sort()).toEqual(['deadlock', 'fifo', 'protocol', 'race', 'refinement']);
    expect([...spin.values()].filter((s) => s.verdict === 'verified').length).toBeGreaterThan(50);
    for (const [name, s] of spin) expect(s.states, name).toBeGreaterThan(3);
  });
});
