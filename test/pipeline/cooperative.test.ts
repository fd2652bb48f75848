// The cooperative variant of the pipeline family: every consumer reads every stage, the empty
// barriers count C releases per round. The checker verifies it for D > P and finds the deadlock
// for D <= P; with the empty count left at 1 the producer refills a slot one consumer still reads.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import { evalExpr } from '../../src/ir/expr.ts';
import type { Program } from '../../src/ir/program.ts';
import { stripLocs } from '../../src/lang/strip.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { unrollRole } from '../../src/unroll.ts';
import { verifyProgram } from '../../src/verify.ts';

const coop = (depth: number, pending: number, consumers: number, iterations: number): Program =>
  pipelineProgram({ depth, pending, consumers, iterations, level: 'mbarrier', cooperative: true });

/** A role's unrolled ops as text, e.g. `wait A_full[1] 0`, `arrive A_empty[0]`. */
function opsOf(p: Program, index: number): string[] {
  return unrollRole(p, index).map(({ op, env }) => {
    if (op.kind === 'wait') return `wait ${op.target.name}[${evalExpr(op.target.index, env)}] ${evalExpr(op.parity, env)}`;
    if (op.kind === 'arrive') return `arrive ${op.target.name}[${evalExpr(op.target.index, env)}]`;
    return op.kind;
  });
}

describe('pipelineProgram({ cooperative: true })', () => {
  it('gives every consumer the whole loop and the empty barriers a count of C', () => {
    const p = coop(3, 1, 2, 7);
    expect(p.resources).toContainEqual({ kind: 'mbarrier', name: 'A_empty', size: 3, count: 2 });
    expect(p.resources).toContainEqual({ kind: 'mbarrier', name: 'A_full', size: 3, count: 1 });
    expect(p.roles.map((r) => r.name)).toEqual(['producer', 'consumer0', 'consumer1']);
    const bodies = stripLocs(p).roles.map((r) => JSON.stringify(r.body));
    expect(bodies[1]).toBe(bodies[2]);
    const c0 = opsOf(p, 1);
    // every k-tile waited for (7 full waits), every slot round released once per consumer (7 arrivals)
    expect(c0.filter((t) => t.startsWith('wait A_full')).length).toBe(7);
    expect(c0.filter((t) => t.startsWith('arrive A_empty')).length).toBe(7);
    expect(c0.slice(0, 2)).toEqual(['wait A_full[0] 0', 'read']);
    expect(opsOf(p, 2)).toEqual(c0);
  });

  it('with one consumer it is the turn-taking family with C = 1', () => {
    const plain = pipelineProgram({ depth: 3, pending: 1, consumers: 1, iterations: 6, level: 'mbarrier' });
    expect(stripLocs(coop(3, 1, 1, 6))).toEqual(stripLocs(plain));
  });

  it('leaves the default family unchanged (consumers take turns)', () => {
    const p = pipelineProgram({ depth: 4, pending: 1, consumers: 2, iterations: 8, level: 'mbarrier' });
    expect(p.resources).toContainEqual({ kind: 'mbarrier', name: 'A_empty', size: 4, count: 1 });
    expect(opsOf(p, 1).filter((t) => t.startsWith('wait A_full')).length).toBe(4);
  });

  it('exists only at the mbarrier level', () => {
    expect(() => pipelineProgram({ depth: 3, pending: 1, consumers: 2, iterations: 4, level: 'aref', cooperative: true })).toThrow(InputError);
  });

  const grid: [number, number, number][] = [];
  for (const D of [1, 2, 3, 4]) for (const P of [0, 1, 2]) for (const C of [2, 3]) grid.push([D, P, C]);

  it.each(grid)('D=%i P=%i C=%i: verified iff D > P, deadlock otherwise', (D, P, C) => {
    const r = verifyProgram(coop(D, P, C, C === 3 ? 4 : 6), { maxMs: 60_000 });
    if (D > P) expect(r.verdict).toBe('verified');
    else {
      expect(r.verdict).toBe('violation');
      expect(r.violations[0]?.kind).toBe('deadlock');
    }
  });

  it('the count matters: with empty barriers counting one release, the second consumer races the refill', () => {
    const p = coop(2, 0, 2, 4);
    const wrong: Program = { ...p, resources: p.resources.map((r) => (r.kind === 'mbarrier' && r.name === 'A_empty' ? { ...r, count: 1 } : r)) };
    const r = verifyProgram(wrong, { maxMs: 60_000 });
    expect(r.verdict).toBe('violation');
    expect(r.violations.map((v) => v.kind)).toContain('race');
  });

  it('verifies at the K the GPU runs (4096 / 64 = 64 k-tiles), D = 4, P = 1, C = 2', () => {
    expect(verifyProgram(coop(4, 1, 2, 64), { maxMs: 120_000 }).verdict).toBe('verified');
  });
});
