// The lifter on small hand-written kernels: one behaviour of the warp interpreter or of the
// event → Program stages each (lanes, divergence, calls, memory, errors, sizing, folding).
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/diag.ts';
import type { Program } from '../../src/ir/program.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { liftKernel, liftKernelWithFacts, liftPtxFile, traceKernel, type LiftOptions } from '../../src/ptx/lift/index.ts';
import { UnsupportedError } from '../../src/ptx/lift/errors.ts';
import { prepare, programOfTrace, traceWith } from '../../src/ptx/lift/lift.ts';
import { roleText } from './helpers.ts';
import { verifyProgram } from '../../src/verify.ts';
import { verifyPtx } from '../../src/api.ts';

interface KernelSpec {
  readonly body: string;
  readonly block?: number | null;
  readonly decls?: string;
  readonly params?: string;
  readonly funcs?: string;
}

function ptx(k: KernelSpec): string {
  const block = k.block === null ? '' : `.reqntid ${k.block ?? 32}\n`;
  return [
    '.version 8.4', '.target sm_90a', '.address_size 64',
    '.shared .align 8 .b64 bar[4];',
    '.shared .align 128 .b8 buf[2048];',
    k.decls ?? '',
    k.funcs ?? '',
    `.visible .entry k(${k.params ?? ''})`,
    `${block}{`,
    '\t.reg .pred %p<16>;', '\t.reg .b32 %r<32>;', '\t.reg .b64 %rd<16>;',
    k.body,
    '\tret;', '}', '',
  ].join('\n');
}

function lift(k: KernelSpec, options: LiftOptions = {}): Program {
  return liftKernel(parsePtx(ptx(k), 'k.ptx'), options);
}

