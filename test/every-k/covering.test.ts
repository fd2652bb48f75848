// A large K verified through the proof for every K (src/every-k/covering.ts): the same verdict,
// kinds and counterexamples as exploring K itself, and the value explored whenever there is no proof.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COVER_FROM } from '../../src/every-k/covering.ts';
import { parseAref } from '../../src/lang/index.ts';
import type { Program } from '../../src/ir/program.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyProgram, type Report, type VerifyOptions } from '../../src/verify.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const load = (path: string): Program => parseAref(readFileSync(join(ROOT, path), 'utf8'), path);
const kinds = (r: Report): string[] => [...new Set(r.violations.map((v) => v.kind))].sort();
const byProof = (r: Report): boolean => r.notes?.some((n) => /is covered by a proof for every K ≥ 1/.test(n)) ?? false;
const both = (p: Program, options: VerifyOptions = {}): { route: Report; explored: Report } => ({
  route: verifyProgram(p, options),
  explored: verifyProgram(p, { ...options, everyK: false }),
});

describe('a large K through the proof for every K', () => {
  it('a correct pipeline at K = 1024: verified by the proof in fewer states, with the properties of K = 1024 itself', () => {
    const { route, explored } = both(pipelineProgram({ depth: 4, pending: 1, consumers: 1, iterations: COVER_FROM, level: 'mbarrier' }));
    expect(explored.verdict).toBe('verified');
    expect(byProof(explored)).toBe(false);
    expect(route.verdict).toBe('verified');
    expect(byProof(route)).toBe(true);
    expect(route.notes?.[0]).toBe('K = 1024 is covered by a proof for every K ≥ 1; no state of K = 1024 itself was explored (--no-every-k explores them)');
    expect(route.notes?.[1]).toMatch(/^proof for every K ≥ 1: the counters are exact/);
    expect(route.scope).toBe('for K = 1024, by a proof for every K ≥ 1');
    expect(explored.scope).toBeUndefined();
    expect(route.stats.states).toBeLessThan(explored.stats.states);
    expect(route.properties).toEqual(explored.properties);
  });

  it('a pipeline with a violation at K = 2048: the value is explored, the same kinds and shortest trace', () => {
    const { route, explored } = both(pipelineProgram({ depth: 3, pending: 1, consumers: 2, iterations: 2048, level: 'aref' }));
    expect(route.verdict).toBe('violation');
    expect(byProof(route)).toBe(false);
    expect(kinds(route)).toEqual(kinds(explored));
    expect(route.violations.map((v) => v.trace.map((t) => t.action))).toEqual(explored.violations.map((v) => v.trace.map((t) => t.action)));
  });

  it('a bug seeded in iteration 39 only, checked at K = 1024: found by exploring 1024 (the proof search sees it at 40)', () => {
    const p = load('test/fixtures/every-k/late-parity.aref');
    const { route, explored } = both(p, { params: new Map([['K', 1024]]) });
    expect(route.verdict).toBe('violation');
    expect(kinds(route)).toEqual(['fifo', 'protocol', 'race']);
    expect(kinds(route)).toEqual(kinds(explored));
    expect(route.stats.states).toBeGreaterThanOrEqual(explored.stats.states);
  });

  it('outside the exact fragment: the value is explored (no proof claimed)', () => {
    const p = load('test/fixtures/every-k/squared-index.aref');
    const r = verifyProgram(p, { params: new Map([['K', 1024]]), maxStates: 200_000 });
    expect(byProof(r)).toBe(false);
    expect(r.verdict).toBe(verifyProgram(p, { params: new Map([['K', 1024]]), maxStates: 200_000, everyK: false }).verdict);
  });

  it('below the threshold, without reduction, and with everyK off: the value itself is explored', () => {
    const p = pipelineProgram({ depth: 4, pending: 1, consumers: 1, iterations: COVER_FROM - 1, level: 'aref' });
    expect(byProof(verifyProgram(p))).toBe(false);
    const big = pipelineProgram({ depth: 4, pending: 1, consumers: 1, iterations: COVER_FROM, level: 'aref' });
    const full = verifyProgram(big, { reduction: false });
    expect(byProof(full)).toBe(false);
    expect(full.verdict).toBe('verified');
  });

  it('a huge K is verified by the proof, where exploring it ends inconclusive at the limit', () => {
    const p = pipelineProgram({ depth: 3, pending: 1, consumers: 1, iterations: 1_000_000, level: 'mbarrier' });
    const r = verifyProgram(p, { maxMs: 30_000 });
    expect(r.verdict).toBe('verified');
    expect(byProof(r)).toBe(true);
    expect(verifyProgram(p, { maxMs: 1500, everyK: false }).verdict).toBe('inconclusive');
  });
});
