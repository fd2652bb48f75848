// The cooperative gemm kernel (two consumer warpgroups on one 128x256 / 256x128 tile, each reading
// every stage): what it refuses, where each consumer's operands and outputs are, and that the
// kernel lifts back to the cooperative Program and verifies (the lifter knows nothing of the mode).
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import { stripLocs } from '../../src/lang/strip.ts';
import { emitPtx, pipelineForKernel, readMeta, type EmitOptions } from '../../src/ptx/emit/index.ts';
import { liftPtxFile } from '../../src/ptx/lift/index.ts';
import { verifyProgram } from '../../src/verify.ts';

const COOP: EmitOptions = { kernel: 'gemm', tile: '128x256x64', cooperative: true };

/** The text of one role's region (between its begin marker and the next role's). */
function region(ptx: string, role: string): string {
  const from = ptx.indexOf(`// arefcheck role ${role} begin`);
  const to = ptx.indexOf('bra.uni', ptx.indexOf(`// arefcheck epilogue ${role}`));
  return ptx.slice(from, to);
}

describe('gemm --cooperative', () => {
  it('refuses a turn-taking Program (each consumer would sum only its own k-tiles)', () => {
    const turns = pipelineForKernel({ depth: 4, pending: 1, consumers: 2, iterations: 8, cooperative: false }, COOP);
    expect(() => emitPtx(turns, COOP)).toThrow(/different schedule/);
  });

  it('refuses tiles the consumers cannot split or hold', () => {
    const p = pipelineForKernel({ depth: 2, pending: 0, consumers: 2, iterations: 4 }, { ...COOP, tile: '64x128x64' });
    expect(() => emitPtx(p, { ...COOP, tile: '64x128x64' })).toThrow(InputError);
    // 256x256: 128 rows × 256 columns per consumer = 256 accumulators per thread
    expect(() => pipelineForKernel({ depth: 2, pending: 0, consumers: 2, iterations: 4 }, { ...COOP, tile: '256x256x64' })).not.toThrow();
    const big = pipelineForKernel({ depth: 2, pending: 0, consumers: 2, iterations: 4 }, { ...COOP, tile: '256x256x64' });
    expect(() => emitPtx(big, { ...COOP, tile: '256x256x64' })).toThrow(/256 fp32 accumulators/);
    // without --cooperative the 128x256 tile does not fit one warpgroup's registers
    expect(() => pipelineForKernel({ depth: 2, pending: 0, consumers: 2, iterations: 4 }, { kernel: 'gemm', tile: '128x256x64' })).toThrow(/accumulators/);
  });

  it('each consumer reads its own 64 rows of the A tile and stores its own rows of C, with no reduction area', () => {
    const program = pipelineForKernel({ depth: 3, pending: 1, consumers: 2, iterations: 8 }, COOP);
    const ptx = emitPtx(program, COOP);
    const meta = readMeta(ptx);
    expect(meta?.['reduceBytes']).toBe(0);
    expect(meta?.['cooperative']).toBe(true);
    expect(meta?.smemBytes).toBe(3 * (128 + 256) * 128 + 1024);
    const c0 = region(ptx, 'consumer0');
    const c1 = region(ptx, 'consumer1');
    expect(c0.match(/wgmma\.mma_async\.sync\.aligned\.m64n256k16/g)?.length).toBe(4);
    expect(c1.match(/wgmma\.mma_async\.sync\.aligned\.m64n256k16/g)?.length).toBe(4);
    // descriptor of the A operand: consumer 1 starts one m64 block (8192 bytes = 512 in units of 16) in
    expect(c0).toMatch(/add\.s64 %rd\d+, %rd\d+, 0;/);
    expect(c1).toMatch(/add\.s64 %rd\d+, %rd\d+, 512;/);
    expect(c1).toMatch(/add\.u32 %r\d+, %r\d+, 64;/);
    expect(c0).not.toMatch(/st\.shared\.v4/);
    // 128 accumulators = 32 quads, two bf16x2 stores each
    expect(c0.match(/st\.global\.b32/g)?.length).toBe(64);
  });

  it('lifts back to the cooperative Program (empty count 2, both consumers on every slot) and verifies', () => {
    const program = pipelineForKernel({ depth: 3, pending: 1, consumers: 2, iterations: 7 }, COOP);
    const ptx = emitPtx(program, COOP);
    const [lifted] = liftPtxFile(ptx, 'coop.ptx', { params: new Map(program.params.map((p) => [p.name, p.value])) });
    expect(lifted).toBeDefined();
    if (!lifted) return;
    for (const r of stripLocs(program).resources) expect(stripLocs(lifted.program).resources).toContainEqual(r);
    expect(verifyProgram(program).verdict).toBe('verified');
    expect(verifyProgram(lifted.program).verdict).toBe('verified');
  });
});
