// Generic shared-memory accesses are the bytes their lanes touch: stmatrix/ldmatrix take row
// addresses from 8n lanes only, and warps staging interleaved (swizzled) rows of one TMA-store
// tile get a slot each, so their writes do not read as a write-after-write race — while two warps
// writing the same bytes still race, and are not folded into one role that would hide it.
import { describe, expect, it } from 'vitest';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { liftKernel, traceKernel } from '../../src/ptx/lift/index.ts';
import { roleText, verify } from './helpers.ts';

function kernel(body: string, threads = 64): string {
  return [
    '.version 8.4', '.target sm_90a', '.address_size 64',
    '.shared .align 128 .b8 buf[2048];',
    '.visible .entry k(.param .u64 out)', `.reqntid ${threads}`, '{',
    '\t.reg .pred %p<8>;', '\t.reg .b32 %r<32>;', '\t.reg .b64 %rd<8>;',
    '\tmov.u32 %r1, %tid.x;', '\tshr.u32 %r2, %r1, 5;', '\tand.b32 %r3, %r1, 31;', '\tmov.u32 %r4, buf;',
    body,
    '\tret;', '}', '',
  ].join('\n');
}

/** Each lane stores 16 bytes at `addr`; after a CTA barrier thread 0 stores the first KB with one bulk copy. */
function staging(addr: string): string {
  return kernel([
    addr,
    '\tst.shared.v4.u32 [%r6], {%r1, %r1, %r1, %r1};',
    '\tbar.sync 0;',
    '\tfence.proxy.async.shared::cta;',
    '\tsetp.eq.u32 %p1, %r1, 0;',
    '\tld.param.u64 %rd1, [out];',
    '\t@%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], 1024;',
    '\t@%p1 cp.async.bulk.commit_group;',
    '\t@%p1 cp.async.bulk.wait_group.read 0;',
  ].join('\n'));
}

// lane l of warp w writes bytes [32l + 16w, +16): the two warps interleave in 16-byte chunks
const INTERLEAVED = '\tshl.b32 %r5, %r3, 5;\n\tshl.b32 %r7, %r2, 4;\n\tadd.s32 %r5, %r5, %r7;\n\tadd.s32 %r6, %r4, %r5;';
// both warps write bytes [32l, +16)
const SAME_BYTES = '\tshl.b32 %r5, %r3, 5;\n\tadd.s32 %r6, %r4, %r5;';

