// The checker on the Tawa pipeline family: D ≤ P deadlocks, D > P is verified, at both
// levels; deadlock traces are shortest and say what each role waits for.
import { describe, expect, it } from 'vitest';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyProgram } from '../../src/verify.ts';
import { programModel } from '../../src/verify/model.ts';
import { lowerProgram } from '../../src/lower.ts';
import type { Program } from '../../src/ir/program.ts';

/** Independent shortest distance to a deadlock: a plain BFS with string keys. */
function naiveShortestDeadlock(program: Program): number | undefined {
  const model = programModel(program);
  const key = (w: Int32Array): string => Array.from(w).join(',');
  let frontier = model.initialStates();
  const seen = new Set(frontier.map((s) => key(model.encode(s))));
  for (let depth = 0; frontier.length > 0; depth++) {
    const next = [];
    for (const s of frontier) {
      const actions: Parameters<typeof model.actions>[1] = [];
      model.actions(s, actions);
      if (actions.length === 0 && !model.isFinal(s)) return depth;
      for (const a of actions) {
        const t = model.nextState(s, a);
        const k = key(model.encode(t));
        if (!seen.has(k)) {
          seen.add(k);
          next.push(t);
        }
      }
    }
    frontier = next;
  }
  return undefined;
}

describe('pipeline family, C = 1', () => {
  const grid: Array<[number, number, number]> = [];
  for (const depth of [1, 2, 3, 4]) for (const pending of [0, 1, 2, 3]) for (const k of [8, 64]) grid.push([depth, pending, k]);

  it.each(grid)('D=%i P=%i K=%i: deadlock iff D ≤ P, at both levels', (depth, pending, iterations) => {
    if (iterations === 64 && depth + pending > 5) return; // the largest cases live in the benchmark
    const program = pipelineProgram({ depth, pending, consumers: 1, iterations, level: 'aref' });
    for (const level of ['aref', 'mbarrier'] as const) {
      const report = verifyProgram(program, { level });
      if (depth > pending) {
        expect(report.verdict, `${level}: ${report.violations[0]?.message}`).toBe('verified');
      } else {
        expect(report.verdict).toBe('violation');
        expect(report.violations.map((v) => v.kind)).toEqual(['deadlock']);
      }
    }
  });

  it('the deadlock trace is a shortest one and names what each role waits for', () => {
    const program = pipelineProgram({ depth: 2, pending: 2, consumers: 1, iterations: 8, level: 'mbarrier' });
    const report = verifyProgram(program);
    const deadlock = report.violations.find((v) => v.kind === 'deadlock');
    expect(deadlock).toBeDefined();
    expect(deadlock!.trace.length).toBe(naiveShortestDeadlock(program));
    expect(deadlock!.message).toMatch(/producer waits A_empty\[0\] parity 0; A_empty\[0\] is in phase 0 with 1 arrival pending/);
    expect(deadlock!.message).toMatch(/consumer0 waits A_full\[0\] parity 1; A_full\[0\] is in phase 1/);
  });

  it('lowered programs refine their aref programs (no refinement violation when D > P)', () => {
    const program = pipelineProgram({ depth: 4, pending: 1, consumers: 2, iterations: 8, level: 'aref' });
    expect(verifyProgram(program, { level: 'both' }).verdict).toBe('verified');
    expect(verifyProgram(lowerProgram(program)).verdict).toBe('verified');
  });
});

describe('limits', () => {
  it('a state limit gives inconclusive with the figures reached, never verified', () => {
    const program = pipelineProgram({ depth: 4, pending: 1, consumers: 1, iterations: 64, level: 'mbarrier' });
    const report = verifyProgram(program, { maxStates: 500 });
    expect(report.verdict).toBe('inconclusive');
    expect(report.limit?.reason).toBe('states');
    expect(report.stats.states).toBeGreaterThan(0);
  });

  it('huge parameters end inconclusive within the limits instead of hanging', () => {
    const program = pipelineProgram({ depth: 3, pending: 1, consumers: 1, iterations: 1_000_000, level: 'mbarrier' });
    // explored itself (the proof for every K covers it: test/every-k/covering.test.ts)
    const report = verifyProgram(program, { maxMs: 1500, everyK: false });
    expect(report.verdict).toBe('inconclusive');
  });
});

describe('pipeline family, C = 2', () => {
  it('when C does not divide D a consumer can take a slot filled for the other one', () => {
    const program = pipelineProgram({ depth: 3, pending: 1, consumers: 2, iterations: 8, level: 'aref' });
    expect(verifyProgram(program, { level: 'aref' }).violations.map((v) => v.kind)).toEqual(['fifo']);
    // lowered, the refinement monitor sees it first: the consumer passes a full wait meant for the other one
    const lowered = verifyProgram(program, { level: 'mbarrier' });
    // …and consumer1's first wait on A_full[0] (parity 1, with nothing observed) names the phase before
    // phase 0: once that barrier is in phase 1 the wait has missed its phase (protocol)
    expect(lowered.violations.map((v) => v.kind)).toEqual(['refinement', 'protocol']);
    expect(lowered.violations[0]!.message).toMatch(/consumer1 passes the full wait of A\[0\] \(get\) while at the aref level σ\(A\[0\]\) = ⟨⊥, 0, 1⟩ is not full/);
    // checked on its own (no aref program to refine), the consumer's read is unordered or wrong
    const kinds = verifyProgram(lowerProgram(program)).violations.map((v) => v.kind);
    expect(kinds.some((k) => k === 'race' || k === 'fifo')).toBe(true);
  });
});
