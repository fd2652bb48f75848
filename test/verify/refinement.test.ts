// Refinement: a lowered program's executions must be allowed by its aref program.
import { describe, expect, it } from 'vitest';
import type { Op, Program, Stmt } from '../../src/ir/program.ts';
import { bin, num } from '../../src/ir/expr.ts';
import { lowerProgram } from '../../src/lower.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { verifyRefinement } from '../../src/verify.ts';

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
