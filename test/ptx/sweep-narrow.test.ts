// The sweep's last resort: when no single launch value deepens the pipeline and raising every
// open integer together fails (the 64-bit fields turn open pointers into data the kernel branches
// on), the 32-bit scalars are raised together alone (FlashAttention-3 backward's two lengths).
import { describe, expect, it } from 'vitest';
import { liftLaunchPoints } from '../../src/ptx/lift/sweep.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { verifyProgram } from '../../src/verify.ts';

// trips = min(a, b) of a struct's two u32 fields; its u64 field is an optional pointer: when set,
// the kernel branches on the data behind it, and one side arrives (the lifter refuses such a run)
const KERNEL = [
  '.version 8.4', '.target sm_90a', '.address_size 64',
  '.shared .align 8 .b64 bar[1];', '.shared .align 128 .b8 buf[1024];',
  '.visible .entry k(.param .align 8 .b8 k_s[16], .param .u64 k_src)', '.reqntid 32', '{',
  '\t.reg .pred %p<8>;', '\t.reg .b32 %r<16>;', '\t.reg .b64 %rd<8>;',
  '\tmov.u32 %r1, %tid.x;', '\tsetp.eq.u32 %p1, %r1, 0;',
  '\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;', '\tbar.sync 0;',
  '\tld.param.u64 %rd1, [k_s+8];', '\tsetp.eq.u64 %p5, %rd1, 0;', '\t@%p5 bra NOPTR;',
  '\tld.global.u32 %r9, [%rd1];', '\tsetp.eq.u32 %p6, %r9, 0;', '\t@%p6 bra NOPTR;',
  '\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];',
  'NOPTR:',
  '\tld.param.u32 %r2, [k_s];', '\tld.param.u32 %r3, [k_s+4];', '\tmin.u32 %r4, %r2, %r3;',
  '\tld.param.u64 %rd2, [k_src];', '\tmov.u32 %r5, 0;', '\tmov.u32 %r6, 0;',
  'LOOP:',
  '\tsetp.ge.u32 %p2, %r5, %r4;', '\t@%p2 bra DONE;',
  '\tfence.proxy.async.shared::cta;',
  '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 256;',
  '\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd2], 256, [bar];',
  'W:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], %r6;', '\t@!%p3 bra W;',
  '\tld.shared.u32 %r7, [buf];', '\txor.b32 %r6, %r6, 1;', '\tadd.s32 %r5, %r5, 1;', '\tbra.uni LOOP;',
  'DONE:', '\tret;', '}', '',
].join('\n');

describe('sweep: the 32-bit scalars together', () => {
  it('finds the point where both lengths rise, when raising everything is refused', () => {
    const points = liftLaunchPoints(parsePtx(KERNEL, 'k.ptx'), {}, true);
    expect(points.map((p) => p.label)).toEqual(['defaults', 'every open 32-bit integer = 2']);
    const waits = (i: number): number => points[i]?.program.roles[0]?.body.filter((s) => s.kind === 'op' && s.op.kind === 'wait').length ?? 0;
    expect([waits(0), waits(1)]).toEqual([1, 2]);
    for (const p of points) expect(verifyProgram(p.program).verdict).toBe('verified');
  });
});