describe('shared-memory footprints of generic accesses', () => {
  it('stmatrix .x2 and ldmatrix .x1 take addresses from lanes 0-15 and 0-7 only', () => {
    const body = '\tshl.b32 %r5, %r1, 4;\n\tadd.s32 %r6, %r4, %r5;\n\tstmatrix.sync.aligned.x2.m8n8.shared.b16 [%r6], {%r1, %r1};\n\tldmatrix.sync.aligned.x1.m8n8.shared.b16 {%r8}, [%r6];';
    const t = traceKernel(parsePtx(kernel(body), 'k.ptx'));
    const spans = t.warps.map((w) => w.flatMap((e) => (e.k === 'write' || e.k === 'read' ? [[e.k, e.lo, e.hi]] : [])));
    // lanes 16-31 of warp 0 name [256, 512): hardware ignores them, so warp 0 does not touch warp 1's rows
    expect(spans).toEqual([[['write', 0, 256], ['read', 0, 128]], [['write', 512, 768], ['read', 512, 640]]]);
  });

  it('records the runs a warp touches, not their span', () => {
    const t = traceKernel(parsePtx(staging(INTERLEAVED), 'k.ptx'));
    const w1 = t.warps[1]?.find((e) => e.k === 'write');
    expect(w1 && w1.k === 'write' ? [w1.lo, w1.hi, w1.parts?.length, w1.parts?.[1]] : []).toEqual([16, 1024, 32, [48, 64]]);
  });

  it('gives each warp its interleaved rows of a store tile as one slot, and folds the warps: verified', () => {
    const p = liftKernel(parsePtx(staging(INTERLEAVED), 'k.ptx'));
    expect(p.resources).toContainEqual({ kind: 'buffer', name: 'buf', slots: 2, bytes: 512 });
    expect(p.roles.map((r) => r.name)).toEqual(['warps0_1']);
    expect(roleText(p, 0)).toEqual(['write buf[0]', 'write buf[1]', 'bar.sync 0 64', 'fence.proxy.async', 'tma.store buf[0]', 'tma.store buf[1]', 'bulk.commit', 'bulk.wait 0']);
    expect(verify(p).verdict).toBe('verified');
  });

  it('folds warps that store the same known value at the same bytes (a broadcast flag)', () => {
    const p = liftKernel(parsePtx(staging(SAME_BYTES).replace('{%r1, %r1, %r1, %r1}', '{%r4, %r4, %r4, %r4}'), 'k.ptx'));
    expect(p.roles.map((r) => r.name)).toEqual(['warps0_1']);
    expect(verify(p).verdict).toBe('verified');
  });

  // lane l of warp w addresses [512w + 16l, +16) of the buffer at %r4: each warp a block of rows
  const BLOCK_ROWS = '\tshl.b32 %r8, %r2, 9;\n\tshl.b32 %r9, %r3, 4;\n\tadd.s32 %r8, %r8, %r9;\n\tadd.s32 %r6, %r4, %r8;';

  // Epoch 1 as INTERLEAVED; then BLOCK_ROWS: warp 0 rewrites, in a
  // block, bytes warp 1 wrote in epoch 1. `between` goes between the two epochs. Warp 0 alone
  // fences in epoch 1, so the warps are two roles (folded, they could not race).
  const twoEpochs = (between: string): string =>
    staging(`${INTERLEAVED}\n\tst.shared.v4.u32 [%r6], {%r1, %r1, %r1, %r1};\n\tsetp.eq.u32 %p2, %r2, 0;\n\t@%p2 fence.proxy.async.shared::cta;\n${between}\n${BLOCK_ROWS}`);

  it('cuts slots by write epoch: interleaved rows, a barrier, then blocks of rows is verified (ThunderKittens based)', () => {
    const p = liftKernel(parsePtx(twoEpochs('\tbar.sync 1;'), 'k.ptx'));
    expect(p.roles.map((r) => r.name)).toEqual(['warp0', 'warp1']);
    // four slots of 256 bytes: each the bytes one warp wrote in epoch 1 and one in epoch 2
    expect(p.resources).toContainEqual({ kind: 'buffer', name: 'buf', slots: 4, bytes: 256 });
    expect(verify(p).verdict).toBe('verified');
  });

  it('still finds the write-after-write when no barrier separates the epochs', () => {
    const p = liftKernel(parsePtx(twoEpochs(''), 'k.ptx'));
    const r = verify(p);
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.message).toMatch(/write-after-write/);
  });

  // A copy lands 1 KB in buf; after its wait each warp of the one warpgroup writes its interleaved
  // rows over it, warp 0 alone fences first (so the warps are two roles, as ThunderKittens'
  // attention backward makes the warp that issues its TMA stores), and thread 0 stores the tile.
  const overCopy = (rows: string): string =>
    kernel([
      '\tsetp.eq.u32 %p1, %r1, 0;',
      '\t@%p1 mbarrier.init.shared::cta.b64 [buf+1024], 1;',
      '\tbar.sync 0;',
      '\tld.param.u64 %rd1, [out];',
      '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [buf+1024], 1024;',
      '\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 1024, [buf+1024];',
      'WAIT:',
      '\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [buf+1024], 0;',
      '\t@!%p3 bra WAIT;',
      '\tsetp.eq.u32 %p2, %r2, 0;',
      '\t@%p2 fence.proxy.async.shared::cta;',
      rows,
      '\tst.shared.v4.u32 [%r6], {%r1, %r1, %r1, %r1};',
      '\tbar.sync 0;',
      '\tfence.proxy.async.shared::cta;',
      '\t@%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], 1024;',
      '\t@%p1 cp.async.bulk.commit_group;',
      '\t@%p1 cp.async.bulk.wait_group.read 0;',
    ].join('\n'));

  it('cuts a copy between two roles of one warpgroup that write disjoint rows of it: verified', () => {
    const p = liftKernel(parsePtx(overCopy(INTERLEAVED), 'k.ptx'));
    expect(p.roles.map((r) => r.name)).toEqual(['warp0', 'warp1']);
    // each warp's rows a slot of their own, where the warpgroup alone would have left the copy whole
    expect(p.resources).toContainEqual({ kind: 'buffer', name: 'buf_0', slots: 2, bytes: 512 });
    expect(verify(p).verdict).toBe('verified');
  });

  it('still finds the write-after-write when the two roles write the same rows of the copy', () => {
    const r = verify(liftKernel(parsePtx(overCopy(SAME_BYTES), 'k.ptx')));
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.message).toMatch(/write-after-write/);
  });

  // Nine 1 KB rows, each warp writing its interleaved 16-byte chunks of every row: 576 pieces, past
  // the 512 a region may be cut into. Warp 0 alone fences first, so the warps are two roles.
  const manyRows = (same: boolean, stages = 1): string =>
    [
      '.version 8.4', '.target sm_90a', '.address_size 64', `.shared .align 128 .b8 big[${9216 * stages}];`,
      '.visible .entry k()', '.reqntid 64', '{', '\t.reg .pred %p<8>;', '\t.reg .b32 %r<32>;',
      '\tmov.u32 %r1, %tid.x;', '\tshr.u32 %r2, %r1, 5;', '\tand.b32 %r3, %r1, 31;', '\tmov.u32 %r4, big;',
      '\tshl.b32 %r5, %r3, 5;', same ? '\tmov.u32 %r7, 0;' : '\tshl.b32 %r7, %r2, 4;', '\tadd.s32 %r5, %r5, %r7;', '\tadd.s32 %r6, %r4, %r5;',
      '\tsetp.eq.u32 %p2, %r2, 0;', '\t@%p2 fence.proxy.async.shared::cta;',
      ...Array.from({ length: stages }, (_, st) => [
        ...Array.from({ length: 9 }, (_, i) => `\tst.shared.v4.u32 [%r6+${9216 * st + 1024 * i}], {%r1, %r1, %r1, %r1};`),
        '\tbar.sync 0;',
      ]).flat(),
      '\tld.shared.u32 %r8, [%r6];', '\tret;', '}', '',
    ].join('\n');

  it('past the cap on slots, still keeps the writes of two roles of one warpgroup apart: verified', () => {
    const p = liftKernel(parsePtx(manyRows(false), 'k.ptx'));
    expect(p.roles.map((r) => r.name)).toEqual(['warp0', 'warp1']);
    // one scattered slot per role (each the 9 × 32 chunks it wrote), not one slot for both
    expect(p.resources.filter((r) => r.kind === 'buffer')).toEqual([{ kind: 'buffer', name: 'big', slots: 2, bytes: 4608 }]);
    expect(verify(p).verdict).toBe('verified');
    // the same rows written by both: a slot of bytes both write, and the write-after-write
    const r = verify(liftKernel(parsePtx(manyRows(true), 'k.ptx')));
    expect(r.violations[0]?.message).toMatch(/write-after-write/);
    // two stages written in two epochs: a slot per role and stage (FlashAttention-3 backward's P)
    const staged = liftKernel(parsePtx(manyRows(false, 2), 'k.ptx'));
    expect(staged.resources.filter((x) => x.kind === 'buffer')).toEqual([{ kind: 'buffer', name: 'big', slots: 4, bytes: 4608 }]);
    expect(verify(staged).verdict).toBe('verified');
  });

  it('keeps two warps writing the same bytes apart, and finds the write-after-write', () => {
    const p = liftKernel(parsePtx(staging(SAME_BYTES), 'k.ptx'));
    // the written chunks are one slot, the gaps between them (only the store reads them) another
    expect(p.resources).toContainEqual({ kind: 'buffer', name: 'buf', slots: 2, bytes: 512 });
    expect(p.roles.map((r) => r.name)).toEqual(['warp0', 'warp1']);
    expect(roleText(p, 1)).toEqual(['write buf[0]', 'bar.sync 0 64', 'fence.proxy.async']);
    const r = verify(p);
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.kind).toBe('race');
    expect(r.violations[0]?.message).toMatch(/write-after-write/);
  });
});
