// The persistent gemm kernel (`persistent: true`, the pipeline with `tiles: T`): every CTA loops
// over T output tiles; the producer takes tile e / K and k-tile e % K from each load's stage
// number e; each consumer zeroes its accumulators at the start of a tile and stores the tile at
// its end. The sync ops read back out of the text are the Program's, the kernel lifts back to the
// Program (with the loop over tiles unrolled) and that verifies; bad Programs are refused.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import type { Program, Stmt } from '../../src/ir/program.ts';
import { stripLocs } from '../../src/lang/strip.ts';
import { emitPtx, pipelineForKernel, readMeta, type EmitOptions } from '../../src/ptx/emit/index.ts';
import { liftPtxFile } from '../../src/ptx/lift/index.ts';
import { verifyProgram } from '../../src/verify.ts';
import { expectedRole } from './expected.ts';
import { readBack, withoutReads } from './tile-loop.ts';

const PERS: EmitOptions = { kernel: 'gemm', tile: '128x256x64', cooperative: true, persistent: true };

const program = (depth: number, pending: number, iterations: number, tiles: number, consumers = 2, noRead = false): Program => {
  const p = pipelineForKernel({ depth, pending, consumers, iterations, tiles }, consumers === 1 ? { kernel: 'gemm', persistent: true } : PERS);
  return noRead ? withoutReads(p) : p;
};


describe('gemm --persistent', () => {
  const cases: [number, number, number, number, boolean][] = [
    [4, 0, 3, 2, false],
    [4, 1, 5, 3, false],
    [3, 1, 2, 4, true],
    [2, 1, 1, 3, true], // K < P + 1: the end-of-tile releases of a one-k-tile tile
  ];

  it.each(cases)('D=%i P=%i K=%i T=%i (no read: %s): each role runs the Program\'s sync ops, the loads bring k-tile e mod K', (D, P, K, T, noRead) => {
    const p = program(D, P, K, T, 2, noRead);
    const ptx = emitPtx(p, PERS);
    // producer: its elected thread; the stage value e becomes the k coordinate (e % K)·BK
    const prod = readBack(ptx, p, 0).get('producer') ?? [];
    const want = expectedRole(p, 0, 'gemm', true).map((t) => t.replace(/value (\d+)$/, (_m, e: string) => `value ${Number(e) % K}`));
    expect(prod).toEqual(want);
    expect(prod.filter((t) => t.startsWith('tma.load')).length).toBe(T * K);
    // each consumer, elected and not, on another CTA of the grid too
    for (const [i, name] of [[1, 'consumer0'], [2, 'consumer1']] as const) {
      for (const [thread, elected] of [[128 * i, true], [128 * i + 69, false]] as const) {
        expect(readBack(ptx, p, thread, 3).get(name), `${name} thread ${thread}`).toEqual(expectedRole(p, i, 'gemm', elected));
      }
    }
  });

  it('stores each tile inside the loop over tiles, zeroes the accumulators per tile, and tells the harness T', () => {
    const p = program(4, 0, 4, 3);
    const ptx = emitPtx(p, PERS);
    const meta = readMeta(ptx);
    expect(meta?.['persistent']).toBe(true);
    expect(meta?.iterParam).toBe('K');
    expect(meta?.['tilesParam']).toBe('T');
    expect(ptx).toContain('mov.u32 %r');
    expect(ptx).toMatch(/%nctaid\.x/);
    for (const c of ['consumer0', 'consumer1']) {
      const from = ptx.indexOf(`// arefcheck role ${c} begin`);
      const to = ptx.indexOf(`// arefcheck role ${c} end`);
      const body = ptx.slice(from, to);
      // the epilogue is in the role's loop (before its end marker), not after the role
      expect(body).toContain(`// arefcheck tile epilogue ${c}`);
      expect(body.match(/st\.global\.b32/g)?.length).toBe(64);
      expect(body.match(/mov\.f32 %acc\d+, 0f00000000/g)?.length).toBe(128);
      expect(ptx).not.toContain(`// arefcheck epilogue ${c}`);
    }
  });

  it('works with one consumer (a 128x128 tile per trip)', () => {
    const p = program(3, 1, 4, 2, 1);
    const ptx = emitPtx(p, { kernel: 'gemm', persistent: true });
    expect(readBack(ptx, p, 128).get('consumer0')).toEqual(expectedRole(p, 1, 'gemm', true));
  });

  it('lifts back to the persistent Program, which verifies', () => {
    const p = program(4, 1, 3, 2);
    const ptx = emitPtx(p, PERS);
    const [lifted] = liftPtxFile(ptx, 'pers.ptx', { params: new Map(p.params.map((q) => [q.name, q.value])) });
    expect(lifted).toBeDefined();
    if (!lifted) return;
    for (const r of stripLocs(p).resources) expect(stripLocs(lifted.program).resources).toContainEqual(r);
    expect(lifted.program.params).toContainEqual({ name: 'T', value: 2 });
    expect(verifyProgram(p).verdict).toBe('verified');
    expect(verifyProgram(lifted.program).verdict).toBe('verified');
  });

  it('refuses a Program without a loop over tiles, or one that stores a tile with wgmma groups in flight', () => {
    const oneTile = pipelineForKernel({ depth: 4, pending: 0, consumers: 2, iterations: 4 }, { kernel: 'gemm', tile: '128x256x64', cooperative: true });
    expect(() => emitPtx(oneTile, PERS)).toThrow(/param T/);
    const p = program(4, 1, 4, 2);
    // drop the end-of-tile `wgmma.wait 0` of the consumers (of one only: the cooperative check refuses it first)
    const noWait = (stmts: readonly Stmt[]): Stmt[] =>
      stmts.flatMap((s): Stmt[] => (s.kind === 'for' ? [{ ...s, body: noWait(s.body) }] : s.kind === 'op' && s.op.kind === 'wgmma.wait' && s.op.pending.kind === 'num' ? [] : [s]));
    const one: Program = { ...p, roles: p.roles.map((r, i) => (i === 2 ? { ...r, body: noWait(r.body) } : r)) };
    expect(() => emitPtx(one, PERS)).toThrow(InputError);
    const both: Program = { ...p, roles: p.roles.map((r, i) => (i > 0 ? { ...r, body: noWait(r.body) } : r)) };
    expect(() => emitPtx(both, PERS)).toThrow(/wgmma\.wait 0/);
  });
});
