// The CTA run is a launch value: a causal attention kernel's trip count grows with %ctaid.x, so
// CTA 0 makes one k-block whatever the sequence length and its ring never wraps. When no open
// value alone or together drives the pipeline, the sweep raises them with the CTA index
// (SageAttention's Hopper kernel: `min(kv_len, (bx + 1) * CTA_Q)` keys). A verdict whose ring
// never wrapped says so.
import { describe, expect, it } from 'vitest';
import { verifyPtx } from '../../src/api.ts';
import { liftLaunchPoints } from '../../src/ptx/lift/sweep.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { verifyProgram } from '../../src/verify.ts';

// trips = ⌈min(n, (ctaid.x + 1) · 64) / 128⌉ over a one-slot TMA ring; `flip` false is the bug:
// the wait's parity is not flipped after a round, so the second round passes at once
const kernel = (flip: boolean): string =>
  [
    '.version 8.4', '.target sm_90a', '.address_size 64',
    '.shared .align 8 .b64 bar[1];', '.shared .align 128 .b8 buf[1024];',
    '.visible .entry k(.param .u32 k_n, .param .u64 k_src)', '.reqntid 32', '{',
    '\t.reg .pred %p<8>;', '\t.reg .b32 %r<16>;', '\t.reg .b64 %rd<8>;',
    '\tmov.u32 %r1, %tid.x;', '\tsetp.eq.u32 %p1, %r1, 0;',
    '\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;', '\tbar.sync 0;',
    '\tld.param.u32 %r2, [k_n];', '\tmov.u32 %r8, %ctaid.x;', '\tadd.s32 %r9, %r8, 1;', '\tshl.b32 %r9, %r9, 6;',
    '\tmin.u32 %r3, %r2, %r9;', '\tadd.s32 %r3, %r3, 127;', '\tshr.u32 %r4, %r3, 7;',
    '\tld.param.u64 %rd2, [k_src];', '\tmov.u32 %r5, 0;', '\tmov.u32 %r6, 0;',
    'LOOP:',
    '\tsetp.ge.u32 %p2, %r5, %r4;', '\t@%p2 bra DONE;',
    '\tfence.proxy.async.shared::cta;',
    '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 256;',
    '\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd2], 256, [bar];',
    'W:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], %r6;', '\t@!%p3 bra W;',
    '\tld.shared.u32 %r7, [buf];',
    ...(flip ? ['\txor.b32 %r6, %r6, 1;'] : []),
    '\tadd.s32 %r5, %r5, 1;', '\tbra.uni LOOP;',
    'DONE:', '\tret;', '}', '',
  ].join('\n');

const waits = (program: { roles: readonly { body: readonly { kind: string; op?: { kind: string } }[] }[] }): number =>
  program.roles.flatMap((r) => r.body).filter((s) => s.kind === 'op' && s.op?.kind === 'wait').length;

describe('sweep: the CTA index with the lengths', () => {
  it('raises the CTA run with the open integers when nothing else drives the ring', () => {
    const points = liftLaunchPoints(parsePtx(kernel(true), 'k.ptx'), {}, true);
    expect(points.map((p) => p.label)).toEqual(['defaults', 'every open integer and %ctaid.x = 192']);
    expect(points.map((p) => waits(p.program))).toEqual([1, 2]);
    // the grid holds the CTA run: %ctaid.x 192 of 193 CTAs
    expect(points[1]?.facts.grid[0]).toBe(193);
    for (const p of points) expect(verifyProgram(p.program).verdict).toBe('verified');
  });

  it('finds the parity bug of the second round, which CTA 0 never reaches', () => {
    expect(verifyPtx(kernel(false), { noSweep: true }).verdict).toBe('verified');
    const swept = verifyPtx(kernel(false));
    expect(swept.verdict).toBe('violation');
    // its parity never changes, so no point wraps a ring "at both parities": the ladder goes to its end
    expect(swept.notes).toContain('this report is for: every open integer and %ctaid.x = 4096');
    expect(swept.violations?.map((v) => v.kind).sort()).toEqual(['protocol', 'race']);
  });

  it('says when no ring wrapped, and not when one did', () => {
    const shallow = (r: { notes?: readonly string[] }): boolean => (r.notes ?? []).some((n) => n.startsWith('no barrier is waited at both parities'));
    expect(shallow(verifyPtx(kernel(true), { noSweep: true }))).toBe(true);
    expect(shallow(verifyPtx(kernel(true)))).toBe(false);
    // one copy, one wait, no loop around them: no second round to miss, no note
    const once = kernel(true).replace(/LOOP:[^]*?\tfence/, '\tfence').replace(/\tadd\.s32 %r5, %r5, 1;\n\tbra\.uni LOOP;\n/, '');
    expect(once).not.toContain('LOOP');
    expect(verifyPtx(once).verdict).toBe('verified');
    expect(shallow(verifyPtx(once))).toBe(false);
  });

  it('a CTA the user gives is a launch value given: the grid holds it, and the sweep leaves it', () => {
    const points = liftLaunchPoints(parsePtx(kernel(true), 'k.ptx'), { cta: 3 }, true);
    expect(points[0]?.facts.grid[0]).toBe(4);
    expect(points[0]?.facts.launch.find((l) => l.v.key === '%ctaid.x')).toMatchObject({ given: true, value: '3' });
    expect(points.every((p) => !p.label.includes('%ctaid.x'))).toBe(true);
    // CTA 3 sees ⌈min(n, 256) / 128⌉ rounds: n drives the ring on its own there
    expect(points.map((p) => p.label)).toContain('k_n = 192');
  });
});

