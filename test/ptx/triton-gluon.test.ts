// Triton 3.6 and Gluon kernels (issue 8) generated from our own sources by
// python/examples/gemm_shapes.py on an H100, where each computed the right product against torch
// (fixtures/triton/results.csv; the Gluon parity mutant below crashed the GPU instead). Each
// verifies over its bounded sweep; the 128×256 tile has its copies sized from the wgmma footprint
// (B is 256 rows: 32 KB; checking it takes minutes, docs/ptx.md); the crashing parity is found.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyPtx } from '../../src/api.ts';
import { liftPtxFile } from '../../src/ptx/lift/lift.ts';
import { ttgirBoxes } from '../../src/ptx/lift/ttgir.ts';
import { arefcheck, root } from '../cli/spawn.ts';
import { applyMutant } from './real-mutants.ts';

const DIR = join(root, 'test/ptx/fixtures/triton');
const read = (f: string): string => readFileSync(join(DIR, f), 'utf8');

describe('Triton and Gluon kernels that ran right on the GPU', () => {
  it('the fixtures are the ones the GPU run checked', () => {
    const csv = read('results.csv');
    for (const name of ['tma_128x128x64_w4_s4', 'tma_128x256x64_w8_s3', 'tma_64x128x64_w4_s3', 'tma_128x64x128_w4_s2', 'tma_64x64x32_w4_s5', 'tma_persistent_128x128x64_w4_s3', 'gluon_ws_128x128x64_s3', 'gluon_ws_64x128x64_s4'])
      expect(csv).toMatch(new RegExp(`^${name},correct,`, 'm'));
    expect(csv).toMatch(/^gluon_ws_128x128x64_s3_parity_mutant,error,.*unspecified launch failure/m);
  });

  it.each([
    'tma_128x128x64_w4_s4.ptx',
    'tma_64x128x64_w4_s3.ptx',
    'tma_128x64x128_w4_s2.ptx',
    'tma_64x64x32_w4_s5.ptx',
    'tma_persistent_128x128x64_w4_s3.ptx',
    'gluon_ws_128x128x64_s3.ptx',
    'gluon_ws_64x128x64_s4.ptx',
  ])('%s verifies over its sweep, the ring wrapped', (file) => {
    const report = verifyPtx(read(file), { file, maxMs: 120_000 });
    expect(report.verdict, report.violations[0]?.message ?? report.limit?.message).toBe('verified');
    // the persistent kernel's tile loop is run twice too (a third point)
    expect(report.scope).toMatch(file.includes('persistent') ? /3 launch assignments/ : /2 launch assignments/);
    expect(report.properties.find((p) => p.kind === 'race')?.status).toBe('checked');
  }, 180_000);

  it('128×256×64 w8 (once a false deadlock): copies sized 16 KB (A) and 32 KB (B), the 48 KB its expect_tx says', () => {
    const file = 'tma_128x256x64_w8_s3.ptx';
    const [lifted] = liftPtxFile(read(file), file);
    const sizes = new Map(lifted!.facts.tma.map((m) => [m.map, m.bytes]));
    expect(sizes.get('matmul_tma_param_0+0')).toBe(16384);
    expect(sizes.get('matmul_tma_param_5+0')).toBe(32768);
    const tx = lifted!.program.roles.flatMap((r) => r.body).filter((st) => st.kind === 'op' && st.op.kind === 'arrive.expect_tx');
    expect(tx.length).toBeGreaterThan(0);
    for (const st of tx) if (st.kind === 'op' && st.op.kind === 'arrive.expect_tx') expect(st.op.bytes).toEqual({ kind: 'num', value: 49152 });
  });

  it('Gluon: the MMA partition waiting with parity 1 on its first ready barrier (the kernel that crashed the H100) races', () => {
    const file = 'gluon_ws_128x128x64_s3.ptx';
    const { text, line } = applyMutant(read(file), {
      file,
      kernel: 'gluon_gemm_ws',
      what: 'ready wait parity fixed at 1',
      line: /mbarrier\.try_wait\.parity\.shared\.b64 complete, \[%r44\], %r45;/,
      from: /%r45;/,
      to: '1;',
      kinds: ['race'],
    });
    const report = verifyPtx(text, { file, maxMs: 60_000, stopAtFirst: true });
    expect(report.verdict).toBe('violation');
    expect(['race', 'protocol']).toContain(report.violations[0]?.kind);
    expect(report.violations[0]?.trace.some((t) => t.loc?.line === line)).toBe(true);
  }, 120_000);
});

