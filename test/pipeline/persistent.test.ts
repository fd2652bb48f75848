// The persistent variant of the pipeline family (`tiles: T`): every CTA runs T output tiles of K
// k-tiles. The producer's stages run on across tiles; each consumer retires its wgmma groups and
// releases its last slots at the end of every tile. The checker verifies it for D > P and finds
// the deadlock for D <= P, as for one tile; leaving out the end-of-tile release deadlocks.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import { evalExpr } from '../../src/ir/expr.ts';
import type { Program, Stmt } from '../../src/ir/program.ts';
import { stripLocs } from '../../src/lang/strip.ts';
import { pipelineProgram } from '../../src/pipeline.ts';
import { unrollRole } from '../../src/unroll.ts';
import { verifyProgram } from '../../src/verify.ts';

const persistent = (depth: number, pending: number, consumers: number, iterations: number, tiles: number, cooperative = consumers > 1): Program =>
  pipelineProgram({ depth, pending, consumers, iterations, tiles, level: 'mbarrier', ...(cooperative ? { cooperative } : {}) });

/** A role's unrolled ops as text, e.g. `wait A_full[1] 0`, `arrive A_empty[0]`, `tma.load A_buf[2] value 5`. */
function opsOf(p: Program, index: number): string[] {
  return unrollRole(p, index).map(({ op, env }) => {
    if (op.kind === 'wait') return `wait ${op.target.name}[${evalExpr(op.target.index, env)}] ${evalExpr(op.parity, env)}`;
    if (op.kind === 'arrive') return `arrive ${op.target.name}[${evalExpr(op.target.index, env)}]`;
    if (op.kind === 'tma.load') return `tma.load ${op.target.name}[${evalExpr(op.target.index, env)}] value ${op.value ? evalExpr(op.value, env) : '?'}`;
    if (op.kind === 'wgmma.wait') return `wgmma.wait ${evalExpr(op.pending, env)}`;
    return op.kind;
  });
}

describe('pipelineProgram({ tiles: T })', () => {
  it('runs T·K stages whose slots and parities continue across tiles', () => {
    const p = persistent(3, 1, 2, 4, 3);
    expect(p.params).toContainEqual({ name: 'T', value: 3 });
    const prod = opsOf(p, 0);
    // 12 stages: slot e % 3, value e, first empty wait of each slot on parity 1, then 0, 1, …
    const loads = prod.filter((t) => t.startsWith('tma.load'));
    expect(loads).toEqual(Array.from({ length: 12 }, (_, e) => `tma.load A_buf[${e % 3}] value ${e}`));
    const waits = prod.filter((t) => t.startsWith('wait'));
    expect(waits).toEqual(Array.from({ length: 12 }, (_, e) => `wait A_empty[${e % 3}] ${(Math.floor(e / 3) & 1) ^ 1}`));
    const c0 = opsOf(p, 1);
    expect(c0.filter((t) => t.startsWith('wait A_full'))).toEqual(Array.from({ length: 12 }, (_, e) => `wait A_full[${e % 3}] ${Math.floor(e / 3) & 1}`));
    // every stage released once per consumer, and all wgmma groups retired at the end of each tile
    expect(c0.filter((t) => t.startsWith('arrive')).length).toBe(12);
    expect(c0.filter((t) => t === 'wgmma.wait 0').length).toBe(3);
    expect(opsOf(p, 2)).toEqual(c0);
  });

  it('with T = 1 it is the one-tile program inside a loop of one trip', () => {
    const one = persistent(4, 1, 2, 5, 1);
    const plain = pipelineProgram({ depth: 4, pending: 1, consumers: 2, iterations: 5, level: 'mbarrier', cooperative: true });
    for (let i = 0; i < 3; i++) expect(opsOf(one, i)).toEqual(opsOf(plain, i));
    expect(stripLocs(one).resources).toEqual(stripLocs(plain).resources);
  });

  it('refuses turn-taking consumers and a tile count below 1', () => {
    expect(() => pipelineProgram({ depth: 4, pending: 1, consumers: 2, iterations: 4, tiles: 2, level: 'mbarrier' })).toThrow(InputError);
    expect(() => persistent(4, 1, 1, 4, 0)).toThrow(InputError);
  });

  const grid: [number, number, number, number, number][] = [];
  for (const D of [1, 2, 3, 4]) for (const P of [0, 1, 2]) for (const C of [1, 2]) grid.push([D, P, C, C === 2 ? 3 : 5, 3]);
  // K < P: the end-of-tile releases skip iterations that never happened
  grid.push([3, 2, 2, 1, 3], [4, 2, 1, 1, 4]);

  it.each(grid)('D=%i P=%i C=%i K=%i T=%i: verified iff D > P, deadlock otherwise', (D, P, C, K, T) => {
    const r = verifyProgram(persistent(D, P, C, K, T), { maxMs: 60_000 });
    if (D > P) expect(r.verdict).toBe('verified');
    else {
      expect(r.verdict).toBe('violation');
      expect(r.violations[0]?.kind).toBe('deadlock');
    }
  });

  it('the end-of-tile release matters: without it the producer waits forever on the next tile', () => {
    const p = persistent(3, 1, 2, 4, 2);
    const dropTail = (stmts: readonly Stmt[]): Stmt[] =>
      stmts.flatMap((s): Stmt[] => (s.kind === 'for' ? (s.var === 'j' && s.from.kind !== 'num' ? [] : [{ ...s, body: dropTail(s.body) }]) : [s]));
    const broken: Program = { ...p, roles: p.roles.map((r, i) => (i === 0 ? r : { ...r, body: dropTail(r.body) })) };
    expect(opsOf(broken, 1).filter((t) => t.startsWith('arrive')).length).toBe(6);
    const r = verifyProgram(broken, { maxMs: 60_000 });
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.kind).toBe('deadlock');
  });

  it('verifies at the size the GPU runs at 4096 (K = 64 k-tiles, T = 4 tiles per CTA), D = 4, P = 0, C = 2', () => {
    expect(verifyProgram(persistent(4, 0, 2, 64, 4), { maxMs: 180_000 }).verdict).toBe('verified');
  }, 240_000);
});
