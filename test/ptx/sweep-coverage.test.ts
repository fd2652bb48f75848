// The sweep's coverage step: a barrier some probe waited on that no chosen point waits on gets a
// point of its own. The greedy rounds rank values by depth, so a cheap tile count that drives a
// `done` barrier deep wins over the sequence length that makes the chunk loop run at all
// (ThunderKittens' Mamba-2, whose input ring no point of the sweep waited on before 2026-11-27).
import { describe, expect, it } from 'vitest';
import { liftLaunchPoints, type LaunchPoint } from '../../src/ptx/lift/sweep.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { verifyProgram } from '../../src/verify.ts';

// one thread: tiles = a * b; per tile, s / 256 chunks, each two arrive/wait rounds on ring
// (bar[0]), then one round on done (bar[1]). `ringParity`: the chunk's wait parity.
const kernel = (ringParity: string): string =>
  [
    '.version 8.4', '.target sm_90a', '.address_size 64',
    '.shared .align 8 .b64 bar[2];',
    '.visible .entry k(.param .align 8 .b8 k_s[16])', '.reqntid 32', '{',
    '\t.reg .pred %p<8>;', '\t.reg .b32 %r<32>;',
    '\tmov.u32 %r1, %tid.x;', '\tsetp.ne.u32 %p1, %r1, 0;', '\t@%p1 bra DONE;',
    '\tmbarrier.init.shared::cta.b64 [bar], 1;', '\tmbarrier.init.shared::cta.b64 [bar+8], 1;',
    '\tld.param.u32 %r20, [k_s];', '\tld.param.u32 %r21, [k_s+4];', '\tld.param.u32 %r22, [k_s+8];',
    '\tmul.lo.u32 %r24, %r20, %r21;', '\tshr.u32 %r23, %r22, 8;',
    '\tmov.u32 %r10, 0;', '\tmov.u32 %r12, 0;',
    'TILE:', '\tsetp.ge.u32 %p2, %r10, %r24;', '\t@%p2 bra DONE;', '\tmov.u32 %r11, 0;',
    'CHUNK:', '\tsetp.ge.u32 %p3, %r11, %r23;', '\t@%p3 bra CHUNKS_DONE;',
    ...[0, 1].flatMap((i) => [
      '\tmbarrier.arrive.shared::cta.b64 _, [bar];', `\t${ringParity}`,
      `W${i}:`, '\tmbarrier.try_wait.parity.shared::cta.b64 %p4, [bar], %r13;', `\t@!%p4 bra W${i};`, '\tadd.s32 %r12, %r12, 1;',
    ]),
    '\tadd.s32 %r11, %r11, 1;', '\tbra.uni CHUNK;',
    'CHUNKS_DONE:',
    '\tmbarrier.arrive.shared::cta.b64 _, [bar+8];', '\tand.b32 %r14, %r10, 1;',
    'WD:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p5, [bar+8], %r14;', '\t@!%p5 bra WD;',
    '\tadd.s32 %r10, %r10, 1;', '\tbra.uni TILE;',
    'DONE:', '\tret;', '}', '',
  ].join('\n');

const RIGHT = 'and.b32 %r13, %r12, 1;';
// the second ring wait names the parity of the phase before: it waits for a phase nobody completes
const WRONG = 'and.b32 %r13, %r12, 1;\n\tsetp.eq.u32 %p6, %r12, 1;\n\t@%p6 xor.b32 %r13, %r13, 1;';

/** Waits on the ring (bar[0]) in a point's program. */
const ringWaits = (p: LaunchPoint): number =>
  p.program.roles.flatMap((r) => r.body).filter((s) => s.kind === 'op' && s.op.kind === 'wait' && s.op.target.index.kind === 'num' && s.op.target.index.value === 0).length;

describe('sweep: a point for every barrier some probe waited on', () => {
  it('adds the sequence length that makes the ring run, which the greedy rounds passed over', () => {
    const points = liftLaunchPoints(parsePtx(kernel(RIGHT), 'k.ptx'), {}, true);
    const labels = points.map((p) => p.label);
    expect(labels[0]).toBe('defaults');
    // some point raised s (k_s+8) and waits on the ring; the defaults do not
    const ring = points.filter((p) => /k_s\+8 = \d+/.test(p.label));
    expect(ring.length).toBeGreaterThan(0);
    expect(ring.map(ringWaits).some((n) => n > 0)).toBe(true);
    expect(ringWaits(points[0]!)).toBe(0);
    for (const p of points) expect(verifyProgram(p.program).verdict).toBe('verified');
  });

  it('so a wrong parity on the ring, which only the chunk loop reaches, is found', () => {
    const points = liftLaunchPoints(parsePtx(kernel(WRONG), 'k.ptx'), {}, true);
    const verdicts = points.map((p) => verifyProgram(p.program).verdict);
    expect(verdicts).toContain('violation');
  });
});