describe('TMA boxes from the compiler (--ttgir, --triton-cache)', () => {
  it('reads each descriptor block shape of the TTGIR signature as the box of that PTX parameter', () => {
    const boxes = ttgirBoxes(read('tma_128x256x64_w8_s3.ttgir'), 'x.ttgir');
    expect(boxes.get('matmul_tma_param_0+0')).toBe(128 * 64 * 2);
    expect(boxes.get('matmul_tma_param_5+0')).toBe(256 * 64 * 2);
    // the 128×256 output tile under a 128-byte swizzle: four stores of 128×64 (four warps, line 650)
    expect(boxes.get('matmul_tma_param_10+0')).toBe(128 * 64 * 2);
    expect(ttgirBoxes(read('gluon_ws_64x128x64_s4.ttgir'), 'y.ttgir').get('gluon_gemm_ws_param_0+0')).toBe(64 * 64 * 2);
  });

  it('verify --ttgir takes them as given and checks them against expect_tx: a box half the size deadlocks', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arefcheck-ttgir-'));
    const good = join(dir, 'good.ttgir');
    const bad = join(dir, 'bad.ttgir');
    writeFileSync(good, read('gluon_ws_64x128x64_s4.ttgir'));
    writeFileSync(bad, read('gluon_ws_64x128x64_s4.ttgir').replace('tensor<64x64xf16', 'tensor<64x32xf16'));
    const ptx = join(DIR, 'gluon_ws_64x128x64_s4.ptx');
    const ok = arefcheck('verify', ptx, '--ttgir', good, '--no-sweep');
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/TMA box of gluon_gemm_ws_param_0\+0: 8192 bytes, as given/);
    const short = arefcheck('verify', ptx, '--ttgir', bad, '--no-sweep');
    expect(short.status).toBe(1);
    expect(short.stdout).toMatch(/error: deadlock/);
    // a cache folder: the kernel's .ttgir in a hash folder; two that disagree are refused
    const cacheDir = mkdtempSync(join(tmpdir(), 'arefcheck-cache-'));
    mkdirSync(join(cacheDir, 'HASH1'));
    writeFileSync(join(cacheDir, 'HASH1', 'gluon_gemm_ws.ttgir'), read('gluon_ws_64x128x64_s4.ttgir'));
    const cache = arefcheck('verify', ptx, '--triton-cache', cacheDir, '--no-sweep');
    expect(cache.status, cache.stderr).toBe(0);
    expect(cache.stdout).toMatch(/as given/);
    const both = arefcheck('verify', ptx, '--triton-cache', dir, '--no-sweep');
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/two \.ttgir files give gluon_gemm_ws_param_0\+0 a box of/);
  }, 120_000);

  it('refuses a file with no tensor descriptor, with the file named', () => {
    expect(() => ttgirBoxes('module { tt.func public @k(%x: i32) { tt.return } }', 'plain.ttgir')).toThrow(/plain\.ttgir: no tensor descriptor/);
  });

  it('gives no boxes, and no error, for a kernel that makes its descriptors itself (the PTX sizes them)', () => {
    // the lines of Triton 3.6's TTGIR for `tl.make_tensor_descriptor` (python/examples/unseen_kernels.py, on the H200)
    const ttgir = `module { tt.func public @mm_device_desc(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %M: i32) {
    ttng.tensormap_create %a_desc_0, %a_ptr, [%c64_i32, %c128_i32], [%K, %M], [%a_desc_1], [%c1_i32, %c1_i32] {elem_type = 6 : i32, fill_mode = 0 : i32, interleave_layout = 0 : i32, swizzle_mode = 3 : i32} : (!tt.ptr<i8>, !tt.ptr<f16>, i32, i32, i32, i32, i64, i32, i32) -> ()
    %a_desc_2 = ttng.reinterpret_tensor_descriptor %a_desc_0 : !tt.ptr<i8> to !tt.tensordesc<tensor<128x64xf16, #shared>>
    tt.return } }`;
    expect(ttgirBoxes(ttgir, 'desc.ttgir').size).toBe(0);
    expect(ttgirBoxes(ttgir.replace('%a_ptr: !tt.ptr<f16>', '%a_desc: !tt.tensordesc<tensor<64x64xf16, #shared>>'), 'sig.ttgir').get('mm_device_desc_param_0+0')).toBe(64 * 64 * 2);
  });
});
