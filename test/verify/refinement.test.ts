// Refinement: a lowered program's executions must be allowed by its aref program.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Op, Program, Stmt } from '../../src/ir/program.ts';
import { bin, num } from '../../src/ir/expr.ts';
import { lowerProgram } from '../../src/lower.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { parseProgramText } from '../../src/lang/load.ts';
import { ROOT } from '../../scripts/regen-traces.ts';
import { verifyProgram, verifyRefinement } from '../../src/verify.ts';

/** Rewrite every op of one role (a text-free mutation of the lowered program). */
function mapOps(program: Program, role: string, f: (op: Op) => Op): Program {
  const walk = (stmts: readonly Stmt[]): Stmt[] =>
    stmts.map((s) => (s.kind === 'op' ? { ...s, op: f(s.op) } : s.kind === 'for' ? { ...s, body: walk(s.body) } : { ...s, then: walk(s.then), else: walk(s.else) }));
  return { ...program, roles: program.roles.map((r) => (r.name === role ? { ...r, body: walk(r.body) } : r)) };
}

describe('refinement', () => {
  const aref = pipelineProgram({ depth: 2, pending: 1, consumers: 1, iterations: 6, level: 'aref' });

  it('the standard lowering refines the aref program', () => {
    expect(verifyRefinement(aref, lowerProgram(aref)).verdict).toBe('verified');
  });

  it('a consumer waiting with the wrong parity (M2) passes a full wait the aref level would block', () => {
    const mutant = mapOps(lowerProgram(aref), 'consumer0', (op) =>
      op.kind === 'wait' ? { ...op, parity: bin('^', op.parity, num(1)) } : op,
    );
    const report = verifyRefinement(aref, mutant);
    expect(report.verdict).toBe('violation');
    const refinement = report.violations.find((v) => v.kind === 'refinement');
    expect(refinement?.message).toMatch(/consumer0 passes the full wait of A\[0\] \(get\) while at the aref level σ\(A\[0\]\) = ⟨⊥, 0, 1⟩ is not full/);
    // shortest: the consumer's very first wait passes on the fresh barrier
    expect(refinement?.trace.length).toBe(1);
  });

  it('a doubled release is not a consumed of a borrowed slot', () => {
    const mutant = mapOps(lowerProgram(aref), 'consumer0', (op) => (op.kind === 'arrive' ? { ...op, count: num(1) } : op));
    expect(verifyRefinement(aref, mutant).verdict).toBe('verified'); // control: the identity mutation
    const twice = (stmts: readonly Stmt[]): Stmt[] =>
      stmts.flatMap((s): Stmt[] =>
        s.kind === 'op' ? (s.op.kind === 'arrive' ? [s, s] : [s]) : s.kind === 'for' ? [{ ...s, body: twice(s.body) }] : [{ ...s, then: twice(s.then), else: twice(s.else) }],
      );
    const lowered = lowerProgram(aref);
    const doubled: Program = { ...lowered, roles: lowered.roles.map((r) => (r.name !== 'consumer0' ? r : { ...r, body: twice(r.body) })) };
    const kinds = verifyRefinement(aref, doubled).violations.map((v) => v.kind);
    expect(kinds.length).toBeGreaterThan(0);
    expect(kinds.some((k) => k === 'refinement' || k === 'protocol' || k === 'race')).toBe(true);
  });
});

describe('the end of a run: one answer at both levels (issue 12.2)', () => {
  const lostValue = parseProgramText(`param K = 3
aref A[2]
role producer warps 1:
  for k in 0..K:
    put A[k % 2], k
role consumer warps 4:
  for k in 0..K - 1:
    get A[k % 2] expect k
    consumed A[k % 2]
`, 'lost.aref');
  const missingConsumed = parseProgramText(`param K = 3
aref A[2]
role producer warps 1:
  for k in 0..K:
    put A[k % 2], k
role consumer warps 4:
  for k in 0..K:
    get A[k % 2] expect k
    if k < K - 1: consumed A[k % 2]
`, 'missing.aref');

  it.each([
    ['a value put and never taken', lostValue, /at the end A\[0\] is still full: the value 2 put into it was never taken/, /phase 1 of A_full\[0\] has completed but no wait observed it/],
    ['a missing last consumed', missingConsumed, /at the end A\[0\] is still borrowed: a consumed is missing/, /at the end A\[0\] is still borrowed: a consumed is missing/],
  ])('%s is protocol at the aref level and at the mbarrier level', (_what, program, arefMessage, mbarrierMessage) => {
    const aref = verifyProgram(program, { level: 'aref' });
    const mbarrier = verifyProgram(program, { level: 'mbarrier' });
    expect(aref.violations.map((v) => v.kind)).toEqual(['protocol']);
    expect(mbarrier.violations.map((v) => v.kind)).toEqual(['protocol']);
    expect(aref.violations[0]!.message).toMatch(arefMessage);
    expect(mbarrier.violations[0]!.message).toMatch(mbarrierMessage);
    // the mbarrier-level trace replays to the same end
    expect(mbarrier.violations[0]!.trace.length).toBeGreaterThan(aref.violations[0]!.trace.length);
  });

  it('the refinement monitor alone sees a missing last release (no barrier is left half-way)', () => {
    const lowered = lowerProgram(missingConsumed);
    // checked on its own the lowered program cannot tell: nothing is left half-done, only the aref structure says a release is owed
    expect(verifyProgram(lowered).verdict).toBe('verified');
    expect(verifyRefinement(missingConsumed, lowered).violations.map((v) => v.kind)).toEqual(['protocol']);
  });

  it('verifyRefinement refuses an mbarrier program without the lowered names instead of skipping the aref', () => {
    // a hand-written implementation of A with its own names (full, empty, S)
    const own = parseProgramText(readFileSync(join(ROOT, 'examples/double-buffer-mbar.aref'), 'utf8'), 'double-buffer-mbar.aref');
    expect(() => verifyRefinement(lostValue, own)).toThrow(/has no A_buf, A_full, A_empty: it does not implement aref A/);
  });
});
