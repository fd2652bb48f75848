// The pingpong gemm kernel (`persistent` + `pingpong`, the pipeline with `pingpong: true, tiles: T`):
// two consumer warpgroups take turns on whole output tiles, trip t of consumer c storing the
// CTA's tile 2t + c. The sync ops read back out of the text are the Program's (the ordering
// barrier order[2] included), the kernel lifts back to the Program and that verifies, it
// assembles for sm_90a without spills, and Programs it cannot realize are refused.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import type { Program } from '../../src/ir/program.ts';
import { stripLocs } from '../../src/lang/strip.ts';
import { emitPtx, pipelineForKernel, readMeta, type EmitOptions } from '../../src/ptx/emit/index.ts';
import { liftPtxFile } from '../../src/ptx/lift/index.ts';
import { verifyProgram } from '../../src/verify.ts';
import { expectedRole } from './expected.ts';
import { assembleAll, ptxasAvailableSync } from './ptxas.ts';
import { readBack, withoutReads } from './tile-loop.ts';

const PING: EmitOptions = { kernel: 'gemm', tile: '128x128x64', persistent: true, pingpong: true };

const program = (depth: number, pending: number, iterations: number, tiles: number, noRead = false, emit: EmitOptions = PING): Program => {
  const p = pipelineForKernel({ depth, pending, consumers: 2, iterations, tiles }, emit);
  return noRead ? withoutReads(p) : p;
};


describe('gemm --persistent --pingpong', () => {
  const cases: [number, number, number, number, boolean][] = [
    [4, 0, 3, 4, false],
    [4, 1, 5, 3, false],
    [3, 1, 2, 5, true],
    [2, 1, 1, 3, true], // K < P + 1: only end-of-tile releases
  ];

  it.each(cases)('D=%i P=%i K=%i T=%i (no read: %s): each role runs the Program\'s sync ops, order barrier included', (D, P, K, T, noRead) => {
    const p = program(D, P, K, T, noRead);
    const ptx = emitPtx(p, PING);
    const prod = readBack(ptx, p, 0).get('producer') ?? [];
    expect(prod).toEqual(expectedRole(p, 0, 'gemm', true).map((t) => t.replace(/value (\d+)$/, (_m, e: string) => `value ${Number(e) % K}`)));
    for (const [i, name] of [[1, 'consumer0'], [2, 'consumer1']] as const) {
      for (const [thread, elected] of [[128 * i, true], [128 * i + 69, false]] as const) {
        const got = readBack(ptx, p, thread, 3).get(name);
        expect(got, `${name} thread ${thread}`).toEqual(expectedRole(p, i, 'gemm', elected));
        expect(got?.some((t) => t.includes('order['))).toBe(true);
      }
    }
  });

  it('stores tile 2t + c on trip t of consumer c, with all 128 rows of a 128x128 tile in one warpgroup, and tells the harness', () => {
    const p = program(4, 0, 4, 4);
    const ptx = emitPtx(p, PING);
    const meta = readMeta(ptx);
    expect(meta?.['pingpong']).toBe(true);
    expect(meta?.['persistent']).toBe(true);
    expect(meta?.['reduceBytes']).toBe(0);
    for (const [c, name] of [[0, 'consumer0'], [1, 'consumer1']] as const) {
      const body = ptx.slice(ptx.indexOf(`// arefcheck role ${name} begin`), ptx.indexOf(`// arefcheck role ${name} end`));
      expect(body).toContain(`// arefcheck tile epilogue ${name}: store the owned part of the CTA's tile 2*`);
      expect(body).toMatch(new RegExp(`mad\\.lo\\.u32 %r\\d+, %r\\d+, 2, ${c};`));
      // 128 accumulators: two m64n128 blocks, 64 stores of two bf16 per thread per tile, no reduction
      expect(body.match(/st\.global\.b32/g)?.length).toBe(64);
      expect(body).not.toContain('st.shared.v4.f32');
      expect(body.match(/wgmma\.mma_async\.sync\.aligned\.m64n128k16/g)?.length).toBe(8);
    }
  });

  it('lifts back to the pingpong Program, which verifies', () => {
    const p = program(4, 1, 3, 5);
    const ptx = emitPtx(p, PING);
    const [lifted] = liftPtxFile(ptx, 'ping.ptx', { params: new Map(p.params.map((q) => [q.name, q.value])) });
    expect(lifted).toBeDefined();
    if (!lifted) return;
    for (const r of stripLocs(p).resources) expect(stripLocs(lifted.program).resources).toContainEqual(r);
    expect(verifyProgram(p).verdict).toBe('verified');
    expect(verifyProgram(lifted.program).verdict).toBe('verified');
  });

  it('refuses a Program whose consumers share tiles, and pingpong without a persistent loop or with cooperative consumers', () => {
    const coop = pipelineForKernel({ depth: 4, pending: 0, consumers: 2, iterations: 4, tiles: 2 }, { kernel: 'gemm', tile: '128x128x64', cooperative: true, persistent: true });
    expect(() => emitPtx(coop, PING)).toThrow(/same schedule/);
    const p = program(4, 0, 4, 2);
    expect(() => emitPtx(p, { ...PING, persistent: false })).toThrow(InputError);
    expect(() => emitPtx(p, { ...PING, cooperative: true, tile: '128x256x64' })).toThrow(InputError);
    expect(() => emitPtx(p, { ...PING, tile: '128x256x64' })).toThrow(/accumulators/);
  });

  it.skipIf(!ptxasAvailableSync())('assembles for sm_90a without spills (128x128 and 64x256) (needs ptxas)', async () => {
    const kernels = ['128x128x64', '64x256x64'].map((tile) => {
      const emit: EmitOptions = { ...PING, tile };
      return { name: `ping_${tile}`, ptx: emitPtx(program(4, 0, 64, 8, true, emit), { ...emit, name: `ping_${tile.replace(/x/g, '_')}` }) };
    });
    for (const r of await assembleAll(kernels)) {
      expect(r.ok, r.log).toBe(true);
      expect(r.spillStores ?? 0).toBe(0);
      expect(r.spillLoads ?? 0).toBe(0);
      expect(r.stackFrame ?? 0).toBe(0);
    }
  }, 120_000);
});
