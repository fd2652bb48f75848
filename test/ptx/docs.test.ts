// docs/ptx.md shows real `arefcheck lift --print` output on the Triton sample and on a Gluon
// warp-specialized kernel: keep both true.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { printLifted } from '../../src/cli/cmd-lift.ts';
import { liftPtxFile } from '../../src/ptx/lift/index.ts';
import { read, ROOT, TRITON, tritonParams } from './paths.ts';
import { readPtx } from './gluon-cases.ts';

describe('docs/ptx.md', () => {
  it('shows the current lift of the Triton sample (K = 256: 4 k-tiles)', () => {
    const doc = readFileSync(join(ROOT, 'docs/ptx.md'), 'utf8');
    const block = /--param matmul_tma_param_17=256`:\n\n```\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block).toBeDefined();
    const [only] = liftPtxFile(read(TRITON), 'test/ptx/fixtures/triton-3.6-gemm-tma-3stage-128x128x64-w4.ptx', { params: tritonParams(4) });
    expect(block).toBe(`${printLifted(only?.program ?? { params: [], resources: [], roles: [] })}`);
  });

  it('shows the current lift of the Gluon GEMM of the H100 run (K = 256)', () => {
    const doc = readFileSync(join(ROOT, 'docs/ptx.md'), 'utf8');
    const block = /--param gemm_ws_param_15=256`:\n\n```\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block).toBeDefined();
    const [only] = liftPtxFile(readPtx('gemm_ws_m0'), 'gemm_ws_m0.ptx', { params: new Map([['gemm_ws_param_15', 256]]) });
    expect(block).toBe(`${printLifted(only?.program ?? { params: [], resources: [], roles: [] })}`);
  });
});
