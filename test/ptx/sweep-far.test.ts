// Past the ladder: a persistent kernel whose tile stride is a compile-time SM count (DeepGEMM's
// 132) gives CTA 0 a second tile only past 132 tiles, so a ring deeper than one tile's k-blocks
// wraps only there. Where no sweep step wrapped a ring, each open value alone climbs on past
// 4096 (DeepGEMM's 1d2d GEMM of ../shared/corpus: verified at the defaults, a cross-proxy race
// at shape_m = 12288).
import { describe, expect, it } from 'vitest';
import { verifyPtx } from '../../src/api.ts';
import { liftLaunchPoints } from '../../src/ptx/lift/sweep.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { verifyProgram } from '../../src/verify.ts';

// tiles ⌈m / 128⌉, CTA x takes x, x + 132, …; 4 k-blocks per tile through a 5-stage ring whose
// stage and phase run on across tiles. `carried` false is the bug: they restart with every tile,
// so the second tile waits stage 0 at parity 0 again, which its first round already completed
const kernel = (carried: boolean): string =>
  [
    '.version 8.4', '.target sm_90a', '.address_size 64',
    '.shared .align 8 .b64 bar[5];', '.shared .align 128 .b8 buf[1280];',
    '.visible .entry k(.param .u32 k_m, .param .u64 k_src)', '.reqntid 32', '{',
    '\t.reg .pred %p<8>;', '\t.reg .b32 %r<32>;', '\t.reg .b64 %rd<8>;',
    '\tmov.u32 %r1, %tid.x;', '\tsetp.eq.u32 %p1, %r1, 0;',
    ...[0, 8, 16, 24, 32].map((o) => `\t@%p1 mbarrier.init.shared::cta.b64 [bar+${o}], 1;`),
    '\tbar.sync 0;',
    '\tld.param.u32 %r2, [k_m];', '\tadd.s32 %r3, %r2, 127;', '\tshr.u32 %r3, %r3, 7;',
    '\tld.param.u64 %rd2, [k_src];', '\tmov.u32 %r4, %ctaid.x;', '\tmov.u32 %r5, 0;',
    'TILE:', '\tsetp.ge.u32 %p2, %r4, %r3;', '\t@%p2 bra DONE;', '\tmov.u32 %r6, 0;',
    'KB:', '\tsetp.ge.u32 %p3, %r6, 4;', '\t@%p3 bra NEXT;',
    `\trem.u32 %r7, ${carried ? '%r5' : '%r6'}, 5;`, `\tdiv.u32 %r8, ${carried ? '%r5' : '%r6'}, 5;`, '\tand.b32 %r8, %r8, 1;',
    '\tmov.u32 %r10, bar;', '\tshl.b32 %r9, %r7, 3;', '\tadd.s32 %r11, %r10, %r9;',
    '\tmov.u32 %r13, buf;', '\tshl.b32 %r12, %r7, 8;', '\tadd.s32 %r14, %r13, %r12;',
    '\tfence.proxy.async.shared::cta;',
    '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r11], 256;',
    '\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r14], [%rd2], 256, [%r11];',
    'W:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p4, [%r11], %r8;', '\t@!%p4 bra W;',
    '\tld.shared.u32 %r15, [%r14];',
    '\tadd.s32 %r5, %r5, 1;', '\tadd.s32 %r6, %r6, 1;', '\tbra.uni KB;',
    'NEXT:', '\tadd.s32 %r4, %r4, 132;', '\tbra.uni TILE;',
    'DONE:', '\tret;', '}', '',
  ].join('\n');

const shallow = (r: { notes?: readonly string[] }): boolean => (r.notes ?? []).some((n) => n.startsWith('no barrier is waited at both parities'));

describe('sweep: past the ladder when no ring wrapped', () => {
  it('climbs the tile count past 4096 to the first value that gives CTA 0 a second tile', () => {
    const points = liftLaunchPoints(parsePtx(kernel(true), 'k.ptx'), {}, true);
    // 24576 / 128 = 192 tiles: CTA 0 takes tiles 0 and 132 (16384 is 128 tiles, one each)
    expect(points.map((p) => p.label)).toEqual(['defaults', 'k_m = 24576']);
    for (const p of points) expect(verifyProgram(p.program).verdict).toBe('verified');
    expect(shallow(verifyPtx(kernel(true)))).toBe(false);
  });

  it('finds a ring restarted with every tile, which one tile never shows', () => {
    const one = verifyPtx(kernel(false), { noSweep: true });
    expect(one.verdict).toBe('verified');
    expect(shallow(one)).toBe(true);
    const swept = verifyPtx(kernel(false));
    expect(swept.verdict).toBe('violation');
    expect(swept.notes).toContain('this report is for: k_m = 24576');
  });
});
