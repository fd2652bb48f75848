// The pingpong variant of the pipeline family: two consumers take turns on whole output tiles
// (consumer c computes tiles c, c+2, … of the CTA's T tiles), ordered by the mbarrier pair
// order[2]. The checker verifies it unless D <= P and K > D (a consumer then needs a slot it still
// holds itself: deadlock); the other consumer's slots never block it, since they belong to an
// earlier tile whose stages have all been delivered. Without the ordering barrier a consumer's
// first full-wait of a tile passes on a stale phase (fifo + race) as soon as K >= D.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import { evalExpr } from '../../src/ir/expr.ts';
import type { Program, Stmt } from '../../src/ir/program.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { unrollRole } from '../../src/unroll.ts';
import { verifyProgram } from '../../src/verify.ts';

const pingpong = (depth: number, pending: number, iterations: number, tiles: number): Program =>
  pipelineProgram({ depth, pending, consumers: 2, iterations, tiles, level: 'mbarrier', pingpong: true });

/** A role's unrolled ops as text, e.g. `wait A_full[1] 0`, `arrive order[1]`, `read 5`. */
function opsOf(p: Program, index: number): string[] {
  return unrollRole(p, index).map(({ op, env }) => {
    if (op.kind === 'wait') return `wait ${op.target.name}[${evalExpr(op.target.index, env)}] ${evalExpr(op.parity, env)}`;
    if (op.kind === 'arrive') return `arrive ${op.target.name}[${evalExpr(op.target.index, env)}]`;
    if (op.kind === 'read') return `read ${op.expect ? evalExpr(op.expect, env) : '?'}`;
    if (op.kind === 'wgmma.wait') return `wgmma.wait ${evalExpr(op.pending, env)}`;
    return op.kind;
  });
}

/** The program without the ordering barrier's waits and arrives. */
function unordered(p: Program): Program {
  const drop = (stmts: readonly Stmt[]): Stmt[] =>
    stmts.flatMap((s): Stmt[] =>
      s.kind === 'op'
        ? (s.op.kind === 'wait' || s.op.kind === 'arrive') && s.op.target.name === 'order' ? [] : [s]
        : s.kind === 'for' ? [{ ...s, body: drop(s.body) }] : [{ ...s, then: drop(s.then), else: drop(s.else) }],
    );
  return { ...p, roles: p.roles.map((r) => ({ ...r, body: drop(r.body) })) };
}

describe('pipelineProgram({ pingpong: true, tiles: T })', () => {
  it('gives consumer c the tiles c, c+2, …, all K stages of each, and alternates them with order[2]', () => {
    const K = 3;
    const T = 5;
    const p = pingpong(2, 1, K, T);
    expect(p.resources).toContainEqual({ kind: 'mbarrier', name: 'order', size: 2, count: 1 });
    expect(p.resources).toContainEqual({ kind: 'mbarrier', name: 'A_empty', size: 2, count: 1 });
    const stagesOf = (tiles: number[]): number[] => tiles.flatMap((t) => [0, 1, 2].map((k) => t * K + k));
    const c0 = opsOf(p, 1);
    const c1 = opsOf(p, 2);
    expect(c0.filter((t) => t.startsWith('read')).map((t) => Number(t.slice(5)))).toEqual(stagesOf([0, 2, 4]));
    expect(c1.filter((t) => t.startsWith('read')).map((t) => Number(t.slice(5)))).toEqual(stagesOf([1, 3]));
    // each consumer releases each of its stages once (empty count 1), retires its groups per tile
    expect(c0.filter((t) => t.startsWith('arrive A_empty')).length).toBe(9);
    expect(c1.filter((t) => t.startsWith('arrive A_empty')).length).toBe(6);
    expect(c0.filter((t) => t === 'wgmma.wait 0').length).toBe(3);
    // order: consumer 0 starts tile 0 at once, then waits on order[0] rounds 0, 1; consumer 1 on order[1] rounds 0, 1
    expect(c0.filter((t) => t.includes('order'))).toEqual(['arrive order[1]', 'wait order[0] 0', 'arrive order[1]', 'wait order[0] 1']);
    expect(c1.filter((t) => t.includes('order'))).toEqual(['wait order[1] 0', 'arrive order[0]', 'wait order[1] 1', 'arrive order[0]']);
    // the arrive comes after the tile's K iterations, before its wgmma.wait 0
    expect(c1.indexOf('arrive order[0]')).toBe(c1.indexOf('wgmma.wait 0') - 1);
  });

  it('loads the stages in tile order, as the tiles variant does', () => {
    const tiles = pipelineProgram({ depth: 3, pending: 1, consumers: 1, iterations: 4, tiles: 3, level: 'mbarrier' });
    expect(opsOf(pingpong(3, 1, 4, 3), 0)).toEqual(opsOf(tiles, 0));
  });

  it('needs tiles, exactly two consumers that are not cooperative, and the mbarrier level', () => {
    expect(() => pipelineProgram({ depth: 3, pending: 1, consumers: 2, iterations: 4, level: 'mbarrier', pingpong: true })).toThrow(InputError);
    expect(() => pipelineProgram({ depth: 3, pending: 1, consumers: 3, iterations: 4, tiles: 2, level: 'mbarrier', pingpong: true })).toThrow(InputError);
    expect(() => pipelineProgram({ depth: 3, pending: 1, consumers: 2, iterations: 4, tiles: 2, level: 'mbarrier', pingpong: true, cooperative: true })).toThrow(InputError);
    expect(() => pipelineProgram({ depth: 3, pending: 1, consumers: 2, iterations: 4, tiles: 2, level: 'aref', pingpong: true })).toThrow(InputError);
  });

  const grid: [number, number, number, number][] = [];
  for (const D of [1, 2, 3, 4]) for (const P of [0, 1, 2]) for (const K of [1, 2, 3, 5]) grid.push([D, P, K, 3]);
  grid.push([2, 1, 4, 4], [3, 0, 2, 5], [2, 2, 2, 4]);

  it.each(grid)('D=%i P=%i K=%i T=%i: deadlock iff D <= P and K > D, verified otherwise', (D, P, K, T) => {
    const r = verifyProgram(pingpong(D, P, K, T), { maxMs: 60_000 });
    if (D <= P && K > D) {
      expect(r.verdict).toBe('violation');
      expect(r.violations[0]?.kind).toBe('deadlock');
    } else expect(r.verdict).toBe('verified');
  });

  it.each([[2, 0, 2, 2], [2, 1, 4, 3], [4, 0, 7, 2]])('D=%i P=%i K=%i T=%i without the ordering barrier: consumer 1 reads a stale or empty slot', (D, P, K, T) => {
    const r = verifyProgram(unordered(pingpong(D, P, K, T)), { maxMs: 60_000 });
    expect(r.verdict).toBe('violation');
    expect(r.violations.map((v) => v.kind)).toEqual(expect.arrayContaining(['fifo', 'race']));
    expect(r.violations[0]?.message).toMatch(/^consumer1: read of A_buf/);
  });

  it('without the ordering barrier and K < D nothing aliases (the barrier is needed from K >= D on)', () => {
    expect(verifyProgram(unordered(pingpong(2, 0, 1, 4)), { maxMs: 60_000 }).verdict).toBe('verified');
  });

  it('verifies at the size the GPU runs at 4096 (128x128 tiles: K = 64, T = 8), D = 4, P = 0', () => {
    expect(verifyProgram(pingpong(4, 0, 64, 8), { maxMs: 180_000 }).verdict).toBe('verified');
  }, 240_000);
});