// two slots; trips = ⌈min(n, (ctaid.x + 1) · 192) / 128⌉: at CTA 0 n adds a second trip (the
// second slot) but never a third, so the greedy point waits more and wraps no ring
const twoSlots = [
  '.version 8.4', '.target sm_90a', '.address_size 64',
  '.shared .align 8 .b64 bar[2];', '.shared .align 128 .b8 buf[512];',
  '.visible .entry k(.param .u32 k_n, .param .u64 k_src)', '.reqntid 32', '{',
  '\t.reg .pred %p<8>;', '\t.reg .b32 %r<24>;', '\t.reg .b64 %rd<8>;',
  '\tmov.u32 %r1, %tid.x;', '\tsetp.eq.u32 %p1, %r1, 0;',
  '\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;', '\t@%p1 mbarrier.init.shared::cta.b64 [bar+8], 1;', '\tbar.sync 0;',
  '\tld.param.u32 %r2, [k_n];', '\tmov.u32 %r8, %ctaid.x;', '\tadd.s32 %r9, %r8, 1;', '\tmul.lo.u32 %r9, %r9, 192;',
  '\tmin.u32 %r3, %r2, %r9;', '\tadd.s32 %r3, %r3, 127;', '\tshr.u32 %r4, %r3, 7;',
  '\tld.param.u64 %rd2, [k_src];', '\tmov.u32 %r5, 0;',
  'LOOP:',
  '\tsetp.ge.u32 %p2, %r5, %r4;', '\t@%p2 bra DONE;',
  '\tand.b32 %r7, %r5, 1;', '\tshr.u32 %r6, %r5, 1;', '\tand.b32 %r6, %r6, 1;',
  '\tmov.u32 %r10, bar;', '\tshl.b32 %r11, %r7, 3;', '\tadd.s32 %r12, %r10, %r11;',
  '\tmov.u32 %r13, buf;', '\tshl.b32 %r14, %r7, 8;', '\tadd.s32 %r15, %r13, %r14;',
  '\tfence.proxy.async.shared::cta;',
  '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r12], 256;',
  '\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r15], [%rd2], 256, [%r12];',
  'W:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [%r12], %r6;', '\t@!%p3 bra W;',
  '\tld.shared.u32 %r16, [%r15];',
  '\tadd.s32 %r5, %r5, 1;', '\tbra.uni LOOP;',
  'DONE:', '\tret;', '}', '',
].join('\n');

describe('sweep: the CTA step after a point that wraps no ring', () => {
  it('adds the CTA point when the greedy point only waits more', () => {
    const labels = liftLaunchPoints(parsePtx(twoSlots, 'k.ptx'), {}, true).map((p) => p.label);
    expect(labels[0]).toBe('defaults');
    expect(labels.some((l) => /^k_n = \d+$/.test(l))).toBe(true);
    expect(labels[labels.length - 1]).toMatch(/^every open integer and %ctaid\.x = \d+$/);
    const r = verifyPtx(twoSlots);
    expect(r.verdict).toBe('verified');
    expect((r.notes ?? []).some((n) => n.startsWith('no barrier is waited at both parities'))).toBe(false);
  });
});
