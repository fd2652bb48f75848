// Synchronization Triton 3.6 writes itself, run on an H200 (python/examples/triton_ws_suite.py;
// traces/gpu/triton-ws/): the software-pipelined attention forward (full and causal) and Hopper
// automatic warp specialization (`tl.range(..., warp_specialize=True)`) of a GEMM, a persistent
// GEMM and the attention forward. None of these kernels was tuned on. Every warp-specialized kernel
// initialises barriers nobody uses, again and again, on one address (a double init, UB by PTX
// §9.7.13.15.9); two of them computed NaN, and with those inits dropped (triton_ws_patch.py) every
// one computed right and every one verifies.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyPtx } from '../../src/api.ts';
import { SET_ASIDE } from '../../src/verify/set-aside.ts';
import { MUTANT_CASES, mutantLines } from '../../scripts/triton-ws-mutants.ts';
import { ROOT, deadInitLines, dropLines, patchRuns, readPtx, tritonCases } from './triton-ws-cases.ts';

const cases = tritonCases();
const hardware = new Map(cases.map((c) => [c.name, c.hardware]));
const patched = patchRuns();

describe('the GPU run', () => {
  it('recorded every case; warp specialization happened where it was asked for, and two of those kernels computed NaN', () => {
    expect(cases.length).toBe(19);
    for (const c of cases) expect(c.specialized, c.name).toBe(c.name.includes('ws_'));
    expect(cases.filter((c) => c.hardware !== 'right').map((c) => c.name)).toEqual(['attnws_full_d64_128x64_w4_s3', 'attnws_full_d128_128x64_w4_s3']);
  });

  it('dropping the dead inits made the NaN go away, and broke no kernel that was right', () => {
    for (const c of cases.filter((x) => x.specialized)) {
      const runs = patched.get(c.name);
      expect(runs?.get('control')?.every((r) => r === 'right'), c.name).toBe(c.hardware === 'right');
      expect(runs?.get('drop'), c.name).toEqual(['right', 'right', 'right']);
    }
  });
});

describe('pipelined attention verifies (no false alarm)', () => {
  it.each(['attn_causal_d64_128x64_w4_s3', 'attn_causal_d128_64x64_w4_s4', 'attn_full_d128_128x64_w8_s3'])('%s', (name) => {
    expect(hardware.get(name)).toBe('right');
    const report = verifyPtx(readPtx(name), { file: `${name}.ptx`, maxMs: 60_000 });
    expect(report.verdict, report.violations[0]?.message ?? report.limit?.message).toBe('verified');
    expect((report.notes ?? []).some((n) => n.startsWith('barriers only ever initialised'))).toBe(false);
  }, 120_000);
});

