// Issue 8's ground truth: Gluon warp-specialized kernels, their one-line mutants and Triton's own
// TMA GEMMs, run on an H100 (python/examples/gluon_suite.py; traces/gpu/gluon-h100/results.csv says
// what each did: right, corrupt, hang, crash). Here arefcheck checks the PTX each run compiled from:
// every correct kernel verifies and every mutant is a violation of the kind its bug class predicts.
// CI checks the cheaper part of the table; `node --import tsx scripts/gluon-table.ts` checks all of
// it and prints the table of docs/gpu.md, which the last test holds to these verdicts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyPtx } from '../../src/api.ts';
import { ttgirBoxes } from '../../src/ptx/lift/ttgir.ts';
import { MUTANTS, ROOT, gpuCases, hasPtx, readPtx, readTtgir } from './gluon-cases.ts';

const cases = new Map(gpuCases().map((c) => [c.name, c]));

describe('the GPU run', () => {
  it('recorded every case, and kept the PTX of every kernel Triton built', () => {
    expect(cases.size).toBe(67);
    for (const c of cases.values()) {
      expect(['right', 'corrupt', 'hang', 'crash', 'error']).toContain(c.hardware);
      expect(hasPtx(c.name), c.name).toBe(c.hardware !== 'error');
    }
    // what the hardware showed: every correct kernel right; the hangs and crashes where the bug classes put them
    for (const c of cases.values()) if (c.mutant === 0 && c.hardware !== 'error') expect(c.hardware, c.name).toBe('right');
    expect([...cases.values()].filter((c) => c.hardware === 'error').map((c) => c.name)).toEqual(
      ['tma_128x256x64_w4_s5', 'tma_128x256x64_w8_s5', 'tma_256x128x64_w4_s5', 'tma_256x128x64_w8_s5'],
    );
    // races the hardware hid on all three runs: only the checker shows them
    for (const name of ['gemm_ws_m5', 'elementwise_ws_m8', 'elementwise_ws_m9', 'persistent_gemm_ws_m9']) expect(cases.get(name)?.hardware).toBe('right');
  });
});

describe('correct kernels verify (no false alarm)', () => {
  it.each([
    'gemm_ws_m0', 'elementwise_ws_m0',
    'tma_128x128x64_w4_s2', 'tma_128x128x64_w4_s5', 'tma_128x128x64_w8_s2', 'tma_128x256x64_w8_s3', 'tma_256x128x64_w4_s4', 'tma_64x64x64_w8_s2',
    'tma_persistent_128x128x64_w8_s4',
  ])('%s', (name) => {
    const report = verifyPtx(readPtx(name), { file: `${name}.ptx`, maxMs: 120_000 });
    expect(report.verdict, report.violations[0]?.message ?? report.limit?.message).toBe('verified');
    expect(report.scope).toMatch(/launch assignments \(a bounded sweep/);
  }, 240_000);

  it('tma_128x256x64_w8_s3 also from PTX + TTGIR: the compiler\'s boxes agree with expect_tx', () => {
    const name = 'tma_128x256x64_w8_s3';
    const report = verifyPtx(readPtx(name), { file: `${name}.ptx`, tmaBoxes: ttgirBoxes(readTtgir(name) ?? '', `${name}.ttgir`), maxMs: 60_000 });
    expect(report.verdict).toBe('verified');
    expect((report.notes ?? []).join('\n')).toMatch(/as given/);
  }, 120_000);
});

describe('mutants are violations of the predicted kind, with a trace into the PTX', () => {
  it.each([
    'gemm_ws_m1', 'gemm_ws_m2', 'gemm_ws_m3', 'gemm_ws_m4', 'gemm_ws_m5', 'gemm_ws_m6', 'gemm_ws_m7',
    'elementwise_ws_m8', 'elementwise_ws_m9', 'persistent_gemm_ws_m9', 'two_consumer_ws_m1',
  ])('%s', (name) => {
    const c = cases.get(name)!;
    const report = verifyPtx(readPtx(name), { file: `${name}.ptx`, maxMs: 120_000, stopAtFirst: true });
    expect(report.verdict, `${name}: ${MUTANTS[c.mutant]?.what}`).toBe('violation');
    const v = report.violations[0]!;
    expect(MUTANTS[c.mutant]?.kinds).toContain(v.kind);
    expect(v.trace.some((t) => t.loc?.file === `${name}.ptx` && (t.loc.line ?? 0) > 0)).toBe(true);
  }, 240_000);

  it('the two fences Gluon asks for are each needed: before the TMA store, and between smem.load and the refill', () => {
    const store = verifyPtx(readPtx('elementwise_ws_m7'), { file: 'm7.ptx', maxMs: 60_000, stopAtFirst: true });
    expect(store.violations[0]?.message).toMatch(/by the async proxy after a generic write with no fence\.proxy\.async/);
    const load = verifyPtx(readPtx('elementwise_ws_m8'), { file: 'm8.ptx', maxMs: 60_000, stopAtFirst: true });
    expect(load.violations[0]?.message).toMatch(/tma\.load into it .* after a generic read by .* with no fence\.proxy\.async .*cross-proxy write-after-read/);
  }, 120_000);
});

describe('docs/gpu.md', () => {
  it('shows every case of the run with the verdict arefcheck gives, each as predicted', () => {
    const doc = readFileSync(join(ROOT, 'docs/gpu.md'), 'utf8');
    for (const c of cases.values()) {
      const row = doc.split('\n').find((l) => l.startsWith(`| ${c.name} |`));
      expect(row, c.name).toBeDefined();
      expect(row).toContain(`| ${c.hardware} |`);
      // the one gap, named in docs/gpu.md: 128×128 with 8 warps and 5 stages is inconclusive in 120 s
      const ok = c.mutant !== 0 ? /\| violation \|/ : c.name === 'tma_128x128x64_w8_s5' ? /\| inconclusive \|/ : /\| verified \|/;
      if (c.hardware !== 'error') expect(row, c.name).toMatch(ok);
    }
  });
});