function liftError(k: KernelSpec, options: LiftOptions = {}): InputError {
  try {
    lift(k, options);
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

/** Thread 0 initialises bar[0..3] with count 1, then the CTA syncs (the prologue); %p1 = thread 0. */
const INIT = `\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n${[0, 8, 16, 24].map((o) => `\t@%p1 mbarrier.init.shared::cta.b64 [bar+${o}], 1;\n`).join('')}\tbar.sync 0;\n`;

/** 1-based line of the first line of the kernel text containing `needle`. */
function lineOf(k: KernelSpec, needle: string): number {
  const i = ptx(k).split('\n').findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`no line with ${needle}`);
  return i + 1;
}

describe('lanes and divergence', () => {
  it('counts arrivals once per executing thread: all 32 lanes, or lane 0 only', () => {
    expect(roleText(lift({ body: `${INIT}\tmbarrier.arrive.shared::cta.b64 _, [bar];` }), 0)).toEqual(['arrive bar[0] 32']);
    expect(roleText(lift({ body: `${INIT}\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];` }), 0)).toEqual(['arrive bar[0] 1']);
    expect(roleText(lift({ body: `${INIT}\tmov.u32 %r2, %laneid;\n\tsetp.lt.u32 %p2, %r2, 3;\n\t@%p2 mbarrier.arrive.shared::cta.b64 _, [bar], 2;` }), 0)).toEqual(['arrive bar[0] 6']);
  });

  it('gives lanes that address different barriers their own operations', () => {
    const body = '\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 4;\n\tmov.u32 %r2, bar;\n\tshl.b32 %r3, %r1, 3;\n\tadd.s32 %r4, %r2, %r3;\n\t@%p1 mbarrier.init.shared::cta.b64 [%r4], 2;';
    expect(roleText(lift({ body }), 0)).toEqual(['init bar[0] 2', 'init bar[1] 2', 'init bar[2] 2', 'init bar[3] 2']);
  });

  it('runs a divergent branch for its lanes and reconverges after it', () => {
    const body = `${INIT}\t@!%p1 bra $L_skip;\n\tmbarrier.arrive.shared::cta.b64 _, [bar];\n$L_skip:\n\tbar.sync 1, 32;\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;`;
    expect(roleText(lift({ body }), 0)).toEqual(['arrive bar[0] 1', 'bar.sync 1 32', 'wait bar[0] 0']);
  });

  it('elect.sync elects one lane; its index is uniform', () => {
    const body = `${INIT}\tmov.u32 %r2, %laneid;\n\tsetp.ge.u32 %p2, %r2, 3;\n\t@%p2 elect.sync %r5|%p3, -1;\n\tadd.s32 %r6, %r5, 1;\n\tand.pred %p4, %p2, %p3;\n\t@%p4 mbarrier.arrive.shared::cta.b64 _, [bar], %r6;`;
    // lanes 3.. take part: lane 3 is elected, and every lane sees index 3
    expect(roleText(lift({ body }), 0)).toEqual(['arrive bar[0] 4']);
  });

  it('shfl.sync.idx broadcasts a lane value; vote.sync.ballot and activemask see the lanes', () => {
    const body = `${INIT}\tmov.u32 %r2, %laneid;\n\tadd.s32 %r3, %r2, 5;\n\tshfl.sync.idx.b32 %r4, %r3, 2, 31, -1;\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar], %r4;\n\tsetp.lt.u32 %p4, %r2, 2;\n\tvote.sync.ballot.b32 %r7, %p4, -1;\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar], %r7;`;
    expect(roleText(lift({ body }), 0)).toEqual(['arrive bar[0] 7', 'arrive bar[0] 3']);
  });

  it('a spin loop around try_wait is one wait, whichever lanes spin; a test_wait on a pending phase waits for nothing', () => {
    // phase 0 of bar[0] never completes: the test_wait returns false and the kernel goes on
    const body = `${INIT}$L_spin:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p5, [bar], 1;\n\t@!%p5 bra $L_spin;\n\tmbarrier.test_wait.parity.shared::cta.b64 %p6, [bar+0], 0;`;
    expect(roleText(lift({ body }), 0)).toEqual(['wait bar[0] 1']);
  });

  it('a bare try_wait whose token the kernel drops is no wait; a retry of it is (CUTLASS mixed-input consumer_try_wait)', () => {
    // warp 1 waits for stage 0, then tries stage 1 early for a token it drops (the last k-tile),
    // and signals bar[2]. Taken as blocking (before 2026-11-27), the try on bar[1], which nobody
    // fills, was a wait: a false deadlock (CUTLASS example 55's scale kernels at 8 tiles)
    const body = [
      INIT,
      '	mov.u32 %r2, %laneid;', '	setp.eq.u32 %p2, %r2, 0;', '	setp.ge.u32 %p3, %r1, 32;', '	@%p3 bra $L_consumer;',
      '	@%p2 mbarrier.arrive.shared::cta.b64 _, [bar];', '	bra.uni $L_end;',
      '$L_consumer:',
      '$L_w0:', '	mbarrier.try_wait.parity.shared::cta.b64 %p4, [bar], 0;', '	@!%p4 bra $L_w0;',
      '	mbarrier.try_wait.parity.shared::cta.b64 %p5, [bar+8], 0;', '	selp.b32 %r20, 1, 0, %p5;',
      '	@%p2 mbarrier.arrive.shared::cta.b64 _, [bar+16];',
      '$L_end:',
    ].join('\n');
    const lifted = liftKernelWithFacts(parsePtx(ptx({ body, block: 64 }), 'k.ptx'));
    expect(roleText(lifted.program, 0)).toEqual(['arrive bar[0] 1']);
    expect(roleText(lifted.program, 1)).toEqual(['wait bar[0] 0', 'arrive bar[2] 1']);
    expect(lifted.facts.triedFalse).toEqual([lineOf({ body, block: 64 }, '[bar+8], 0')]);
    expect(verifyProgram(lifted.program).verdict).toBe('verified');
    const report = verifyPtx(ptx({ body, block: 64 }), { noSweep: true });
    expect(report.notes?.some((n) => /^try_wait at line \d+ is not in a spin loop/.test(n))).toBe(true);
  });

  it('a test_wait the kernel polls while it does other work: the other work goes on, and the wait is recorded where it passed', () => {
    // warp 0 polls bar[1] ("done") and, until it has, arrives once on bar[0] ("full"); warp 1 waits
    // for full, then arrives on done. Taken as blocking (before 2026-11-27), warp 0 waited for done
    // before its arrive: a deadlock the kernel does not have (ThunderKittens' lcsf producer polls so)
    const body = [
      INIT,
      '	mov.u32 %r2, %laneid;', '	setp.eq.u32 %p2, %r2, 0;', '	setp.ge.u32 %p3, %r1, 32;', '	@%p3 bra $L_consumer;',
      '	mov.u32 %r9, 0;',
      '$L_poll:', '	mbarrier.test_wait.parity.shared::cta.b64 %p4, [bar+8], 0;', '	@%p4 bra $L_end;',
      '	setp.ne.u32 %p5, %r9, 0;', '	@%p5 bra $L_poll;',
      '	@%p2 mbarrier.arrive.shared::cta.b64 _, [bar];', '	mov.u32 %r9, 1;', '	bra.uni $L_poll;',
      '$L_consumer:', '	mbarrier.try_wait.parity.shared::cta.b64 %p6, [bar], 0;', '	@!%p6 bra $L_consumer;',
      '	@%p2 mbarrier.arrive.shared::cta.b64 _, [bar+8];',
      '$L_end:',
    ].join('\n');
    const k = parsePtx(ptx({ body, block: 64 }), 'k.ptx');
    const lifted = liftKernelWithFacts(k);
    expect(roleText(lifted.program, 0)).toEqual(['arrive bar[0] 1', 'wait bar[1] 0']);
    expect(roleText(lifted.program, 1)).toEqual(['wait bar[0] 0', 'arrive bar[1] 1']);
    expect(lifted.facts.polled).toEqual([lineOf({ body, block: 64 }, 'test_wait')]);
    expect(verifyProgram(lifted.program).verdict).toBe('verified');
    const report = verifyPtx(ptx({ body, block: 64 }), { noSweep: true });
    expect(report.notes?.some((n) => /^test_wait at line \d+ is polled/.test(n))).toBe(true);
  });

  it('one launch has one value per byte: a struct field read as u32 by one warp and as u64 by another reads the same number', () => {
    // ThunderKittens reads a size_t dim as u32 in its consumers and as u64 in its producer: the
    // u64 default (0, a null pointer) and the u32 one (1) gave the two warps different work.
    // Warp 0 arrives once per unit of the field; warp 1 waits once per unit.
    const read = (wide: boolean, reg: string) => (wide ? `\tld.param.u64 %rd1, [k_s+8];\n\tcvt.u32.u64 ${reg}, %rd1;` : `\tld.param.u32 ${reg}, [k_s+8];`);
    const body = (firstWide: boolean) =>
      [
        INIT,
        '\tmov.u32 %r2, %laneid;', '\tsetp.eq.u32 %p2, %r2, 0;', '\tsetp.ge.u32 %p3, %r1, 32;', '\t@%p3 bra $L_second;',
        read(firstWide, '%r4'), '\tmov.u32 %r10, 0;',
        '$L_a:', '\tsetp.ge.u32 %p7, %r10, %r4;', '\t@%p7 bra $L_end;',
        '\t@%p2 mbarrier.arrive.shared::cta.b64 _, [bar];', '\tadd.s32 %r10, %r10, 1;', '\tbra.uni $L_a;',
        '$L_second:', read(!firstWide, '%r5'), '\tmov.u32 %r10, 0;',
        '$L_b:', '\tsetp.ge.u32 %p7, %r10, %r5;', '\t@%p7 bra $L_end;', '\tand.b32 %r11, %r10, 1;',
        '$L_w:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p6, [bar], %r11;', '\t@!%p6 bra $L_w;',
        '\tadd.s32 %r10, %r10, 1;', '\tbra.uni $L_b;',
        '$L_end:',
      ].join('\n');
    for (const wide of [false, true]) {
      const lifted = liftKernelWithFacts(parsePtx(ptx({ body: body(wide), block: 64, params: '.param .align 8 .b8 k_s[16]' }), 'k.ptx'));
      const all = lifted.program.roles.flatMap((_, r) => roleText(lifted.program, r));
      const count = (kind: string) => all.filter((t) => t.startsWith(`${kind} bar[0]`)).length;
      // whichever warp reads first, both read 1: a field some warp reads as a 32-bit count is a count
      expect([count('arrive'), count('wait')]).toEqual([1, 1]);
      expect(lifted.facts.launch.find((l) => l.v.key === 'k_s+8')).toMatchObject({ value: '1', given: false });
      expect(verifyProgram(lifted.program).verdict).toBe('verified');
    }
  });
});

describe('divergence in a rotated loop, and defaults that divide by zero', () => {
  // ThunderKittens' Mamba-2 consumer: the loop's latch (bar.warp.sync; bar.sync) is laid out before
  // the `if (lane 0) arrive` that branches back to it. Lanes split there meet again at the latch,
  // the branch's post-dominator: lane 0's arrive comes before every bar.sync of its iteration.
  // lane 0 of warp w arrives on bar[1 + w] and waits for the phase it completed
  const rotated = (trips: string, threads = 32) =>
    [
      INIT,
      '\tmov.u32 %r2, %laneid;', '\tshr.u32 %r6, %r1, 5;', '\tshl.b32 %r6, %r6, 3;', '\tmov.u32 %r8, bar;', '\tadd.s32 %r8, %r8, 8;', '\tadd.s32 %r8, %r8, %r6;',
      trips, '\tmov.u32 %r3, 0;', '\tbra.uni $L_head;',
      '$L_latch:', '\tbar.warp.sync -1;', `\tbar.sync 1, ${threads};`, '\tadd.s32 %r3, %r3, 1;',
      '$L_head:', '\tsetp.ge.s32 %p3, %r3, %r9;', '\t@%p3 bra $L_done;',
      '\tsetp.ne.u32 %p4, %r2, 0;', '\t@%p4 bra $L_latch;',
      '\tmbarrier.arrive.shared::cta.b64 _, [%r8];', '\tand.b32 %r4, %r3, 1;',
      '$L_w:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p5, [%r8], %r4;', '\t@!%p5 bra $L_w;',
      '\tbra.uni $L_latch;',
      '$L_done:',
    ].join('\n');

  it('lanes split before a latch laid out above them meet again there: each iteration arrives before its bar.sync', () => {
    // two warps, both split: bar.sync 1 counts 64 threads
    const trace = traceKernel(parsePtx(ptx({ body: rotated('\tmov.u32 %r9, 3;', 64), block: 64 }), 'k.ptx'));
    const kinds = (w: number) => (trace.warps[w] ?? []).filter((e) => e.k !== 'init').map((e) => e.k);
    // before 2026-11-27 (smallest pc first) lanes 1-31 ran all three iterations first, and lane 0's
    // arrives came after the warp's last bar.sync: a hang at bar.sync 1 the kernel does not have
    const round = ['arrive', 'wait', 'bar.sync'];
    for (const w of [0, 1]) expect(kinds(w)).toEqual(['bar.sync', ...round, ...round, ...round]);
    expect(trace.run.stuck).toBeUndefined();
    const one = liftKernelWithFacts(parsePtx(ptx({ body: rotated('\tmov.u32 %r9, 3;') }), 'k.ptx'));
    expect(verifyProgram(one.program).verdict).toBe('verified');
  });

  it('an open integer at 1 that the kernel divides by half of is taken at 2, and the report says why', () => {
    // trips = 6 / (n / 2): at n = 1 a division by zero decides the loop's exit
    const trips = ['\tld.param.u32 %r5, [k_n];', '\tshr.u32 %r6, %r5, 1;', '\tmov.u32 %r7, 6;', '\tdiv.u32 %r9, %r7, %r6;'].join('\n');
    const text = ptx({ body: rotated(trips), params: '.param .u32 k_n' });
    const report = verifyPtx(text, { noSweep: true });
    expect(report.verdict).toBe('verified');
    expect(report.notes).toContainEqual(expect.stringMatching(/^integer launch values not given are 2, not 1: at 1 the run is refused: a division by zero at line \d+ decides a branch/));
    expect(report.notes).toContainEqual(expect.stringContaining('k_n=2'));
    // given 1, the user's value stands: refused, with where the unknown came from
    expect(() => verifyPtx(text, { noSweep: true, params: new Map([['k_n', 1]]) })).toThrow(/division by zero at line \d+/);
  });
});

describe('values, memory and calls', () => {
  it('unrolls a loop bounded by a param given by name or by position; an open param is a launch value with its default', () => {
    const body = `${INIT}\tld.param.u32 %r9, [k_K];\n\tmov.u32 %r10, 0;\n$L_loop:\n\tsetp.ge.s32 %p7, %r10, %r9;\n\t@%p7 bra $L_done;\n\tand.b32 %r11, %r10, 1;\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];\n\tmbarrier.try_wait.parity.shared::cta.b64 %p8, [bar], %r11;\n\tadd.s32 %r10, %r10, 1;\n\tbra.uni $L_loop;\n$L_done:`;
    const spec = { body, params: '.param .u32 k_K' };
    const round = (k: number): string[] => ['arrive bar[0] 1', `wait bar[0] ${k & 1}`];
    expect(roleText(lift(spec, { params: new Map([['k_K', 3]]) }), 0)).toEqual([...round(0), ...round(1), ...round(2)]);
    expect(roleText(lift(spec, { params: new Map([['0', 2]]) }), 0)).toEqual([...round(0), ...round(1)]);
    // not given: the loop bound is a launch value, lifted at its default (1) and reported as such
    const open = liftKernelWithFacts(parsePtx(ptx(spec), 'k.ptx'));
    expect(roleText(open.program, 0)).toEqual(round(0));
    expect(open.facts.launch).toContainEqual({ v: { key: 'k_K', kind: 'int', bytes: 4, param: 'k_K' }, value: '1', given: false });
    expect(liftError(spec, { params: new Map([['K', 3]]) }).message).toMatch(/^kernel k has no parameter 'K' \(parameters: 0: k_K\)$/);
  });

  it('runs both sides of a branch on data loaded from global memory; refuses it, naming both lines, when they synchronize differently', () => {
    const same = `${INIT}\tld.param.u64 %rd1, [k_p];\n\tld.global.u32 %r2, [%rd1+4];\n\tsetp.eq.u32 %p2, %r2, 0;\n\t@%p2 bra $L_x;\n\tadd.s32 %r5, %r5, 1;\n$L_x:\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];`;
    expect(roleText(lift({ body: same, params: '.param .u64 k_p' }), 0)).toEqual(['arrive bar[0] 1']);
    // data behind a pointer read from global memory (a launch array's element would be a launch value)
    const body = `${INIT}\tld.param.u64 %rd1, [k_p];\n\tld.global.u64 %rd2, [%rd1];\n\tld.global.u32 %r2, [%rd2+4];\n\tsetp.eq.u32 %p2, %r2, 0;\n\t@%p2 bra $L_x;\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];\n$L_x:`;
    const spec = { body, params: '.param .u64 k_p' };
    const e = liftError(spec);
    expect(e).toBeInstanceOf(UnsupportedError);
    const at = lineOf(spec, '@%p2 bra');
    expect(e.format()).toBe(
      `k.ptx:${at}:2: error: unsupported: branch on data at line ${at} (the condition depends on data loaded at line ${lineOf(spec, 'ld.global.u32')}): its sides synchronize differently (nothing / arrive (line ${lineOf(spec, 'mbarrier.arrive')}))`,
    );
  });

  it('decides a branch on a half-precision launch scalar: f16 and bf16 compares and conversions are computed', () => {
    // CUTLASS example 65's epilogue loads C only where beta != 0, beta an f16 (refused before 2026-11-28)
    const branch = (setp: string) =>
      `\t.reg .b16 %rs<4>;\n${INIT}\tld.param.u16 %rs1, [k_beta];\n\tmov.u32 %r2, 0;\n\tcvt.rn.f16.s32 %rs2, %r2;\n\t${setp};\n\t@%p2 bra $L_x;\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];\n$L_x:`;
    const f16 = { body: branch('setp.eq.f16 %p2, %rs1, %rs2'), params: '.param .u16 k_beta' };
    expect(roleText(lift(f16, { params: new Map([['k_beta', 0]]) }), 0)).toEqual([]);
    expect(roleText(lift(f16, { params: new Map([['k_beta', 0x8000]]) }), 0)).toEqual([]); // −0.0 == 0
    expect(roleText(lift(f16, { params: new Map([['k_beta', 0x3c00]]) }), 0)).toEqual(['arrive bar[0] 1']); // 1.0
    expect(roleText(lift(f16), 0)).toEqual(['arrive bar[0] 1']); // open: bits 1, the smallest subnormal, not 0
    // bf16: 1.0 is 0x3f80, the top half of the f32's bits; 0 converted to bf16 is 0
    const bf16 = { body: branch('setp.le.bf16 %p2, %rs1, %rs2').replace('cvt.rn.f16.s32', 'cvt.rn.bf16.s32'), params: '.param .u16 k_beta' };
    expect(roleText(lift(bf16, { params: new Map([['k_beta', 0x3f80]]) }), 0)).toEqual(['arrive bar[0] 1']);
    expect(roleText(lift(bf16, { params: new Map([['k_beta', 0xbf80]]) }), 0)).toEqual([]);
  });

  it('joins sides of a branch on data that differ only in shared-memory accesses: the run makes the accesses of both', () => {
    // FlashMLA's epilogue reads the row max only where the row sum is not 0: refused before 2026-11-27.
    // Warp 0 writes buf and arrives; warp 1 (waiting first, or not) reads buf on one side only.
    const body = (wait: boolean) =>
      [
        INIT,
        '\tld.param.u64 %rd1, [k_p];', '\tld.global.u64 %rd2, [%rd1];', '\tld.global.u32 %r2, [%rd2+4];',
        '\tsetp.ge.u32 %p3, %r1, 32;', '\t@%p3 bra $L_w1;',
        '\tst.shared.u32 [buf], %r1;', '\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];', '\tbra.uni $L_end;',
        '$L_w1:',
        ...(wait ? ['$L_spin:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p4, [bar], 0;', '\t@!%p4 bra $L_spin;'] : []),
        '\tsetp.eq.u32 %p2, %r2, 0;', '\t@%p2 bra $L_x;', '\tld.shared.u32 %r5, [buf];', '$L_x:',
        '$L_end:',
      ].join('\n');
    const params = '.param .u64 k_p';
    const ordered = lift({ body: body(true), params, block: 64 });
    expect(roleText(ordered, 1).some((t) => t.startsWith('read '))).toBe(true);
    expect(verifyProgram(ordered).verdict).toBe('verified');
    const racy = verifyProgram(lift({ body: body(false), params, block: 64 }));
    expect(racy.violations.map((v) => v.kind)).toContain('race');
  });

  it('a kernel that syncs its cluster, launched as one CTA, lifts: barrier.cluster is its own barrier after the 16 named ones', () => {
    // FlashMLA's sparse decode syncs its cluster whatever its size; launched here as one CTA, the
    // cluster barrier's id (16) was past the program's 16 named barriers before 2026-11-27
    const body = `${INIT}\tbarrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];\n$L_w:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;\n\t@!%p2 bra $L_w;`;
    const program = lift({ body, block: 64 });
    expect(program.namedBarriers).toBe(17);
    expect(roleText(program, 0)).toContain('bar.sync 16 64');
    expect(verifyProgram(program).verdict).toBe('verified');
  });

  it('tensormap.replace writes the descriptor staged in shared memory, cp_fenceproxy reads it, and both are reported', () => {
    const spec: KernelSpec = {
      params: '.param .u64 k_desc',
      body: [
        '\tmov.u32 %r1, %tid.x;', '\tsetp.eq.u32 %p1, %r1, 0;', '\tld.param.u64 %rd1, [k_desc];', '\tmov.u64 %rd2, 4096;',
        '\t@%p1 tensormap.replace.tile.global_address.shared::cta.b1024.b64 [buf+128], %rd2;',
        '\ttensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [buf+128], 128;',
        '\tfence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;',
      ].join('\n'),
    };
    const module = parsePtx(ptx(spec), 'k.ptx');
    // the 128-byte descriptor at buf+128: written by thread 0, then read by the warp's copy to global
    const [w, r, ...rest] = traceKernel(module).warps[0]?.filter((e) => e.k === 'write' || e.k === 'read') ?? [];
    expect([w?.k, r?.k, rest.length]).toEqual(['write', 'read', 0]);
    expect(w && r && w.k === 'write' && r.k === 'read' ? [w.hi - w.lo, r.lo - w.lo, r.hi - r.lo] : []).toEqual([128, 0, 128]);
    expect(liftKernelWithFacts(module).facts.descriptorUpdates).toEqual([lineOf(spec, 'tensormap.replace'), lineOf(spec, 'tensormap.cp_fenceproxy')]);
  });

  // warp 0's lanes each copy 16 bytes with Ampere cp.async and arrive (noinc) once they land; warp 1 waits and reads
  const cpAsync = (arrive: string): KernelSpec => ({
    block: 64,
    body: [
      '\tmov.u32 %r1, %tid.x;', '\tsetp.eq.u32 %p1, %r1, 0;', '\t@%p1 mbarrier.init.shared::cta.b64 [bar], 32;', '\tbar.sync 0;',
      '\tshr.u32 %r2, %r1, 5;', '\tsetp.ne.u32 %p2, %r2, 0;', '\t@%p2 bra CONSUMER;',
      '\tand.b32 %r3, %r1, 31;', '\tshl.b32 %r4, %r3, 4;', '\tmov.u32 %r5, buf;', '\tadd.s32 %r6, %r5, %r4;', '\tmov.u64 %rd1, 0;',
      '\tcp.async.ca.shared.global [%r6], [%rd1], 16;', `\t${arrive}`, '\tbra.uni DONE;',
      'CONSUMER:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;', '\t@!%p3 bra CONSUMER;', '\tld.shared.u32 %r7, [buf];',
      'DONE:',
    ].join('\n'),
  });

  it('cp.async.mbarrier.arrive.noinc is one arrival per thread once its copies land (at issue here): verified', () => {
    const p = lift(cpAsync('cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar];'));
    expect(roleText(p, 0)).toEqual(['write buf[0]', 'arrive bar[0] 32']);
    expect(verifyProgram(p).verdict).toBe('verified');
  });

  it('cp.async.mbarrier.arrive without .noinc adds the arrival it makes: the barrier never completes, a deadlock', () => {
    const r = verifyProgram(lift(cpAsync('cp.async.mbarrier.arrive.shared::cta.b64 [bar];')));
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.kind).toBe('deadlock');
  });

  it('takes an expect_tx count read from a launch value nobody gave as what the copies deliver; a sweep\'s value is not given either', () => {
    const body = `${INIT}\tld.param.u32 %r4, [k_tx];\n\tmov.u64 %rd1, 0;\n\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], %r4;\n\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 256, [bar];\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;\n\tld.shared.u32 %r7, [buf];`;
    const spec = { body, params: '.param .u32 k_tx' };
    const module = parsePtx(ptx(spec), 'k.ptx');
    const assumed = [{ lines: [lineOf(spec, 'arrive.expect_tx')], from: 'k_tx', bytes: 256 }];
    const open = liftKernelWithFacts(module);
    expect(open.facts.assumedTx).toEqual(assumed);
    expect(verifyProgram(open.program).verdict).toBe('verified');
    // given by the user, the count is checked: 128 bytes expected, 256 land
    const given = liftKernelWithFacts(module, { params: new Map([['k_tx', 128]]) });
    expect(given.facts.assumedTx).toBeUndefined();
    expect(verifyProgram(given.program).verdict).toBe('violation');
    // a value the sweep sets (CUTLASS stream-K: every open integer raised together) is still the launch's
    const swept = programOfTrace(module, traceWith(prepare(module, {}), {}, new Map([['k_tx', 128n]])), {});
    expect(swept.facts.assumedTx).toEqual(assumed);
    expect(verifyProgram(swept.program).verdict).toBe('verified');
  });

  it('keeps pointer arithmetic on unknown params symbolic (value tags of bulk copies)', () => {
    const body = `${INIT}\tld.param.u64 %rd1, [k_src];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tadd.s64 %rd3, %rd2, 512;\n\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 256;\n\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf+256], [%rd3], 256, [bar];`;
    const p = lift({ body, params: '.param .u64 k_src' });
    const load = p.roles[0]?.body.find((s) => s.kind === 'op' && s.op.kind === 'tma.load');
    expect(load?.kind === 'op' ? load.op : undefined).toMatchObject({ kind: 'tma.load', target: { name: 'buf' }, bytes: { value: 256 }, value: { kind: 'num', value: 2 } });
  });

  it('spills to local memory and reads back (debug builds keep loop counters there)', () => {
    const decls = '';
    const body = `${INIT}\t.local .align 4 .b8 __local_depot0[8];\n\tmov.u64 %rd1, __local_depot0;\n\tcvta.local.u64 %rd2, %rd1;\n\tmov.u32 %r2, 1;\n\tst.u32 [%rd2+4], %r2;\n\tld.local.u32 %r3, [%rd1+4];\n\tsetp.eq.u32 %p2, %r3, 1;\n\t@%p2 bra $L_one;\n\tmbarrier.arrive.shared::cta.b64 _, [bar];\n$L_one:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], %r3;`;
    expect(roleText(lift({ body, decls }), 0)).toEqual(['wait bar[0] 1']);
  });

  it('converts between generic and shared addresses (cvta.shared / cvta.to.shared, generic mbarrier ops)', () => {
    const body = `${INIT}\tmov.u64 %rd1, bar;\n\tcvta.shared.u64 %rd2, %rd1;\n\tadd.s64 %rd3, %rd2, 8;\n\tmbarrier.arrive.b64 %rd4, [%rd3];\n\tcvta.to.shared.u64 %rd5, %rd3;\n\tcvt.u32.u64 %r6, %rd5;\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;`;
    expect(roleText(lift({ body }), 0)).toEqual(['arrive bar[1] 32', 'wait bar[1] 0']);
  });

  it('maps a cluster address of rank 0 to this CTA (mapa); another rank is another CTA of the cluster', () => {
    const body = `${INIT}\tmov.u32 %r2, bar;\n\tmapa.shared::cluster.u32 %r3, %r2, 0;\n\tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r3];`;
    expect(roleText(lift({ body }), 0)).toEqual(['arrive bar[0] 32']);
    // rank 1: the kernel needs a cluster of two; without a declared shape the lifter widens it
    const two = lift({ body: body.replace('%r2, 0;', '%r2, 1;') });
    expect(two.roles.map((r) => r.name)).toEqual(['warp0_cta0', 'warp0_cta1']);
    // CTA 0's arrive on CTA 1's barrier reads CTA 1's lifetime slot, and CTA 1 exits after its own arrive (cta-exit.ts)
    expect(roleText(two, 'warp0_cta0')).toEqual(['read cta1_alive[0]', 'arrive bar_c1[0] 32']);
    expect(roleText(two, 'warp0_cta1')).toEqual(['arrive bar_c1[0] 32', 'arrive cta1_exit[0] 1', 'wait cta1_exit[0] 0', 'write cta1_alive[0]']);
  });

  it('st.async stores into a peer CTA and completes bytes on its mbarrier: the peer waits for them, then reads', () => {
    // each CTA's thread 0 expects 8 bytes on its own bar[0], sends 8 to its peer's buf with
    // st.async (FlashMLA's 128-head sparse decode sends K so), waits, and reads what it got
    const body = (expect: boolean) =>
      [
        INIT,
        '\tbarrier.cluster.arrive.release.aligned;', '\tbarrier.cluster.wait.acquire.aligned;',
        '\tmov.u32 %r2, %cluster_ctarank;', '\txor.b32 %r3, %r2, 1;',
        '\tmov.u32 %r4, buf;', '\tmapa.shared::cluster.u32 %r5, %r4, %r3;',
        '\tmov.u32 %r6, bar;', '\tmapa.shared::cluster.u32 %r7, %r6, %r3;',
        expect ? '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 8;' : '\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];',
        '\t@%p1 st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%r5], {%r1, %r1}, [%r7];',
        '$L_w:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;', '\t@!%p2 bra $L_w;',
        '\t@%p1 ld.shared.u32 %r8, [buf];',
        '\tbarrier.cluster.arrive.release.aligned;', '\tbarrier.cluster.wait.acquire.aligned;',
      ].join('\n');
    const ok = lift({ body: body(true) }, { cluster: [2, 1, 1] });
    // recorded as a copy into the peer that completes its bytes there (a release, unlike complete_tx)
    expect(roleText(ok, 'warp0_cta0').filter((t) => t.startsWith('tma.load'))).toEqual([expect.stringMatching(/^tma\.load buf_c1\[0\] .*bar_c1\[0\].* 8$/)]);
    expect(verifyProgram(ok).verdict).toBe('verified');
    // no bytes expected: the phase completes on the arrive, and the read may come before the store
    expect(verifyProgram(lift({ body: body(false) }, { cluster: [2, 1, 1] })).verdict).toBe('violation');
  });

  it("a peer address made by flipping bit 24 of a shared address (FlashMLA's get_peer_addr) names the other CTA", () => {
    // the hardware's cluster window keeps a CTA's rank in bits 24-27 of its shared addresses
    const body = [
      INIT,
      '\tbarrier.cluster.arrive.release.aligned;', '\tbarrier.cluster.wait.acquire.aligned;',
      '\tmov.u64 %rd1, buf;', '\tcvta.shared.u64 %rd2, %rd1;', '\txor.b64 %rd3, %rd2, 16777216;', '\tcvta.to.shared.u64 %rd4, %rd3;', '\tcvt.u32.u64 %r5, %rd4;',
      '\tmov.u64 %rd5, bar;', '\tcvta.shared.u64 %rd6, %rd5;', '\txor.b64 %rd7, %rd6, 16777216;', '\tcvta.to.shared.u64 %rd8, %rd7;', '\tcvt.u32.u64 %r7, %rd8;',
      '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 8;',
      '\t@%p1 st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%r5], {%r1, %r1}, [%r7];',
      '$L_w:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;', '\t@!%p2 bra $L_w;',
      '\t@%p1 ld.shared.u32 %r8, [buf];',
      '\tbarrier.cluster.arrive.release.aligned;', '\tbarrier.cluster.wait.acquire.aligned;',
    ].join('\n');
    const p = lift({ body }, { cluster: [2, 1, 1] });
    expect(roleText(p, 'warp0_cta0').filter((t) => t.startsWith('tma.load'))).toEqual([expect.stringMatching(/^tma\.load buf_c1\[0\] bar_c1\[0\] 8$/)]);
    expect(roleText(p, 'warp0_cta1').filter((t) => t.startsWith('tma.load'))).toEqual([expect.stringMatching(/^tma\.load buf_c0\[0\] bar_c0\[0\] 8$/)]);
    expect(verifyProgram(p).verdict).toBe('verified');
  });

  it("a warp's st.async stores in many places are one copy, however many instructions, across its own accesses", () => {
    // every lane stores 8 bytes every 16 (scattered), twice, with a local store between: one copy
    // of 512 bytes into the peer, one slot of its scattered runs
    const body = [
      INIT,
      '\tbarrier.cluster.arrive.release.aligned;', '\tbarrier.cluster.wait.acquire.aligned;',
      '\tmov.u32 %r2, %cluster_ctarank;', '\txor.b32 %r3, %r2, 1;',
      '\tmov.u32 %r4, buf;', '\tshl.b32 %r9, %r1, 4;', '\tadd.s32 %r4, %r4, %r9;', '\tmapa.shared::cluster.u32 %r5, %r4, %r3;',
      '\tmov.u32 %r6, bar;', '\tmapa.shared::cluster.u32 %r7, %r6, %r3;',
      '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 512;',
      '\tst.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%r5], {%r1, %r1}, [%r7];',
      '\tst.shared.u32 [buf+1024], %r1;',
      '\tst.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%r5+512], {%r1, %r1}, [%r7];',
      '$L_w:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;', '\t@!%p2 bra $L_w;',
      '\tld.shared.u32 %r8, [%r4];',
      '\tbarrier.cluster.arrive.release.aligned;', '\tbarrier.cluster.wait.acquire.aligned;',
    ].join('\n');
    const p = lift({ body }, { cluster: [2, 1, 1] });
    const copies = roleText(p, 'warp0_cta0').filter((t) => t.startsWith('tma.load'));
    expect(copies).toEqual([expect.stringMatching(/^tma\.load buf\w*_c1\[\d+\] bar_c1\[0\] 512$/)]);
    expect(verifyProgram(p).verdict).toBe('verified');
  });

  it('picks the cluster shape under which the launch runs to its end when the PTX declares none', () => {
    // every CTA arrives on rank 1's bar[1] (so the kernel needs two CTAs); the CTA at cluster y = 1
    // releases rank 0, which waits: as 2×1×1 no CTA has y = 1 and rank 0 hangs, as 1×2×1 it does not
    const body =
      `${INIT}\tmov.u32 %r2, bar;\n\tadd.u32 %r3, %r2, 8;\n\tmapa.shared::cluster.u32 %r4, %r3, 1;\n\t@%p1 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r4];\n` +
      `\tmov.u32 %r5, %cluster_ctaid.y;\n\tsetp.eq.u32 %p2, %r5, 1;\n\tand.pred %p3, %p2, %p1;\n\tmapa.shared::cluster.u32 %r6, %r2, 0;\n\t@%p3 mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];\n` +
      `\tmov.u32 %r7, %cluster_ctarank;\n\tsetp.eq.u32 %p4, %r7, 0;\n\t@%p4 mbarrier.try_wait.parity.shared::cta.b64 %p5, [bar], 0;`;
    const { facts } = liftKernelWithFacts(parsePtx(ptx({ body }), 'k.ptx'));
    expect(facts.cluster).toEqual([1, 2, 1]);
    expect(facts.clusterNote).toMatch(/taken as 1×2×1, the first shape under which this launch runs to its end \(it hangs under 2×1×1\); give --cluster/);
    expect(facts.stuck).toBeUndefined();
    // the next run of the same kernel (a sweep's next launch point) tries that shape first, and the
    // note does not claim that this launch hangs under the others
    const prepared = prepare(parsePtx(ptx({ body }), 'k.ptx'), {});
    expect(traceWith(prepared, {}, new Map()).clusterNote).toMatch(/the first shape under which this launch runs to its end/);
    expect(traceWith(prepared, {}, new Map()).clusterNote).toMatch(/taken as 1×2×1, the shape an earlier run of this kernel was taken under \(it hung there under 2×1×1\); give --cluster/);
    // given, the shape is kept, and the hang is reported
    const given = liftKernelWithFacts(parsePtx(ptx({ body }), 'k.ptx'), { cluster: [2, 1, 1] }).facts;
    expect(given.clusterNote).toBeUndefined();
    expect(given.stuck).toMatch(/CTA 0/);
    // a kernel indifferent to the orientation keeps x, and says it was not declared
    const plain = liftKernelWithFacts(parsePtx(ptx({ body: body.replace('setp.eq.u32 %p2, %r5, 1', 'setp.eq.u32 %p2, %r5, 0').replace('@%p4 mbarrier.try_wait', '@%p4 mbarrier.arrive.shared::cta.b64 _, [bar+16];\n\t// no wait') }), 'k.ptx')).facts;
    expect(plain.cluster).toEqual([2, 1, 1]);
    expect(plain.clusterNote).toMatch(/does not declare its cluster shape .*: taken as 2×1×1; give --cluster/);
  });

  it('runs a work queue in global memory: atom.global.add on a known address counts from 0, and the loop ends with the tile count', () => {
    // FA3's dynamic tile scheduler: lane 0 takes the next tile from a counter and broadcasts it
    const take = '\t@%p1 atom.global.add.u32 %r3, [%rd1], 1;\n\tshfl.sync.idx.b32 %r4, %r3, 0, 31, -1;\n';
    const body = `${INIT}\tld.param.u64 %rd1, [work];\n\tld.param.u32 %r5, [n];\n${take}$L_loop:\n\tsetp.ge.u32 %p2, %r4, %r5;\n\t@%p2 bra $L_done;\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];\n${take}\tbra.uni $L_loop;\n$L_done:`;
    const params = '.param .u64 work, .param .u32 n';
    const three = liftKernelWithFacts(parsePtx(ptx({ body, params }), 'k.ptx'), { params: new Map([['n', 3]]) });
    expect(roleText(three.program, 0)).toEqual(['arrive bar[0] 1', 'arrive bar[0] 1', 'arrive bar[0] 1']);
    const lines = [...ptx({ body, params }).split('\n').entries()].filter(([, l]) => l.includes('atom.global.add')).map(([i]) => i + 1);
    expect(three.facts.counters).toEqual([{ lines, adds: 4 }]);
    expect(roleText(liftKernelWithFacts(parsePtx(ptx({ body, params }), 'k.ptx')).program, 0)).toEqual(['arrive bar[0] 1']);
    // a counter at an address the lifter cannot know is data, as before
    const unknown = body.replace('ld.param.u64 %rd1, [work];', 'ld.param.u64 %rd2, [work];\n\tld.global.u64 %rd1, [%rd2];');
    expect(liftError({ body: unknown, params }).message).toMatch(/^unsupported: branch on data at line \d+ \(the condition depends on (the result of 'atom\.global\.add\.u32'|a value that depends on)/);
  });

  describe('arrays the launch passes (FA3 varlen: num_m_blocks_ptr[b], cu_seqlens[b])', () => {
    // a struct parameter whose field at +8 points to an int array; the trip count is element 1 (byte 4)
    const params = '.param .align 8 .b8 k_args[16]';
    const loop = (count: string, extra = ''): string =>
      `${INIT}\tld.param.u64 %rd1, [k_args+8];\n\tcvta.to.global.u64 %rd2, %rd1;\n${count}${extra}\tmov.u32 %r10, 0;\n$L_loop:\n\tsetp.ge.s32 %p7, %r10, %r9;\n\t@%p7 bra $L_done;\n\tand.b32 %r11, %r10, 1;\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];\n\tmbarrier.try_wait.parity.shared::cta.b64 %p8, [bar], %r11;\n\tadd.s32 %r10, %r10, 1;\n\tbra.uni $L_loop;\n$L_done:`;
    const body = loop('\tld.global.u32 %r9, [%rd2+4];\n');
    const round = (k: number): string[] => ['arrive bar[0] 1', `wait bar[0] ${k & 1}`];

    it('reads an element through a pointer field left open as a launch value: default 1, fixed with --param NAME+OFF[ELEM]', () => {
      const open = liftKernelWithFacts(parsePtx(ptx({ body, params }), 'k.ptx'));
      expect(roleText(open.program, 0)).toEqual(round(0));
      expect(open.facts.launch).toContainEqual({ v: { key: 'k_args+8[4]', kind: 'int', bytes: 4, param: 'k_args', offset: 8, element: 4 }, value: '1', given: false });
      expect(roleText(lift({ body, params }, { params: new Map([['k_args+8[4]:u32', 3]]) }), 0)).toEqual([...round(0), ...round(1), ...round(2)]);
      // another element of the array is another value
      expect(roleText(lift({ body, params }, { params: new Map([['k_args+8[0]:u32', 3]]) }), 0)).toEqual(round(0));
      // a pointer parameter's array alike
      const scalar = loop('\tld.global.u32 %r9, [%rd2+4];\n').replace('ld.param.u64 %rd1, [k_args+8]', 'ld.param.u64 %rd1, [k_q]');
      expect(roleText(lift({ body: scalar, params: '.param .u64 k_q' }, { params: new Map([['k_q[4]:u32', 2]]) }), 0)).toEqual([...round(0), ...round(1)]);
    });

    it('says when a given element is one the kernel never reads: elements are named by byte offset, not by index', () => {
      // the trip count is the element at byte 4; a user who means "element 1" and writes [1] is told so
      const text = ptx({ body, params });
      const notes = (given: string): readonly string[] => verifyPtx(text, { noSweep: true, params: new Map([[given, 3]]) }).notes ?? [];
      expect(notes('k_args+8[1]:u32')).toContainEqual(
        '--param k_args+8[1] was given, but the kernel read no such launch value at any launch point; of that array it read k_args+8[4] (an element is named by its byte offset)',
      );
      expect(notes('k_args+8[4]:u32').some((n) => n.includes('was given'))).toBe(false);
      // every element given at once counts as read when any one is
      expect(notes('k_args+8[*]:u32').some((n) => n.includes('was given'))).toBe(false);
    });

    it('keeps an open pointer field null for the kernel\'s own checks and for arithmetic other than pointer ± integer', () => {
      // a null check skips the loop; the pointer truncated to 32 bits is 0, and so is its product
      const nullCheck = '\tsetp.eq.u64 %p3, %rd1, 0;\n\tcvt.u32.u64 %r12, %rd2;\n\tshl.b64 %rd3, %rd1, 1;\n\tsetp.ne.u64 %p4, %rd3, 0;\n\tor.b32 %r13, %r12, 0;\n\tsetp.ne.u32 %p5, %r13, 0;\n\tor.pred %p6, %p4, %p5;\n\t@%p6 trap;\n\t@%p3 bra $L_done;\n';
      expect(roleText(lift({ body: loop('\tld.global.u32 %r9, [%rd2+4];\n', nullCheck), params }, { params: new Map([['k_args+8[4]:u32', 3]]) }), 0)).toEqual([]);
      // given by the user, the pointer is a number and what it points to is data
      const e = liftError({ body, params }, { params: new Map([['k_args+8:u64', 4096]]) });
      expect(e.message).toMatch(/^unsupported: branch on data at line \d+ \(the condition depends on data loaded at line \d+\)/);
    });

    it('treats an element the kernel also writes as data, whichever comes first in the run', () => {
      const after = loop('\tld.global.u32 %r9, [%rd2+4];\n').replace('$L_done:', '$L_done:\n\tst.global.u32 [%rd2+4], %r10;');
      const e = liftError({ body: after, params });
      expect(e.message).toMatch(/the kernel writes k_args\+8\[4\]/);
      expect(e.message).toMatch(/^unsupported: branch on data/);
      // a write to another element leaves this one an input
      const other = after.replace('st.global.u32 [%rd2+4]', 'st.global.u32 [%rd2+8]');
      expect(roleText(lift({ body: other, params }, { params: new Map([['k_args+8[4]:u32', 2]]) }), 0)).toEqual([...round(0), ...round(1)]);
    });

    it('leaves data as data: an element only float arithmetic uses, and a flag read with ld.acquire (another CTA writes it)', () => {
      const floatOnly = loop('\tld.param.u32 %r9, [k_args];\n', '\t.reg .f32 %f<4>;\n\tld.global.u32 %r20, [%rd2+12];\n\tcvt.rn.f32.u32 %f1, %r20;\n\tst.global.f32 [%rd2+16], %f1;\n');
      const lifted = liftKernelWithFacts(parsePtx(ptx({ body: floatOnly, params }), 'k.ptx'));
      expect(lifted.facts.launch.map((l) => l.v.key)).toEqual(['k_args+8', 'k_args+0']);
      const spin = body.replace('ld.global.u32 %r9', 'ld.global.acquire.gpu.u32 %r9');
      expect(liftError({ body: spin, params }).message).toMatch(
        /^unsupported: branch on data at line \d+ \(the condition depends on a flag loaded with ld\.acquire at line \d+ \(other threads write it: synchronization through global memory is not modelled\)\)/,
      );
    });

    it('the element decides the verdict: a parity bug in the third round is found when the element lets the loop get there', () => {
      // round 2 waits the wrong parity (1 instead of 0): the phase it names completed long ago
      const buggy = body.replace('and.b32 %r11, %r10, 1;', 'and.b32 %r11, %r10, 1;\n\tsetp.eq.u32 %p9, %r10, 2;\n\tselp.u32 %r11, 1, %r11, %p9;');
      expect(verifyProgram(lift({ body: buggy, params })).verdict).toBe('verified');
      const at3 = verifyProgram(lift({ body: buggy, params }, { params: new Map([['k_args+8[4]:u32', 3]]) }));
      expect(at3.verdict).toBe('violation');
      expect(at3.violations.map((v) => v.kind)).toEqual(['protocol']);
    });
  });

  it('takes a spin on a flag another CTA sets (stream-K) to end, and says so; a loop that also stores is not a spin', () => {
    // thread 0 spins until the flag is 7, then the warp meets at a named barrier (CUTLASS's wait_eq)
    const spinLoop = '$L_spin:\n\tld.global.acquire.gpu.b32 %r2, [%rd1];\n\tsetp.ne.s32 %p2, %r2, 7;\n\t@%p2 bra $L_spin;\n';
    const body = (loop: string): string =>
      `${INIT}\tld.param.u64 %rd1, [k_flag];\n\tsetp.ne.u32 %p3, %r1, 0;\n\t@%p3 bra $L_after;\n${loop}$L_after:\n\tbar.sync 1, 32;\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];\n\tmbarrier.try_wait.parity.shared::cta.b64 %p8, [bar], 0;`;
    const params = '.param .u64 k_flag';
    const backward = { body: body(spinLoop), params };
    const lifted = liftKernelWithFacts(parsePtx(ptx(backward), 'k.ptx'));
    expect(lifted.facts.spins).toEqual([{ line: lineOf(backward, '@%p2 bra $L_spin'), flag: lineOf(backward, 'ld.global.acquire'), times: 1 }]);
    expect(roleText(lifted.program, 0).filter((x) => x.startsWith('arrive') || x.startsWith('wait'))).toEqual(['arrive bar[0] 1', 'wait bar[0] 0']);
    expect(verifyProgram(lifted.program).verdict).toBe('verified');
    // the exit test as a forward branch past the loop's closing jump
    const forwardLoop = '$L_spin:\n\tld.global.acquire.gpu.b32 %r2, [%rd1];\n\tsetp.eq.s32 %p2, %r2, 7;\n\t@%p2 bra $L_after;\n\tbra.uni $L_spin;\n';
    const forward = { body: body(forwardLoop), params };
    expect(liftKernelWithFacts(parsePtx(ptx(forward), 'k.ptx')).facts.spins).toEqual([{ line: lineOf(forward, '@%p2 bra $L_after'), flag: lineOf(forward, 'ld.global.acquire'), times: 1 }]);
    // a loop that writes memory on each trip is a loop on data, not a wait: refused as before
    const storing = body(spinLoop.replace('\tsetp.ne.s32', '\tst.global.u32 [%rd1+4], %r2;\n\tsetp.ne.s32'));
    expect(liftError({ body: storing, params }).message).toMatch(/^unsupported: branch on data at line \d+ \(the condition depends on a flag loaded with ld\.acquire at line \d+/);
    // a plain load of data (behind a pointer read from global memory) is not a flag: no spin is assumed
    const data = body(spinLoop.replace('ld.global.acquire.gpu.b32 %r2, [%rd1]', 'ld.global.b32 %r2, [%rd2]')).replace('ld.param.u64 %rd1, [k_flag];', 'ld.param.u64 %rd1, [k_flag];\n\tld.global.u64 %rd2, [%rd1];');
    expect(liftError({ body: data, params }).message).toMatch(/^unsupported: branch on data at line \d+ \(the condition depends on data loaded at line \d+\)/);
  });

  it('joins the sides of branches on data, nested too: a register one side wrote differently is unknown after', () => {
    // data behind a pointer read from global memory; %r5 is 1 or 2 after the outer branch,
    // whatever the inner one did; %r6 is 3 on every path
    const branches =
      '\tld.param.u64 %rd1, [k_p];\n\tld.global.u64 %rd2, [%rd1];\n\tld.global.u32 %r2, [%rd2];\n\tld.global.u32 %r3, [%rd2+4];\n\tmov.u32 %r5, 1;\n\tmov.u32 %r6, 3;\n' +
      '\tsetp.eq.u32 %p2, %r2, 0;\n\t@%p2 bra $L_a;\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p3 bra $L_b;\n\tmov.u32 %r6, 3;\n$L_b:\n\tmov.u32 %r5, 2;\n$L_a:\n';
    const params = '.param .u64 k_p';
    // %r6 counts the arrivals: known after the join
    const known = { body: `${INIT}${branches}\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar], %r6;`, params };
    expect(roleText(lift(known), 0)).toEqual(['arrive bar[0] 3']);
    // %r5 does not: the lifter says which branch made it unknown
    const unknown = { body: `${INIT}${branches}\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar], %r5;`, params };
    expect(liftError(unknown).message).toMatch(new RegExp(`a value that depends on the branch on data at line ${lineOf(unknown, '@%p2 bra $L_a')}`));
    // the inner branch alone leaves %r5 at 2 on both its sides: with the outer one gone, it is known
    const inner = { body: `${INIT}${branches.replace('\t@%p2 bra $L_a;\n', '')}\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar], %r5;`, params };
    expect(roleText(lift(inner), 0)).toEqual(['arrive bar[0] 2']);
    // an inner join inside the first side is undone with it: the second side reads %r7 as 3, so %r8 is 3 on both
    const undo =
      '\tld.param.u64 %rd1, [k_p];\n\tld.global.u64 %rd2, [%rd1];\n\tld.global.u32 %r2, [%rd2];\n\tld.global.u32 %r3, [%rd2+4];\n\tmov.u32 %r7, 3;\n' +
      '\tsetp.eq.u32 %p2, %r2, 0;\n\tsetp.eq.u32 %p3, %r3, 0;\n\t@%p2 bra $L_t;\n\tmov.u32 %r8, %r7;\n\tbra.uni $L_join;\n' +
      '$L_t:\n\t@%p3 bra $L_w;\n\tbra.uni $L_in;\n$L_w:\n\tmov.u32 %r7, 9;\n$L_in:\n\tmov.u32 %r8, 3;\n$L_join:\n';
    expect(roleText(lift({ body: `${INIT}${undo}\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar], %r8;`, params }), 0)).toEqual(['arrive bar[0] 3']);
  });

  it('follows .func calls with .param arguments and return values', () => {
    const funcs = `.func (.param .b32 ret) arrive_on(.param .b32 addr, .param .b32 n)\n{\n\t.reg .b32 %a<4>;\n\tld.param.b32 %a1, [addr];\n\tld.param.b32 %a2, [n];\n\tmbarrier.arrive.shared::cta.b64 _, [%a1], %a2;\n\tadd.s32 %a3, %a2, 1;\n\tst.param.b32 [ret], %a3;\n\tret;\n}`;
    const body = `${INIT}\tmov.u32 %r2, bar;\n\tadd.s32 %r2, %r2, 16;\n\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0], %r2;\n\t.param .b32 param1;\n\tst.param.b32 [param1], 3;\n\t.param .b32 retval0;\n\t@%p1 call.uni (retval0), arrive_on, (param0, param1);\n\tld.param.b32 %r3, [retval0];\n\t}\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar], %r3;`;
    const p = lift({ body, funcs });
    expect(roleText(p, 0)).toEqual(['arrive bar[2] 3', 'arrive bar[0] 4']);
    const first = p.roles[0]?.body[0];
    expect(first?.loc?.line).toBe(lineOf({ body, funcs }, 'mbarrier.arrive.shared::cta.b64 _, [%a1]')); // inside the function
  });

  it('treats unknown instructions as opaque: results unknown, no crash; a branch on them names the opcode', () => {
    const body = `${INIT}\tfrobnicate.sync.b32 %r2, %r1, 7;\n\tsetp.eq.u32 %p2, %r2, 0;\n\t@%p2 bra $L_x;\n\tmbarrier.arrive.shared::cta.b64 _, [bar];\n$L_x:`;
    expect(liftError({ body }).message).toMatch(
      new RegExp(`^unsupported: branch on data at line ${lineOf({ body }, '@%p2 bra')} \\(the condition depends on the result of 'frobnicate\\.sync\\.b32' at line ${lineOf({ body }, 'frobnicate')}\\)`),
    );
    expect(roleText(lift({ body: `${INIT}\tfrobnicate.sync.b32 %r2, %r1, 7;\n\tmbarrier.arrive.shared::cta.b64 _, [bar];` }), 0)).toEqual(['arrive bar[0] 32']);
  });

  it('computes integer ALU results exactly, including 64-bit descriptors', () => {
    const body = `${INIT}\tmov.u32 %r2, buf;\n\tadd.s32 %r2, %r2, 1024;\n\tbfe.u32 %r3, %r2, 4, 14;\n\tcvt.u64.u32 %rd1, %r3;\n\tor.b64 %rd2, %rd1, 4611686293305294848;\n\tadd.s64 %rd3, %rd2, 2;\n\tmov.pred %p9, -1;\n\twgmma.fence.sync.aligned;\n\twgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, %rd2, %rd3, %p9, 1, 1, 0, 0;\n\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;`;
    // buf: 2048 bytes; the descriptors address 1024 and 1056 of it
    const p = lift({ body });
    expect(roleText(p, 0)).toEqual(['wgmma.issue buf[0]', 'wgmma.commit', 'wgmma.wait 0']);
    // what the two descriptors read (128B swizzle, 8-row groups 1024 bytes apart), up to the end of buf
    expect(p.resources.find((r) => r.kind === 'buffer')).toEqual({ kind: 'buffer', name: 'buf', slots: 1, bytes: 1024 });
  });
});

describe('refusals and limits', () => {
  it('models try_wait on a state token: the arrive names its phase, the wait waits for it', () => {
    const body = `${INIT}\tmbarrier.arrive.shared::cta.b64 %rd1, [bar+16];\n\tmbarrier.try_wait.shared::cta.b64 %p2, [bar+16], %rd1;`;
    // 32 arrivals on a count-1 barrier: the lifter records them; the checker finds the overflow
    const one = `${INIT}\t@%p1 mbarrier.arrive.shared::cta.b64 %rd1, [bar+16];\n\t@%p1 mbarrier.try_wait.shared::cta.b64 %p2, [bar+16], %rd1;`;
    expect(roleText(lift({ body: one }), 0)).toEqual(['arrive bar[2] 1', 'wait.token']);
    const p = lift({ body: one });
    const ops = p.roles[0]?.body.flatMap((x) => (x.kind === 'op' ? [x.op] : [])) ?? [];
    expect(ops[0]).toMatchObject({ kind: 'arrive', token: 't0' });
    expect(ops[1]).toMatchObject({ kind: 'wait.token', token: 't0' });
    expect(roleText(lift({ body }), 0)).toEqual(['arrive bar[2] 32', 'wait.token']);
    // lanes that wait on a token no arrive of theirs wrote: the register is undefined on hardware
    const unset = one.replace('@%p1 mbarrier.try_wait', 'mbarrier.try_wait');
    expect(liftError({ body: unset }).message).toMatch(/waits on a state token that does not come from an arrive/);
  });

  it('refuses a barrier address that depends on loaded data', () => {
    const body = `\tld.shared.u32 %r2, [buf];\n\tmbarrier.arrive.shared::cta.b64 _, [%r2];`;
    expect(liftError({ body }).message).toBe("unsupported: the barrier address of 'mbarrier.arrive.shared::cta.b64' at line 15 depends on shared-memory data loaded at line 14");
  });

  it('refuses tcgen05 and arrive_drop', () => {
    expect(liftError({ body: '\ttcgen05.fence::after_thread_sync;' }).message).toMatch(/^unsupported: 'tcgen05\.fence::after_thread_sync' at line 14 \(Blackwell/);
    expect(liftError({ body: '\tmbarrier.arrive_drop.shared::cta.b64 _, [bar];' }).message).toMatch(/arrive_drop lowers the expected count/);
  });

  it('reports a trap the kernel reaches', () => {
    expect(liftError({ body: '\ttrap;' }).format()).toBe('k.ptx:14:2: error: unsupported: the kernel executes trap at line 14 with these launch values (it would abort)');
  });

  it('stops an endless loop at the instruction budget', () => {
    const e = liftError({ body: '$L_forever:\n\tbra.uni $L_forever;' }, { maxSteps: 10_000 });
    expect(e.message).toMatch(/^unsupported: execution stopped after 10000 instructions in warp 0, at line 15/);
  });

  it('needs a block size: .reqntid, .maxntid or --block', () => {
    expect(liftError({ body: '', block: null }).message).toBe('kernel k has no .reqntid or .maxntid; give the block size with --block N');
    expect(lift({ body: `${INIT}\tmbarrier.arrive.shared::cta.b64 _, [bar];`, block: null }, { block: 64 }).roles.map((r) => [r.name, r.warps])).toEqual([['warps0_1', 2]]);
  });

  it('reports a value the Program cannot hold at the PTX position of the operation', () => {
    const body = `${INIT}\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar], 0;`;
    const e = liftError({ body });
    expect(e.loc?.line).toBe(lineOf({ body }, '[bar], 0;'));
    expect(e.message).toMatch(/count/);
  });

  it('picks kernels: liftKernel needs a name when there are several, liftPtxFile lifts all', () => {
    const two = `${ptx({ body: '' })}\n.visible .entry k2()\n.reqntid 32\n{\n\tret;\n}\n`;
    expect(() => liftKernel(parsePtx(two, 'two.ptx'))).toThrow(/has 2 kernels; name one with --kernel:\n {2}k\n {2}k2$/);
    expect(liftPtxFile(two, 'two.ptx').map((k) => k.kernel)).toEqual(['k', 'k2']);
    expect(liftPtxFile(two, 'two.ptx', { kernel: 'k2' }).map((k) => k.kernel)).toEqual(['k2']);
    expect(() => liftPtxFile(two, 'two.ptx', { kernel: 'nope' })).toThrow(/no kernel named 'nope' in two\.ptx \(kernels: k, k2\)/);
  });

  it('rejects an undeclared register and an unknown label with their positions', () => {
    expect(liftError({ body: '\tadd.s32 %q1, %q1, 1;' }).format()).toBe("k.ptx:14:10: error: undeclared register '%q1'");
    expect(liftError({ body: '\tbra.uni $L_nowhere;' }).format()).toBe("k.ptx:14:10: error: unknown label '$L_nowhere'");
  });
});

describe('events → program', () => {
  it('turns prologue inits (before the first CTA-wide bar.sync) into declarations and drops that bar.sync', () => {
    const p = lift({ body: `${INIT}\tmbarrier.arrive.shared::cta.b64 _, [bar];` });
    expect(p.resources).toEqual([{ kind: 'mbarrier', name: 'bar', size: 4, count: 1 }]);
    expect(roleText(p, 0)).toEqual(['arrive bar[0] 32']);
  });

  it('keeps inits as ops when repeated, done by several threads, or not followed by bar.sync', () => {
    const twice = `\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;\n\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;\n\tbar.sync 0;`;
    expect(roleText(lift({ body: twice }), 0)).toEqual(['init bar[0] 1', 'init bar[0] 1', 'bar.sync 0 32']);
    expect(roleText(lift({ body: '\tmbarrier.init.shared::cta.b64 [bar], 1;\n\tbar.sync 0;' }), 0)).toEqual([...Array(32).fill('init bar[0] 1'), 'bar.sync 0 32']);
    expect(roleText(lift({ body: '\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;' }), 0)).toEqual(['init bar[0] 1']);
  });

  it('keeps the prologue barrier when something else happens before it (fast.cu M11 stages its schedule there)', () => {
    // warp 0 writes buf before the barrier, warp 1 reads it after: the barrier is what orders them
    const body = `\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;\n\t@%p1 st.shared.u32 [buf], %r1;\n\tbar.sync 0;\n\tsetp.eq.u32 %p2, %r1, 32;\n\t@%p2 ld.shared.u32 %r3, [buf];\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];`;
    const p = lift({ body, block: 64 });
    expect(p.resources.find((r) => r.name === 'bar')).toMatchObject({ kind: 'mbarrier', count: 1 });
    expect(roleText(p, 0)).toEqual(['write buf[0]', 'bar.sync 0 64', 'arrive bar[0] 1']);
    expect(verifyProgram(p).verdict).toBe('verified');
  });

  it('spends the cap on slots where the pieces are: a small array beside a finely written area keeps its own slots', () => {
    // warps 0 and 1 write alternate cells of 2,400 bytes (600 pieces, past the cap of 512); apart
    // from them, each writes its own cell of a small array (disjoint bytes, no race) that warp 1
    // reads after a bar.sync
    const many = `\tsetp.eq.u32 %p2, %r1, 32;\n\tmov.u32 %r20, 0;\n$L_w:\n\tshl.b32 %r21, %r20, 3;\n\tmov.u32 %r22, big;\n\tadd.s32 %r23, %r22, %r21;\n\t@%p1 st.shared.u32 [%r23], %r20;\n\t@%p2 st.shared.u32 [%r23+4], %r20;\n\tadd.s32 %r20, %r20, 1;\n\tsetp.lt.u32 %p3, %r20, 300;\n\t@%p3 bra $L_w;\n`;
    const own = `\t@%p1 st.shared.u32 [big+3000], %r1;\n\t@%p2 st.shared.u32 [big+3004], %r1;\n\tbar.sync 0;\n\t@%p2 ld.shared.v2.u32 {%r24, %r25}, [big+3000];\n`;
    const p = lift({ body: `${INIT}${many}${own}`, block: 64, decls: '.shared .align 16 .b8 big[4096];' });
    // the finely written area, cut coarsely, is one scattered slot per role (it used to get no slot
    // at all: its writes were not modelled), and the small array keeps its two cells
    expect(p.resources.filter((r) => r.kind === 'buffer')).toEqual([
      { kind: 'buffer', name: 'big_0', slots: 2, bytes: 1200 },
      { kind: 'buffer', name: 'big_3000', slots: 2, bytes: 4 },
    ]);
    expect(verifyProgram(p).verdict).toBe('verified');
  });

  it('splits a multi-thread arrive.expect_tx into expect_tx and arrive', () => {
    const body = `${INIT}\tmov.u32 %r2, %laneid;\n\tsetp.lt.u32 %p2, %r2, 2;\n\t@%p2 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 100;`;
    expect(roleText(lift({ body }), 0)).toEqual(['expect_tx bar[0] 200', 'arrive bar[0] 2']);
  });

  it('sizes tensor copies from the ring stride, then expect_tx, or --tma-bytes', () => {
    const copy = (dst: number, b: number, x: number): string =>
      `\t@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [buf+${dst}], [%rd1, {${x}, 0}], [bar+${8 * b}];`;
    const head = `${INIT}\tmov.b64 %rd1, k_map;\n`;
    const params = '.param .align 64 .b8 k_map[128]';
    // two slots 512 apart: the stride says 512, although expect_tx says 1000 (a wrong expect_tx stays visible)
    const expect2 = (b: number, bytes: number): string => `\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar+${8 * b}], ${bytes};`;
    const ring = `${head}${expect2(0, 1000)}\n${copy(0, 0, 0)}\n${expect2(1, 512)}\n${copy(512, 1, 64)}`;
    expect(roleText(lift({ body: ring, params }), 0).filter((o) => o.startsWith('tma'))).toEqual(['tma.load buf[0] bar[0] 512', 'tma.load buf[1] bar[1] 512']);
    // one copy: expect_tx decides
    const one = `${head}\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 768;\n${copy(0, 0, 0)}`;
    expect(roleText(lift({ body: one, params }), 0).filter((o) => o.startsWith('tma'))).toEqual(['tma.load buf[0] bar[0] 768']);
    expect(roleText(lift({ body: one, params }, { tmaBytes: 256 }), 0).filter((o) => o.startsWith('tma'))).toEqual(['tma.load buf[0] bar[0] 256']);
  });

  it('sizes the copies of two maps that take turns through one ring by the ring\'s step, not each map\'s (CUTLASS FMHA backward)', () => {
    // k_map fills slots 0 and 2 of a 512-byte ring, v_map slots 1 and 3; the consumer reads the
    // whole ring, so the reads of adjacent slots merge: each map's stride (1024) would size its
    // copies over the next slot, where the other map's copy lands
    const copy = (map: string, dst: number, b: number): string =>
      `\tmov.b64 %rd1, ${map};\n\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar+${8 * b}], 512;\n\t@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [buf+${dst}], [%rd1, {${dst}, 0}], [bar+${8 * b}];\n`;
    const reads = [0, 1, 2, 3].map((b) => `\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+${8 * b}], 0;\n\tmov.u32 %r4, %laneid;\n\tshl.b32 %r4, %r4, 4;\n\tmov.u32 %r5, buf;\n\tadd.s32 %r5, %r5, %r4;\n\tld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r5+${512 * b}];\n`).join('');
    const body = `${INIT}${copy('k_map', 0, 0)}${copy('v_map', 512, 1)}${copy('k_map', 1024, 2)}${copy('v_map', 1536, 3)}${reads}`;
    const p = lift({ body, params: '.param .align 64 .b8 k_map[128], .param .align 64 .b8 v_map[128]' });
    expect(roleText(p, 0).filter((o) => o.startsWith('tma'))).toEqual(['tma.load buf_0[0] bar[0] 512', 'tma.load buf_512[0] bar[1] 512', 'tma.load buf_1024[0] bar[2] 512', 'tma.load buf_1536[0] bar[3] 512']);
    expect(verifyProgram(p).verdict).toBe('verified');
  });

  it('bounds a copy\'s footprint by where another map\'s copy lands (CUTLASS FMHA forward with one k-block)', () => {
    // k_map lands at buf+0 on bar[0], v_map at buf+512 on bar[1], once each (no ring stride); the
    // consumer reads both tiles, whose reads merge into [0, 1024): k's copy would be sized over v's
    const copy = (map: string, dst: number, b: number): string =>
      `\tmov.b64 %rd1, ${map};\n\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar+${8 * b}], 512;\n\t@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [buf+${dst}], [%rd1, {0, 0}], [bar+${8 * b}];\n`;
    const reads = [0, 1].map((b) => `\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+${8 * b}], 0;\n\tmov.u32 %r4, %laneid;\n\tshl.b32 %r4, %r4, 4;\n\tmov.u32 %r5, buf;\n\tadd.s32 %r5, %r5, %r4;\n\tld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r5+${512 * b}];\n`).join('');
    const p = lift({ body: `${INIT}${copy('k_map', 0, 0)}${copy('v_map', 512, 1)}${reads}`, params: '.param .align 64 .b8 k_map[128], .param .align 64 .b8 v_map[128]' });
    expect(roleText(p, 0).filter((o) => o.startsWith('tma'))).toEqual(['tma.load buf_0[0] bar[0] 512', 'tma.load buf_512[0] bar[1] 512']);
    expect(verifyProgram(p).verdict).toBe('verified');
  });

  it('bounds a multicast copy by the other CTA\'s copy landing beside it (CUTLASS ptr-array on a 1x2 cluster: one tensor map per CTA)', () => {
    // each CTA of a 2-CTA cluster loads its half of a 1,024-byte tile into both CTAs (multicast),
    // CTA 0 through a_map at buf+0, CTA 1 through b_map at buf+512, both signalling bar in each
    // CTA; the consumers read the whole tile. The reads merge into [0, 1024): bounded only by copies
    // of its own CTA's barrier, CTA 0's half was sized over CTA 1's (a false write-after-write)
    const body = [
      INIT, '\tbarrier.cluster.arrive.release.aligned;', '\tbarrier.cluster.wait.acquire.aligned;',
      '\tmov.u32 %r20, %cluster_ctarank;', '\tmov.u16 %rs1, 3;',
      // the byte count is a launch value, as CUTLASS's ptr-array kernels read it from their Params:
      // it says nothing about the box sizes
      '\tld.param.u32 %r30, [cfg];', '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], %r30;',
      '\tsetp.eq.u32 %p10, %r20, 0;', '\tand.pred %p11, %p10, %p1;', '\tsetp.ne.u32 %p12, %r20, 0;', '\tand.pred %p13, %p12, %p1;',
      '\tmov.b64 %rd1, a_map;', '\tmov.b64 %rd2, b_map;',
      '\t@%p11 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [buf], [%rd1, {0, 0}], [bar], %rs1;',
      '\t@%p13 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [buf+512], [%rd2, {0, 0}], [bar], %rs1;',
      'W:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;', '\t@!%p3 bra W;',
      '\tmov.u32 %r4, %laneid;', '\tshl.b32 %r4, %r4, 4;', '\tmov.u32 %r5, buf;', '\tadd.s32 %r5, %r5, %r4;',
      '\tld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r5];', '\tld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r5+512];',
      '\tbarrier.cluster.arrive.release.aligned;', '\tbarrier.cluster.wait.acquire.aligned;',
    ].join('\n');
    const text = ptx({ body, params: '.param .align 64 .b8 a_map[128], .param .align 64 .b8 b_map[128], .param .u32 cfg' }).replace('.reqntid 32\n', '.reqntid 32\n.reqnctapercluster 2, 1, 1\n').replace('\t.reg .pred %p<16>;', '\t.reg .pred %p<16>;\n\t.reg .b16 %rs<4>;');
    const p = liftKernel(parsePtx(text, 'k.ptx'), {});
    const copies = p.roles.map((_, i) => roleText(p, i).filter((o) => o.startsWith('tma')));
    expect(copies).toEqual([
      ['tma.load buf_0_c0[0] bar_c0[0] 512', 'tma.load buf_0_c1[0] bar_c1[0] 512'],
      ['tma.load buf_512_c0[0] bar_c0[0] 512', 'tma.load buf_512_c1[0] bar_c1[0] 512'],
    ]);
    expect(verifyProgram(p).verdict).toBe('verified');
  });

  it('bounds a multicast copy by the copies of the next stage of its ring (CUTLASS example 57: ptr-array maps named per CTA)', () => {
    // two stages (bar[0], bar[1]); in stage s, B's 1,024 bytes at buf+1024s come in two halves,
    // CTA 0's through b0_map and CTA 1's (at +512) through b1_map, each into both CTAs; each CTA
    // loads its own 512 bytes of A at buf+2048+512s, CTA 0 through a0_map and CTA 1 through
    // b0_map (CUTLASS's per-SM descriptor copies give one CTA's B map the address of the next
    // one's A map). The reads of B's stages merge: bounded only by its own barrier's copies and
    // its own map, CTA 1's half was sized 1,024 bytes, over stage 1's lower half (a false race)
    const copy = (pred: string, map: string, dst: number, s: number, multicast: boolean): string =>
      `\t@${pred} cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes${multicast ? '.multicast::cluster' : ''} [buf+${dst}], [${map}, {0, ${s}}], [bar+${8 * s}]${multicast ? ', %rs1' : ''};`;
    const stage = (s: number): string[] => [
      `\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar+${8 * s}], %r30;`,
      copy('%p11', '%rd1', 1024 * s, s, true), copy('%p13', '%rd2', 1024 * s + 512, s, true),
      copy('%p11', '%rd3', 2048 + 512 * s, s, false), copy('%p13', '%rd1', 2048 + 512 * s, s, false),
    ];
    const read = (s: number): string[] => [
      `W${s}:`, `\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+${8 * s}], 0;`, `\t@!%p3 bra W${s};`,
      ...[1024 * s, 1024 * s + 512, 2048 + 512 * s].map((at) => `\tld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r5+${at}];`),
    ];
    const body = [
      INIT, '\tbarrier.cluster.arrive.release.aligned;', '\tbarrier.cluster.wait.acquire.aligned;',
      '\tmov.u32 %r20, %cluster_ctarank;', '\tmov.u16 %rs1, 3;', '\tld.param.u32 %r30, [cfg];',
      '\tsetp.eq.u32 %p10, %r20, 0;', '\tand.pred %p11, %p10, %p1;', '\tsetp.ne.u32 %p12, %r20, 0;', '\tand.pred %p13, %p12, %p1;',
      '\tmov.b64 %rd1, b0_map;', '\tmov.b64 %rd2, b1_map;', '\tmov.b64 %rd3, a0_map;', ...stage(0), ...stage(1),
      '\tmov.u32 %r4, %laneid;', '\tshl.b32 %r4, %r4, 4;', '\tmov.u32 %r5, buf;', '\tadd.s32 %r5, %r5, %r4;', ...read(0), ...read(1),
      '\tbarrier.cluster.arrive.release.aligned;', '\tbarrier.cluster.wait.acquire.aligned;',
    ].join('\n');
    const text = ptx({ body, params: '.param .align 64 .b8 b0_map[128], .param .align 64 .b8 b1_map[128], .param .align 64 .b8 a0_map[128], .param .u32 cfg' })
      .replace('.shared .align 128 .b8 buf[2048];', '.shared .align 128 .b8 buf[4096];')
      .replace('.reqntid 32\n', '.reqntid 32\n.reqnctapercluster 2, 1, 1\n')
      .replace('\t.reg .pred %p<16>;', '\t.reg .pred %p<16>;\n\t.reg .b16 %rs<4>;');
    const lifted = liftKernelWithFacts(parsePtx(text, 'k.ptx'), {});
    expect(lifted.facts.tma.map((m) => [m.map, m.bytes]).sort()).toEqual([['a0_map+0', 512], ['b0_map+0', 512], ['b1_map+0', 512]]);
    expect(verifyProgram(lifted.program).verdict).toBe('verified');
  });

  it('does not bound a mainloop copy by an epilogue copy landing inside its stage (CUTLASS keeps the two in a union)', () => {
    // a_map brings 1,024 bytes to buf+0 and the consumer reads them; after the mainloop the
    // epilogue's c_map copy lands at buf+512 (the union reuses the stage) and is read there. Bounded
    // by it, a's copy would be 512 bytes where expect_tx says 1,024: the epilogue's copy is not a
    // bound, since that reading leaves a barrier unbalanced that the usual one balances.
    const copy = (map: string, dst: number, b: number, bytes: number): string =>
      `\tmov.b64 %rd1, ${map};\n\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar+${8 * b}], ${bytes};\n\t@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [buf+${dst}], [%rd1, {0, 0}], [bar+${8 * b}];\n`;
    const read = (b: number, at: number): string => `\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+${8 * b}], 0;\n\tmov.u32 %r4, %laneid;\n\tshl.b32 %r4, %r4, 4;\n\tmov.u32 %r5, buf;\n\tadd.s32 %r5, %r5, %r4;\n\tld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r5+${at}];\n`;
    const body = `${INIT}${copy('a_map', 0, 0, 1024)}${read(0, 0)}${read(0, 512)}\tbar.sync 1, 32;\n${copy('c_map', 512, 1, 512)}${read(1, 512)}`;
    const p = lift({ body, params: '.param .align 64 .b8 a_map[128], .param .align 64 .b8 c_map[128]' });
    // a's copy spans both pieces of the stage; c's lands in the second
    expect(roleText(p, 0).filter((o) => o.startsWith('tma'))).toEqual(['tma.load buf_0[0] bar[0] 512', 'tma.load buf_512[0] bar[0] 512', 'tma.load buf_512[0] bar[1] 512']);
  });

  it('does not size a copy by a tensor store of bytes the threads wrote over it (an epilogue staging buffer in a union with the stage)', () => {
    // the copy of 1,024 bytes is waited for; the threads read its second half, then stage 512 bytes
    // over its first half and store them (an epilogue reusing the stage). The store reads what the
    // threads wrote, not the copy: sized by it, the copy would move 512 of expect_tx's 1,024 and
    // its barrier would never complete.
    const body = [
      INIT, '\tmov.b64 %rd1, k_map;', '\tmov.b64 %rd2, o_map;',
      '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 1024;',
      '\t@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1, {0, 0}], [bar];',
      'W:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;', '\t@!%p3 bra W;',
      '\tmov.u32 %r4, %laneid;', '\tshl.b32 %r4, %r4, 4;', '\tmov.u32 %r5, buf;', '\tadd.s32 %r5, %r5, %r4;',
      '\tld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r5+512];', '\tst.shared.v4.u32 [%r5], {%r4, %r4, %r4, %r4};', '\tfence.proxy.async.shared::cta;', '\tbar.sync 1, 32;',
      '\t@%p1 cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd2, {0, 0}], [buf];', '\t@%p1 cp.async.bulk.commit_group;',
      '\t@%p1 cp.async.bulk.wait_group.read 0;',
    ].join('\n');
    const p = lift({ body, params: '.param .align 64 .b8 k_map[128], .param .align 64 .b8 o_map[128]' });
    expect(roleText(p, 0).filter((o) => o.startsWith('tma.load'))).toEqual(['tma.load buf[0] bar[0] 1024']);
    expect(verifyProgram(p).verdict).toBe('verified');
  });

  it('says a verdict covers the prologue only when no launch point issued the kernel\'s copies (a tile count of 0)', () => {
    // one copy per tile; the tile count is a 64-bit field of the by-value struct, 0 unless given
    const body = [
      INIT, '\tmov.b64 %rd1, k_map;', '\tld.param.u64 %rd2, [k_map+128];', '\tmov.u64 %rd3, 0;',
      'TILE:', '\tsetp.ge.u64 %p2, %rd3, %rd2;', '\t@%p2 bra DONE;',
      '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 512;',
      '\t@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1, {0, 0}], [bar];',
      'W:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;', '\t@!%p3 bra W;', '\tld.shared.u32 %r7, [buf];',
      '\tadd.s64 %rd3, %rd3, 1;', '\tbra.uni TILE;', 'DONE:',
    ].join('\n');
    const text = ptx({ body, params: '.param .align 64 .b8 k_map[136]' });
    const idle = (notes: readonly string[] | undefined): string[] => (notes ?? []).filter((n) => n.startsWith('no warp issued'));
    expect(idle(verifyPtx(text, { noSweep: true }).notes)).toEqual([
      'no warp issued a TMA copy or a wgmma at any launch point, though the kernel has 1 tensor copies and 0 wgmma: at these launch values no CTA had a tile, so this verdict covers the prologue only; 64-bit fields left at 0 (a tile scheduler\'s counts and divisors may be among them): k_map+128 — give them with --param NAME+OFFSET:u64=V',
    ]);
    // one tile given: the copy is issued, and the note is gone
    const busy = verifyPtx(text, { noSweep: true, params: new Map([['k_map+128:u64', 1]]), tmaBytes: 512 });
    expect(busy.verdict).toBe('verified');
    expect(idle(busy.notes)).toEqual([]);
  });

  it('merges consecutive adjacent copies of one thread on one barrier into one tma.load', () => {
    const body = `${INIT}\tmov.u64 %rd1, 0;\n\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 256, [bar];\n\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf+256], [%rd1], 256, [bar];\n\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf+512], [%rd1], 512, [bar+8];`;
    const p = lift({ body });
    expect(roleText(p, 0)).toEqual(['tma.load buf[0] bar[0] 512', 'tma.load buf[1] bar[1] 512']);
    // the slots are the pieces the kernel touches: the untouched second half of buf is not modelled
    expect(p.resources).toContainEqual({ kind: 'buffer', name: 'buf', slots: 2, bytes: 512 });
  });

  it('folds warps in lockstep, summing their elected arrivals', () => {
    const body = `${INIT}\tmov.u32 %r2, %laneid;\n\tsetp.eq.u32 %p2, %r2, 0;\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 1;\n\tld.shared.u32 %r3, [buf];\n\t@%p2 mbarrier.arrive.shared::cta.b64 _, [bar+8];`;
    const p = lift({ body, block: 128 });
    expect(p.roles.map((r) => [r.name, r.warps])).toEqual([['warps0_3', 4]]);
    expect(roleText(p, 0)).toEqual(['wait bar[0] 1', 'read buf[0]', 'arrive bar[1] 4']);
  });

  it('does not fold when one warp signals after the others read with no bar.sync between (M14)', () => {
    const body = `${INIT}\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 1;\n\tld.shared.u32 %r3, [buf];\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar+8];`;
    const split = lift({ body, block: 64 });
    expect(split.roles.map((r) => [r.name, r.warps])).toEqual([['warp0', 1], ['warp1', 1]]);
    const synced = lift({ body: body.replace('\t@%p1 mbarrier.arrive', '\tbar.sync 1, 64;\n\t@%p1 mbarrier.arrive'), block: 64 });
    expect(synced.roles.map((r) => [r.name, r.warps])).toEqual([['warps0_1', 2]]);
    expect(roleText(synced, 0)).toEqual(['wait bar[0] 1', 'read buf[0]', 'bar.sync 1 64', 'arrive bar[1] 1']);
  });

  it('keeps only the signalling warp apart when the others make no signal of their own (FlashAttention-3 consumers)', () => {
    // warps 0-3 read buf; thread 0 alone then releases it on bar+8; warp 4 waits for that release and
    // loads buf again by TMA. Warps 1-3 still fold (they signal nothing), warp 0 does not.
    const consumers = `\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 1;\n\tld.shared.u32 %r3, [buf];\n\tfence.proxy.async.shared::cta;\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar+8];\n\tbra.uni $L_end;\n`;
    const producer = `$L_prod:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+8], 0;\n\tmov.u32 %r6, %laneid;\n\tsetp.eq.u32 %p6, %r6, 0;\n\tmov.u64 %rd1, 0;\n\t@%p6 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar+16], 16;\n\t@%p6 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 16, [bar+16];\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+16], 0;\n\tld.shared.u32 %r7, [buf];\n$L_end:\n`;
    const body = `${INIT}\tshr.u32 %r5, %r1, 5;\n\tsetp.eq.u32 %p5, %r5, 4;\n\t@%p5 bra $L_prod;\n${consumers}${producer}`;
    const p = lift({ body, block: 160 });
    expect(p.roles.map((r) => [r.name, r.warps])).toEqual([['warp0', 1], ['warps1_3', 3], ['warp4', 1]]);
    expect(roleText(p, 1)).toEqual(['wait bar[0] 1', 'read buf[0]', 'fence.proxy.async']);
    // warps 1-3's reads are not ordered before the release, so the TMA write races with them
    const r = verifyProgram(p);
    expect(r.violations.map((v) => v.kind)).toContain('race');
    expect(r.violations.find((v) => v.kind === 'race')?.message).toContain('warps1_3');
    // with a bar.sync of all four warps before the release, all four fold and nothing races
    const synced = lift({ body: body.replace('\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar+8];', '\tbar.sync 1, 128;\n\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar+8];'), block: 160 });
    expect(synced.roles.map((r) => [r.name, r.warps])).toEqual([['warps0_3', 4], ['warp4', 1]]);
    expect(verifyProgram(synced).violations).toEqual([]);
  });

  it('folds warps of one warpgroup that signal differently when a wgmma.wait retiring a group committed after their wait comes first (CUTLASS on a cluster)', () => {
    // warps 0-3 wait for buf, multiply from it, wait for the group, then warp 0 alone releases buf on
    // bar+8 and warp 1 alone arrives on bar+16; warp 4 waits for the release and loads buf again.
    // A group retires only once every warp of the warpgroup committed into it (traces/gpu/wgmma-coupling-h200),
    // so no warp is still before its wait when another signals: they stay in step and fold.
    const wgmma = `\tmov.u32 %r2, buf;\n\tbfe.u32 %r3, %r2, 4, 14;\n\tcvt.u64.u32 %rd2, %r3;\n\tmov.pred %p9, -1;\n\twgmma.fence.sync.aligned;\n\twgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, %rd2, %rd2, %p9, 1, 1, 0, 0;\n\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n`;
    const signals = `\tmov.u32 %r4, %laneid;\n\tsetp.eq.u32 %p4, %r4, 0;\n\tsetp.eq.u32 %p7, %r5, 0;\n\tand.pred %p7, %p7, %p4;\n\t@%p7 mbarrier.arrive.shared::cta.b64 _, [bar+8];\n\tsetp.eq.u32 %p8, %r5, 1;\n\tand.pred %p8, %p8, %p4;\n\t@%p8 mbarrier.arrive.shared::cta.b64 _, [bar+16];\n\tbra.uni $L_end;\n`;
    const consumers = `\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;\n${wgmma}${signals}`;
    const producer = `$L_prod:\n\tmov.u32 %r6, %laneid;\n\tsetp.eq.u32 %p6, %r6, 0;\n\tmov.u64 %rd1, 0;\n\t@%p6 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;\n\t@%p6 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 16, [bar];\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+8], 0;\n\t@%p6 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar+24], 16;\n\t@%p6 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 16, [bar+24];\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+24], 0;\n\tld.shared.u32 %r7, [buf];\n$L_end:\n`;
    const body = `${INIT}\tshr.u32 %r5, %r1, 5;\n\tsetp.eq.u32 %p5, %r5, 4;\n\t@%p5 bra $L_prod;\n${consumers}${producer}`;
    const p = lift({ body, block: 160 });
    expect(p.roles.map((r) => [r.name, r.warps])).toEqual([['warps0_3', 4], ['warp4', 1]]);
    expect(verifyProgram(p).violations).toEqual([]);
    // wait_group 1 may leave that group pending: a warp may still be before its barrier wait while
    // another signals. The four still fold, beside a lag role standing for such a warp: once the
    // role arrives before its wait (named barrier 17), the lag role makes the wait again, at any
    // time up to the role's end (no later point needs every warp past it), where both meet on
    // named barrier 16
    const pending = lift({ body: body.replace('wgmma.wait_group.sync.aligned 0', 'wgmma.wait_group.sync.aligned 1'), block: 160 });
    expect(pending.roles.map((r) => [r.name, r.warps])).toEqual([['warps0_3', 4], ['warps0_3_lag', 1], ['warp4', 1]]);
    expect(roleText(pending, 1)).toEqual(['bar.sync 17 160', 'wait bar[0] 0', 'bar.sync 16 160']);
    expect(roleText(pending, 0)[0]).toBe('bar.arrive 17 160');
    expect(roleText(pending, 0).at(-1)).toBe('bar.sync 16 160');
    // (and warp 0 releases buf while the wgmma may still read it: the copy after the release races)
    expect(verifyProgram(pending).violations.map((v) => v.kind)).toEqual(['race']);
    // so with a group committed before the wait: it does not need the partners past the wait
    const early = body.replace(`\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;\n${wgmma}`, `${wgmma}\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;\n\twgmma.wait_group.sync.aligned 0;\n`);
    expect(lift({ body: early, block: 160 }).roles.map((r) => r.name)).toEqual(['warps0_3', 'warps0_3_lag', 'warp4']);
  });

  it('folds warps of one warpgroup that read the stage before their wgmma when one warp releases it after the wgmma.wait, if each read its value before committing (CUTLASS sparse GEMM)', () => {
    // warps 0-3 wait for buf, each loads from it (the sparse GEMM's metadata) and reads the value,
    // multiply, wait for the group, fence, then warp 0 alone releases buf on bar+8 and warp 1 alone
    // arrives on bar+16; warp 4 waits for the release and loads buf again. The group retires only
    // once every warp committed it, and each warp's load was over before it committed (it read the
    // value): the reads are over before the release, the four fold and nothing races
    const wgmma = `\tmov.u32 %r2, buf;\n\tbfe.u32 %r3, %r2, 4, 14;\n\tcvt.u64.u32 %rd2, %r3;\n\tmov.pred %p9, -1;\n\twgmma.fence.sync.aligned;\n\twgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, %rd2, %rd2, %p9, 1, 1, 0, 0;\n\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n\tfence.proxy.async.shared::cta;\n`;
    const use = `\tadd.u32 %r21, %r20, 1;\n`;
    const signals = `\tmov.u32 %r4, %laneid;\n\tsetp.eq.u32 %p4, %r4, 0;\n\tsetp.eq.u32 %p7, %r5, 0;\n\tand.pred %p7, %p7, %p4;\n\t@%p7 mbarrier.arrive.shared::cta.b64 _, [bar+8];\n\tsetp.eq.u32 %p8, %r5, 1;\n\tand.pred %p8, %p8, %p4;\n\t@%p8 mbarrier.arrive.shared::cta.b64 _, [bar+16];\n`;
    const consumers = `\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;\n\tld.shared.u32 %r20, [buf];\n${use}${wgmma}${signals}\tbra.uni $L_end;\n`;
    const producer = `$L_prod:\n\tmov.u32 %r6, %laneid;\n\tsetp.eq.u32 %p6, %r6, 0;\n\tmov.u64 %rd1, 0;\n\t@%p6 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;\n\t@%p6 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 16, [bar];\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+8], 0;\n\t@%p6 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar+24], 16;\n\t@%p6 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 16, [bar+24];\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+24], 0;\n\tld.shared.u32 %r7, [buf];\n$L_end:\n`;
    const body = `${INIT}\tshr.u32 %r5, %r1, 5;\n\tsetp.eq.u32 %p5, %r5, 4;\n\t@%p5 bra $L_prod;\n${consumers}${producer}`;
    const p = lift({ body, block: 160 });
    expect(p.roles.map((r) => [r.name, r.warps])).toEqual([['warps0_3', 4], ['warp4', 1]]);
    expect(verifyProgram(p).violations).toEqual([]);
    // a load whose value is read only after the release may still be in flight when warp 0
    // releases buf: the warps stay apart by their signals and the copy after the release races
    const late = lift({ body: body.replace(use, '').replace('\tbra.uni $L_end;', `${use}\tbra.uni $L_end;`), block: 160 });
    expect(late.roles.map((r) => r.name)).toEqual(['warp0', 'warp1', 'warps2_3', 'warp4']);
    expect(verifyProgram(late).violations.map((v) => v.kind)).toContain('race');
    // so with a store in place of the load: a store may be in flight whatever the warp does next
    const store = lift({ body: body.replace('\tld.shared.u32 %r20, [buf];', '\tmov.u32 %r22, 7;\n\tst.shared.u32 [buf], %r22;'), block: 160 });
    expect(store.roles.map((r) => r.name)).toEqual(['warp0', 'warp1', 'warps2_3', 'warp4']);
  });

  it("holds a warp's wgmma.wait_group until the other warps of its warpgroup have committed the group: a warp the scheduler runs later does not fall two phases behind (FlashAttention-3 on a 2×1 cluster)", () => {
    // warp 0 loads buf twice through full = bar[0], each time once warp 4 released it on empty =
    // bar+8 after its wgmma.wait_group; warps 4-7 consume both. Warp 7 first waits for flag =
    // bar+16, which warp 8 completes once warp 6 committed its first group (flag2 = bar+24), so
    // the scheduler runs warp 7 a pass later than the others. Were warp 4 let past its wait_group
    // before warp 7 committed, the producer would fill buf a second time before warp 7 waited for
    // the first: a wait on full with parity 0 while its phase 2 is pending, a hang the hardware
    // does not allow (a group retires only once every warp of the warpgroup committed it,
    // traces/gpu/wgmma-coupling-h200)
    const wgmma = `\tmov.u32 %r2, buf;\n\tbfe.u32 %r3, %r2, 4, 14;\n\tcvt.u64.u32 %rd2, %r3;\n\tmov.pred %p9, -1;\n\twgmma.fence.sync.aligned;\n\twgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, %rd2, %rd2, %p9, 1, 1, 0, 0;\n\twgmma.commit_group.sync.aligned;\n`;
    const stage = (parity: number): string => `\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], ${parity};\n${wgmma}${parity === 0 ? '\t@%p12 mbarrier.arrive.shared::cta.b64 _, [bar+24];\n' : ''}\twgmma.wait_group.sync.aligned 0;\n\t@%p7 mbarrier.arrive.shared::cta.b64 _, [bar+8];\n`;
    const consumers = `$L_cons:\n\tsetp.ne.u32 %p10, %r5, 7;\n\t@%p10 bra $L_c0;\n\tmbarrier.try_wait.parity.shared::cta.b64 %p11, [bar+16], 0;\n$L_c0:\n\tsetp.eq.u32 %p7, %r5, 4;\n\tand.pred %p7, %p7, %p4;\n\tsetp.eq.u32 %p12, %r5, 6;\n\tand.pred %p12, %p12, %p4;\n${stage(0)}${stage(1)}\tbra.uni $L_end;\n`;
    const fill = (parity: number): string => `\t@%p4 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;\n\t@%p4 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 16, [bar];\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+8], ${parity};\n`;
    const producer = `$L_prod:\n\tmov.u64 %rd1, 0;\n${fill(0)}${fill(1)}\tbra.uni $L_end;\n`;
    const flag = `$L_flag:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p11, [bar+24], 0;\n\t@%p4 mbarrier.arrive.shared::cta.b64 _, [bar+16];\n\tbra.uni $L_end;\n`;
    const body = `${INIT}\tshr.u32 %r5, %r1, 5;\n\tmov.u32 %r4, %laneid;\n\tsetp.eq.u32 %p4, %r4, 0;\n\tsetp.eq.u32 %p5, %r5, 0;\n\t@%p5 bra $L_prod;\n\tsetp.eq.u32 %p6, %r5, 8;\n\t@%p6 bra $L_flag;\n\tsetp.ge.u32 %p6, %r5, 4;\n\t@%p6 bra $L_cons;\n\tbra.uni $L_end;\n${producer}${flag}${consumers}$L_end:\n`;
    const trace = traceKernel(parsePtx(ptx({ body, block: 288 }), 'k.ptx'));
    expect(trace.run.stuck).toBeUndefined();
    expect(verifyProgram(lift({ body, block: 288 })).verdict).toBe('verified');
  });

  it('keeps roles of a warpgroup whose first warp has work of its own to that warpgroup, so its wgmma groups retire together (CUTLASS ptr-array)', () => {
    // two consumer warpgroups (warps 0-3, 4-7) multiply from buf; the first warp of each also
    // updates a tensor map of its own first (a store and a bulk group: CUTLASS's ptr-array kernels),
    // and releases buf for its warpgroup after wgmma.wait_group 0. Warp 8 loads buf again once both
    // released. Folded by skeleton, warps 0 and 4 made one role and warps 1-3, 5-7 another: no role
    // was a warpgroup's, so the releasing role's wait did not retire its partners' wgmma (a false race)
    const wgmma = `\tmov.u32 %r2, buf;\n\tbfe.u32 %r3, %r2, 4, 14;\n\tcvt.u64.u32 %rd2, %r3;\n\tmov.pred %p9, -1;\n\twgmma.fence.sync.aligned;\n\twgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}, %rd2, %rd2, %p9, 1, 1, 0, 0;\n\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n`;
    const own = `\tand.b32 %r20, %r5, 3;\n\tsetp.eq.u32 %p10, %r20, 0;\n\t@!%p10 bra $L_main;\n\tshl.b32 %r21, %r5, 4;\n\tmov.u32 %r22, buf;\n\tadd.s32 %r22, %r22, %r21;\n\tst.shared.u32 [%r22+1024], %r5;\n\tcp.async.bulk.commit_group;\n\tcp.async.bulk.wait_group 0;\n$L_main:\n`;
    const release = (warp: number, b: number): string => `\tsetp.eq.u32 %p12, %r5, ${warp};\n\tand.pred %p13, %p11, %p12;\n\t@%p13 mbarrier.arrive.shared::cta.b64 _, [bar+${8 * b}];\n`;
    const consumers = `${own}\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;\n${wgmma}\tmov.u32 %r4, %laneid;\n\tsetp.eq.u32 %p4, %r4, 0;\n\tand.pred %p11, %p10, %p4;\n${release(0, 1)}${release(4, 2)}\tbra.uni $L_end;\n`;
    const producer = `$L_prod:\n\tmov.u32 %r6, %laneid;\n\tsetp.eq.u32 %p6, %r6, 0;\n\tmov.u64 %rd1, 0;\n\t@%p6 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16;\n\t@%p6 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 16, [bar];\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+8], 0;\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+16], 0;\n\t@%p6 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar+24], 16;\n\t@%p6 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 16, [bar+24];\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar+24], 0;\n\tld.shared.u32 %r7, [buf];\n$L_end:\n`;
    const body = `${INIT}\tshr.u32 %r5, %r1, 5;\n\tsetp.eq.u32 %p5, %r5, 8;\n\t@%p5 bra $L_prod;\n${consumers}${producer}`;
    const p = lift({ body, block: 288 });
    expect(p.roles.map((r) => r.name)).toEqual(['warp0', 'warps1_3', 'warp4', 'warps5_7', 'warp8']);
    expect(p.warpgroups).toEqual([['warp0', 'warps1_3'], ['warp4', 'warps5_7']]);
    expect(verifyProgram(p).violations).toEqual([]);
  });

  it('folds warps that differ only in accesses a first bar.sync of all of them orders (DeepGEMM staging its scales)', () => {
    // warp 1 stores to buf+64 before the barrier of both warps; after it both wait and read alike
    const early = `${INIT}\tmov.u32 %r4, %tid.x;\n\tshr.u32 %r5, %r4, 5;\n\tsetp.eq.u32 %p4, %r5, 1;\n\t@%p4 st.shared.u32 [buf+64], %r4;\n`;
    const rest = `\tbar.sync 1, 64;\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 1;\n\tld.shared.u32 %r3, [buf];\n`;
    const folded = lift({ body: early + rest, block: 64 });
    expect(folded.roles.map((r) => [r.name, r.warps])).toEqual([['warps0_1', 2]]);
    expect(roleText(folded, 0)).toEqual(['write buf_64[0]', 'bar.sync 1 64', 'wait bar[0] 1', 'read buf_0[0]']);
    // a barrier of one warp only does not order them: two roles
    const narrow = lift({ body: early + rest.replace('bar.sync 1, 64', 'bar.sync 1, 32'), block: 64 });
    expect(narrow.roles.map((r) => r.warps)).toEqual([1, 1]);
    // both warps writing the same bytes before it race: two roles
    const clash = lift({ body: early.replace('@%p4 st.shared.u32 [buf+64]', 'st.shared.u32 [buf+64]').replace('\tsetp.eq.u32 %p4, %r5, 1;\n', `\tsetp.eq.u32 %p4, %r5, 1;\n\t@%p4 st.shared.u32 [buf+64], %r4;\n`) + rest, block: 64 });
    expect(clash.roles.map((r) => r.warps)).toEqual([1, 1]);
  });

  it('records one trace per warp before folding (traceKernel)', () => {
    const t = traceKernel(parsePtx(ptx({ body: `${INIT}\t@%p1 mbarrier.arrive.shared::cta.b64 _, [bar];`, block: 64 }), 'k.ptx'));
    expect(t.blockThreads).toBe(64);
    expect(t.warps.map((w) => w.map((e) => e.k))).toEqual([['init', 'init', 'init', 'init', 'bar.sync', 'arrive'], ['bar.sync']]);
  });
});
