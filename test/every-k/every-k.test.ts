// `--param K=any`: a proof for every K where the abstraction is exact, the smallest K for a
// violation (with a trace that replays there), a bounded check reported as bounded elsewhere.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAref } from '../../src/lang/index.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import type { Program } from '../../src/ir/program.ts';
import { verifyEveryK } from '../../src/every-k/verify.ts';
import { verifyProgram, type Report } from '../../src/verify.ts';
import { lowerProgram } from '../../src/lower.ts';
import { pipelineProgram } from '../../src/pipeline.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const load = (path: string): Program => parseAref(readFileSync(join(ROOT, path), 'utf8'), path);
const kinds = (r: Report): string[] => [...new Set(r.violations.map((v) => v.kind))].sort();
const at = (p: Program, k: number): Report => verifyProgram(p, { params: new Map([['K', k]]) });

describe('K=any on the examples', () => {
  it('double-buffer.aref and double-buffer-mbar.aref are proved for every K', () => {
    for (const file of ['examples/double-buffer.aref', 'examples/double-buffer-mbar.aref']) {
      const r = verifyEveryK(load(file), { param: 'K' });
      expect(r.verdict, file).toBe('verified');
      expect(r.scope).toBe('for every K ≥ 1');
      expect(r.notes?.[0]).toMatch(/^proof for every K ≥ 1: the counters are exact up to a shift by the period \d+/);
    }
  });

  it('depth-equals-pending.aref deadlocks, first at K = 2 (K = 1 is fine), with a trace at K = 2', () => {
    const p = load('examples/depth-equals-pending.aref');
    const r = verifyEveryK(p, { param: 'K' });
    expect(r.verdict).toBe('violation');
    expect(kinds(r)).toEqual(['deadlock']);
    const v = r.violations[0]!;
    expect(v.params).toEqual({ K: 2 });
    expect(v.message).toMatch(/^with K = 2: /);
    expect(at(p, 1).verdict).toBe('verified');
    // the trace is the concrete shortest one at K = 2
    expect(v.trace.map((t) => t.action)).toEqual(at(p, 2).violations[0]!.trace.map((t) => t.action));
  });

  it('K=any>=N starts at N', () => {
    const r = verifyEveryK(load('examples/depth-equals-pending.aref'), { param: 'K', min: 5 });
    expect(r.violations[0]?.params).toEqual({ K: 5 });
    expect(r.scope).toBe('for every K ≥ 5');
  });
});

describe('a bug seeded in iteration 39 only', () => {
  const p = load('test/fixtures/every-k/late-parity.aref');
  it('is found, reported at K = 40, the smallest K that has it', () => {
    const r = verifyEveryK(p, { param: 'K' });
    expect(r.verdict).toBe('violation');
    expect(kinds(r)).toEqual(['fifo', 'protocol', 'race']);
    for (const v of r.violations) expect(v.params, v.kind).toEqual({ K: 40 });
  });

  it('is not there at K = 39 nor at the default K = 8', () => {
    expect(at(p, 39).verdict).toBe('verified');
    expect(at(p, 8).verdict).toBe('verified');
  });
});

describe('outside the exact fragment: bounded, never a proof', () => {
  it('a correct program with a product of counters in an index: inconclusive, bounded to K = 1..32, with the line', () => {
    const r = verifyEveryK(load('test/fixtures/every-k/squared-index.aref'), { param: 'K' });
    expect(r.verdict).toBe('inconclusive');
    expect(r.limit?.reason).toBe('bound');
    expect(r.limit?.message).toMatch(/^verified for K = 1\.\.32 only, not for every K: line 9: a product/);
    expect(r.scope).toBe('for K = 1..32 (bounded)');
  });

  it('a wrong program outside the fragment: the violation at its smallest K within the bound, marked bounded', () => {
    const r = verifyEveryK(load('test/fixtures/every-k/squared-parity.aref'), { param: 'K' });
    expect(r.verdict).toBe('violation');
    expect(r.scope).toMatch(/\(bounded: no proof for every K\)$/);
    const first = Math.min(...r.violations.map((v) => v.params?.['K'] ?? Infinity));
    const p = load('test/fixtures/every-k/squared-parity.aref');
    for (let k = 1; k < first; k++) expect(at(p, k).verdict, `K = ${k}`).toBe('verified');
  });

  it('a violation found where the counters drift apart: reported, with a note that other kinds may lie past the horizon', () => {
    const racy = parseProgramText(`${readFileSync(join(ROOT, 'test/fixtures/every-k/drift.aref'), 'utf8')}
role c warps 1:
  for j in 0..K:
    write X[0], j
`, 'drift-race.aref');
    const r = verifyEveryK(racy, { param: 'K' });
    expect(r.verdict).toBe('violation');
    expect(r.violations.map((v) => v.kind)).toEqual(['race']);
    expect(r.notes?.join('\n')).toMatch(/stopped at its horizon .* a kind that needs a larger K may be missing/);
  });

  it('roles that drift apart without bound: no proof (the horizon), a bounded check instead', () => {
    const r = verifyEveryK(load('test/fixtures/every-k/drift.aref'), { param: 'K' });
    expect(r.verdict).toBe('inconclusive');
    expect(r.limit?.message).toMatch(/drift apart without bound/);
  });

  it('a limit gives inconclusive, not verified', () => {
    const r = verifyEveryK(load('examples/double-buffer-mbar.aref'), { param: 'K', maxStates: 50 });
    expect(r.verdict).toBe('inconclusive');
    expect(r.limit?.reason).toBe('states');
  });
});

