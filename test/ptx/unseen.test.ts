// Triton kernels of kinds the lifter was not tuned on (python/examples/unseen_kernels.py, run on an
// H200: fixtures/unseen/results.csv). Each computed the right product on the GPU, so each must
// verify, from its PTX alone and with the TMA boxes its TTGIR gives. The run found two faults, both
// fixed: a kernel that builds its own descriptors was refused with --ttgir (its signature has none),
// and a 128×128 f16 tile under a 128-byte swizzle, which Triton loads as two 128×64 boxes from two
// warps, was given a 128×128 box from its block shape, so the two copies overlapped: a false race.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { verifyPtx } from '../../src/api.ts';
import { ttgirBoxes } from '../../src/ptx/lift/ttgir.ts';
import { ROOT } from './paths.ts';

const DIR = join(ROOT, 'test/ptx/fixtures/unseen');
const unpack = (file: string): string => gunzipSync(readFileSync(join(DIR, file))).toString('utf8');
const correct = readFileSync(join(DIR, 'results.csv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.split(','))
  .filter(([, result]) => result === 'correct')
  .map(([name]) => name!);

describe('kernels not tuned on, correct on the H200', () => {
  it('the run kept seventeen correct kernels', () => {
    expect(correct).toHaveLength(17);
  });

  it.each(correct)('%s verifies from its PTX, and with its TTGIR\'s boxes', (name) => {
    const ptx = unpack(`${name}.ptx.gz`);
    const alone = verifyPtx(ptx, { file: `${name}.ptx`, maxMs: 120_000 });
    expect(alone.verdict, alone.violations[0]?.message ?? alone.limit?.message).toBe('verified');
    const boxes = ttgirBoxes(unpack(`${name}.ttgir.gz`), `${name}.ttgir`);
    const given = verifyPtx(ptx, { file: `${name}.ptx`, tmaBoxes: boxes, maxMs: 120_000 });
    expect(given.verdict, given.violations[0]?.message ?? given.limit?.message).toBe('verified');
  }, 300_000);

  it('boxes: the contiguous dimension is cut to the swizzle width, and only there', () => {
    // f16, 128-byte swizzle: 128×128 blocks load as boxes of 128×64 (two copies per tile)
    const split = ttgirBoxes(unpack('ws_k128_128x128x128_w8_s3.ttgir.gz'), 'ws.ttgir');
    expect(split.get('mm_desc_param_0+0')).toBe(128 * 64 * 2);
    expect(split.get('mm_desc_param_5+0')).toBe(128 * 64 * 2);
    // e4m3, 128-byte swizzle: 128 one-byte columns are the swizzle width, one box per tile
    const fp8 = ttgirBoxes(unpack('fp8_128x256x128_w8_s3.ttgir.gz'), 'fp8.ttgir');
    expect(fp8.get('mm_desc_param_0+0')).toBe(128 * 128);
    expect(fp8.get('mm_desc_param_5+0')).toBe(256 * 128);
    // B given K×N: a [64, 256] bf16 block, 64 rows of the 128-byte swizzle width (64 columns)
    expect(ttgirBoxes(unpack('kn_bf16_128x256x64_w8_s3.ttgir.gz'), 'kn.ttgir').get('mm_kn_param_5+0')).toBe(64 * 64 * 2);
    // a kernel that makes its descriptors itself has none in its signature: no boxes, no refusal
    expect(ttgirBoxes(unpack('devdesc_128x128x64_w4_s3.ttgir.gz'), 'dev.ttgir').size).toBe(0);
  });

  it('the whole block as the box (the old reading) overlaps the two copies of a tile: a race', () => {
    const name = 'ws_k128_128x128x128_w8_s3';
    const report = verifyPtx(unpack(`${name}.ptx.gz`), { file: `${name}.ptx`, noSweep: true, tmaBoxes: new Map([['mm_desc_param_0+0', 128 * 128 * 2], ['mm_desc_param_5+0', 128 * 128 * 2]]) });
    expect(report.verdict).toBe('violation');
    expect(report.violations[0]?.kind).toBe('race');
  }, 120_000);
});