describe('Hopper warp specialization initialises dead barriers on one address again and again', () => {
  it.each(['mmws_128x128x64_s2', 'mmws_persistent_128x128x64_s3', 'attnws_full_d64_128x64_w4_s3'])('%s: found', (name) => {
    const ptx = readPtx(name);
    const report = verifyPtx(ptx, { file: `${name}.ptx`, maxMs: 60_000, stopAtFirst: true });
    expect(report.verdict).toBe('violation');
    const v = report.violations[0]!;
    expect(v.kind).toBe('protocol');
    expect(v.message).toMatch(/init of smem_0\[[0-2]\], which is already initialised \(double init\)/);
    // the PTX says so too: the init the trace ends at names the register of an init before it,
    // with no mbarrier.inval of it in between
    const lines = ptx.split('\n');
    const last = v.trace.at(-1)?.loc?.line ?? 0;
    const reg = /mbarrier\.init\.shared::cta\.b64 \[(%r\d+)\]/.exec(lines[last - 1] ?? '')?.[1];
    expect(reg, `line ${last}: ${lines[last - 1]}`).toBeDefined();
    const earlier = lines.slice(0, last - 1).findIndex((l) => l.includes(`mbarrier.init.shared::cta.b64 [${reg}]`));
    expect(earlier).toBeGreaterThan(0);
    expect(lines.slice(earlier, last - 1).some((l) => l.includes('mbarrier.inval') && l.includes(`[${reg}]`))).toBe(false);
    expect(deadInitLines(ptx)).toContain(last);
    // and the report names those barriers
    expect((report.notes ?? []).find((n) => n.startsWith('barriers only ever initialised'))).toMatch(/: smem_0 \(\d+ inits, lines /);
  }, 120_000);

  it.each(['attnws_full_d64_128x64_w4_s3', 'attnws_full_d64_128x64_w4_s2', 'mmws_64x128x64_s3'])('%s with its dead inits dropped: verified, as the GPU computed', (name) => {
    const ptx = readPtx(name);
    const report = verifyPtx(dropLines(ptx, deadInitLines(ptx)), { file: `${name}.ptx`, maxMs: 60_000 });
    expect(report.verdict, report.violations[0]?.message ?? report.limit?.message).toBe('verified');
    // every copy's box comes from the descriptor the kernel builds (tensormap.replace), none inferred
    const boxes = (report.notes ?? []).filter((n) => n.startsWith('TMA box'));
    expect(boxes.length).toBeGreaterThan(0);
    for (const n of boxes) expect(n).toMatch(/from the descriptor the kernel builds/);
  }, 120_000);
});

describe('verify looks past the dead inits to the rest of the synchronization', () => {
  it('mmws_128x128x64_s2: the double init, and the ring after it verified', () => {
    const report = verifyPtx(readPtx('mmws_128x128x64_s2'), { file: 'mmws_128x128x64_s2.ptx', maxMs: 60_000 });
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol']);
    expect((report.notes ?? []).find((n) => n.startsWith('with the '))).toMatch(/^with the double inits set aside — the inits of barriers nothing uses \(lines [\d, …]+\) — the rest of the synchronization: verified; [\d,]+ states$/);
  }, 120_000);

  it('mmws_128x128x64_s2 without a consumer release: the deadlock the double init hid', () => {
    const ptx = readPtx('mmws_128x128x64_s2');
    // the first consumer warpgroup's first release of a stage (mbarrier.arrive by 128 threads)
    const [release] = mutantLines(ptx);
    expect(release?.mutant).toBe('no-release');
    const mutant = dropLines(ptx, [release!.line]);
    const plain = verifyPtx(mutant, { file: 'mutant.ptx', maxMs: 60_000, stopAtFirst: true });
    expect(plain.violations[0]?.message).toMatch(/double init/);
    const report = verifyPtx(mutant, { file: 'mutant.ptx', maxMs: 60_000 });
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol', 'deadlock']);
    expect(report.violations[1]!.message.startsWith(SET_ASIDE)).toBe(true);
    expect(report.notes ?? []).toContainEqual(expect.stringMatching(/the rest of the synchronization: deadlock \(below, marked\)/));
  }, 120_000);
});

describe('with a launch value left open (=any)', () => {
  it('the scan goes on past the double init while the rest verifies', () => {
    const report = verifyPtx(readPtx('mmws_128x128x64_s2'), { file: 'mmws.ptx', maxMs: 120_000, params: new Map([['matmul_ws_param_5', 'any']]) });
    expect(report.verdict).toBe('violation');
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol']);
    expect(report.notes?.[0]).toMatch(/^matmul_ws_param_5 = 1 is the smallest value checked with the double init; past it the rest verified at every value checked, matmul_ws_param_5 ∈ \{1\.\.8, 12, 16, .*\}$/);
  }, 240_000);

  it('and finds the smallest value where the rest fails: a mutant without a consumer release', () => {
    const ptx = readPtx('mmws_128x128x64_s2');
    const [release] = mutantLines(ptx);
    const report = verifyPtx(dropLines(ptx, [release!.line]), { file: 'mutant.ptx', maxMs: 120_000, params: new Map([['matmul_ws_param_5', 'any']]) });
    expect(report.violations.map((v) => v.kind)).toEqual(['protocol', 'deadlock']);
    const at = /^matmul_ws_param_5 = (\d+) is the smallest value checked that has the violation \(below it, 1\.\.8, .* had the double init only, the rest verified\)$/.exec(report.notes?.[0] ?? '');
    expect(at, report.notes?.[0]).not.toBeNull();
    expect(report.violations[1]!.message).toContain(`with matmul_ws_param_5 = ${at![1]}: ${SET_ASIDE}`);
  }, 240_000);
});

describe('mutants only the check past the double inits sees, run on the H200 (traces/gpu/triton-ws-mutants/)', () => {
  // RESULT lines of python/examples/triton_ws_mutants.sh, in its order
  const ran = readFileSync(join(ROOT, 'traces/gpu/triton-ws-mutants/mutants.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('RESULT '))
    .map((l) => JSON.parse(l.slice(7)) as { case: string; runs: string[] });
  const mutants = MUTANT_CASES.flatMap((name) => mutantLines(readPtx(name)).map((m) => ({ name, ...m })));

  it('every mutant ran', () => {
    expect(ran.map((r) => r.case)).toEqual(mutants.map((m) => m.name));
  });

  it.each(mutants.map((m, i) => [`${m.name} ${m.mutant}`, i] as const))('%s: deadlock past the double inits exactly where the GPU hung', (_, i) => {
    const m = mutants[i]!;
    const report = verifyPtx(dropLines(readPtx(m.name), [m.line]), { file: `${m.name}.ptx`, maxMs: 60_000 });
    // stopping at the first violation, every one is the double init only
    expect(report.violations[0]?.message).toMatch(/double init/);
    const past = report.violations.filter((v) => v.message.startsWith(SET_ASIDE)).map((v) => v.kind);
    const hung = ran[i]!.runs.includes('hang');
    expect(past, `${m.name} ${m.mutant}: GPU ${ran[i]!.runs.join(', ')}`).toEqual(hung ? ['deadlock'] : []);
    if (!hung) expect(ran[i]!.runs).toEqual(['right', 'right', 'right']);
  }, 120_000);
});

describe('docs/gpu.md', () => {
  it('shows every case with what the hardware did and the verdict arefcheck gives', () => {
    const doc = readFileSync(join(ROOT, 'docs/gpu.md'), 'utf8');
    for (const c of cases) {
      const row = doc.split('\n').find((l) => l.startsWith(`| ${c.name} |`));
      expect(row, c.name).toBeDefined();
      expect(row).toContain(`| ${c.specialized ? 'yes' : 'no'} | ${c.hardware} | ${c.specialized ? 'violation' : 'verified'} |`);
      // the edited PTX: verified here, and right on the GPU
      if (c.specialized) expect(row).toMatch(/\| verified \| +\| [\d,]+ \| [\d.]+ \| right \|$/);
    }
  });
});
