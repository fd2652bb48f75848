// One-line mutants of real kernels (issue 13): CUTLASS (three schedules), the CuTe tutorial (both
// kernels), DeepGEMM and fast.cu M2, M4–M7, read from ../shared/corpus (nvcc output, never copied
// here). Each mutant — an init count, an expect_tx byte count, a parity, a missing
// wgmma.wait_group, a missing arrive, an arrive to the wrong CTA — must be a violation of the right kind whose trace points
// at PTX lines of that kernel; the unmutated kernels at the same launch values must not show it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyPtx } from '../../src/api.ts';
import { root } from '../cli/spawn.ts';
import { applyMutant, kernelName, kernelRange, MUTANTS, type Mutant } from './real-mutants.ts';

const CORPUS = join(root, '..', 'shared', 'corpus');
const here = existsSync(CORPUS);

function check(m: Mutant, text: string) {
  return verifyPtx(text, {
    file: m.file,
    kernel: kernelName(text, m.kernel),
    maxMs: 60_000,
    stopAtFirst: true,
    ...(m.params ? { params: m.params, noSweep: true } : {}),
  });
}

describe.skipIf(!here)('one-line mutants of real kernels (needs ../shared/corpus)', () => {
  it('cover at least 10 kernels and every mutation class', () => {
    expect(new Set(MUTANTS.map((m) => `${m.file}:${m.kernel}`)).size).toBeGreaterThanOrEqual(10);
    const classes = ['init count', 'expect_tx', 'parity', 'wgmma.wait_group', 'release removed', 'wrong CTA'];
    for (const c of classes) expect(MUTANTS.some((m) => m.what.includes(c)), c).toBe(true);
  });

  it.each(MUTANTS)('$what', (m) => {
    const text = readFileSync(join(CORPUS, m.file), 'utf8');
    const { text: mutated, line } = applyMutant(text, m);
    const report = check(m, mutated);
    expect(report.verdict, report.limit?.message).toBe('violation');
    const v = report.violations[0]!;
    expect(m.kinds, `${v.kind}: ${v.message}`).toContain(v.kind);
    // the trace points into this kernel's PTX
    const [start, end] = kernelRange(text.split('\n'), m.kernel);
    const lines = [v.loc?.line, ...v.trace.map((t) => t.loc?.line)].filter((x): x is number => x !== undefined);
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l > start && l <= end, `line ${l} outside the kernel (${start + 1}..${end})`).toBe(true);
    expect(line > start && line <= end).toBe(true);
  }, 120_000);

  it.each(MUTANTS.filter((m) => !m.file.startsWith('deepgemm') && !m.file.startsWith('cute')))('unmutated, $what shows no $kinds', (m) => {
    const text = readFileSync(join(CORPUS, m.file), 'utf8');
    const report = check(m, text);
    expect(report.violations.map((v) => v.kind).filter((k) => m.kinds.includes(k))).toEqual([]);
  }, 120_000);
});