describe('the gallery: K=any against K = 64', () => {
  const dir = join(ROOT, 'examples', 'gallery');
  const files = readdirSync(dir).filter((f) => f.endsWith('.aref'));
  // m7's twin releases A[(K - 2) % 3] after its loop: it is meant for K >= 2 (at K = 1 the index is
  // -1, which K=any reports as it should); from 2 on it is correct
  const FROM: Readonly<Record<string, number>> = { 'm7-depth-too-small-ok.aref': 2 };

  for (const f of files) {
    const p = parseAref(readFileSync(join(dir, f), 'utf8'), f);
    if (!p.params.some((x) => x.name === 'K')) continue;
    it(`${f}: the same verdict; every kind at K = 64 found, each at its smallest K`, () => {
      const min = FROM[f] ?? 1;
      const any = verifyEveryK(p, { param: 'K', min });
      const fixed = at(p, 64);
      expect(any.verdict).toBe(fixed.verdict);
      for (const kind of kinds(fixed)) expect(kinds(any)).toContain(kind);
      for (const v of any.violations) {
        const k = v.params?.['K'] ?? -1;
        expect(kinds(at(p, k)), `${v.kind} at K = ${k}`).toContain(v.kind);
        for (let smaller = min; smaller < k; smaller++) expect(kinds(at(p, smaller)), `${v.kind} at K = ${smaller}`).not.toContain(v.kind);
      }
    });
  }
});

describe('reduction in the every-K graph', () => {
  it('gives the same verdicts and kinds as full exploration (gallery and examples)', () => {
    const dir = join(ROOT, 'examples', 'gallery');
    const files = [...readdirSync(dir).filter((f) => f.endsWith('.aref')).map((f) => join('examples', 'gallery', f)), 'examples/double-buffer-mbar.aref', 'test/fixtures/every-k/late-parity.aref'];
    let reduced = 0;
    for (const f of files) {
      const p = load(f);
      if (!p.params.some((x) => x.name === 'K')) continue;
      const on = verifyEveryK(p, { param: 'K', maxStates: 400_000 });
      const off = verifyEveryK(p, { param: 'K', reduction: false, maxStates: 400_000 });
      if (on.verdict === 'inconclusive' || off.verdict === 'inconclusive') continue;
      expect(on.verdict, f).toBe(off.verdict);
      expect(kinds(on), f).toEqual(kinds(off));
      expect(on.violations.map((v) => v.params?.['K']), f).toEqual(off.violations.map((v) => v.params?.['K']));
      if (on.stats.states < off.stats.states) reduced++;
    }
    expect(reduced).toBeGreaterThan(5);
  });
});

describe('a persistent kernel with its tile count open (T=any, K fixed)', () => {
  const cases = [
    { d: 2, p: 1, k: 4, verdict: 'verified' },
    { d: 3, p: 2, k: 2, verdict: 'verified' },
    { d: 2, p: 2, k: 4, verdict: 'violation' }, // depth = pending: deadlocks once K > D
  ] as const;
  for (const c of cases) {
    for (const level of ['aref', 'mbarrier'] as const) {
      it(`D${c.d} P${c.p} K${c.k} at the ${level} level: ${c.verdict}, as for T = 1..6`, () => {
        const aref = pipelineProgram({ depth: c.d, pending: c.p, consumers: 1, iterations: c.k, tiles: 3, level: 'aref' });
        const program = level === 'aref' ? aref : lowerProgram(aref);
        const any = verifyEveryK(program, { param: 'T' });
        expect(any.verdict).toBe(c.verdict);
        // stage t·K + k reaches T·K − 1: past T = 2^31 / K it would not fit in 32 bits
        expect(any.scope).toBe(`for every T from 1 to ${Math.floor(2 ** 31 / c.k).toLocaleString('en-US')}`);
        for (let t = 1; t <= 6; t++) expect(verifyProgram(program, { params: new Map([['T', t]]) }).verdict, `T = ${t}`).toBe(c.verdict);
        if (c.verdict === 'violation') expect(any.violations.map((v) => v.params?.['T'])).toEqual([1]);
      });
    }
  }
});
