// Cluster shapes from kernel names (src/ptx/lift/cluster-name.ts): the ClusterShape
// template argument of CUTLASS's and FlashAttention-3's mainloops, read from demangled names as
// c++filt prints them.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { verifyPtx } from '../../src/api.ts';
import { liftKernelWithFacts } from '../../src/ptx/lift/index.ts';
import { liftLaunchPoints } from '../../src/ptx/lift/sweep.ts';
import { parsePtx } from '../../src/ptx/parse/parser.ts';
import { clusterOfName, templateArgs } from '../../src/ptx/lift/cluster-name.ts';

const tuple = (x: number, y: number, z: number): string => `cute::tuple<cute::C<${x}>, cute::C<${y}>, cute::C<${z}> >`;

describe('cluster shapes from kernel names', () => {
  it('splits template arguments at top-level commas only', () => {
    expect(templateArgs(`f<A<1, 2>, (E)0, B<C<3> > >`, /f/)).toEqual(['A<1, 2>', '(E)0', 'B<C<3> >']);
    expect(templateArgs('g<1, 2>', /f/)).toBeUndefined();
  });

  it("reads a CUTLASS mainloop policy's ClusterShape, not its tile shape", () => {
    const name = `void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<7, ${tuple(2, 1, 1)}, cutlass::gemm::KernelTmaWarpSpecializedCooperative>, ${tuple(256, 128, 64)}, cutlass::half_t> > >(Params)`;
    expect(clusterOfName(name)).toEqual([2, 1, 1]);
    expect(clusterOfName(name.replace(tuple(2, 1, 1), tuple(1, 2, 1)))).toEqual([1, 2, 1]);
  });

  it("reads FlashAttention-3's forward and backward mainloops, whose ClusterShape comes after several stage counts", () => {
    expect(clusterOfName(`void cutlass::device_kernel<flash::enable_sm90<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2, ${tuple(2, 1, 1)}, ${tuple(128, 176, 128)}, 128, cutlass::bfloat16_t> > > >(Params)`)).toEqual([2, 1, 1]);
    expect(clusterOfName(`flash::CollectiveMainloopBwdSm90<2, 2, 2, ${tuple(1, 1, 1)}, ${tuple(80, 128, 128)}, cutlass::bfloat16_t>`)).toEqual([1, 1, 1]);
  });

  it('gives nothing for a kernel with no such mainloop, or one c++filt left mangled', () => {
    expect(clusterOfName('void deep_gemm::sm90_fp8_gemm_1d2d_impl<(cute::UMMA::Major)0, 0u, 4096u>(float*)')).toBeUndefined();
    expect(clusterOfName('_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalIN4cute5tupleIJiiiiEEE')).toBeUndefined();
  });
});

// _Z6kernelI…: kernel<MainloopSm90TmaGmmaWarpSpecialized<7, tuple<C<1>, C<2>, C<1>>, KernelTmaWarpSpecialized>>,
// mangled by g++ from stand-in types (no CUTLASS code): a kernel compiled for a 1×2×1 cluster
const NAMED_1X2 = '_Z6kernelIN7cutlass4gemm34MainloopSm90TmaGmmaWarpSpecializedILi7EN4cute5tupleIJNS3_1CILi1EEENS5_ILi2EEES6_EEENS1_24KernelTmaWarpSpecializedEEEEvv';

/** Thread 0 of each CTA inits bar, the CTA syncs, then every warp arrives on bar of the CTA of rank 1 (mapa): it needs a cluster of 2. */
function peerKernel(name: string): string {
  return [
    '.version 8.4', '.target sm_90a', '.address_size 64',
    '.shared .align 8 .b64 bar[1];',
    `.visible .entry ${name}()`, '.reqntid 32', '{',
    '\t.reg .pred %p<4>;', '\t.reg .b32 %r<8>;',
    '\tmov.u32 %r1, %tid.x;', '\tsetp.eq.u32 %p1, %r1, 0;',
    '\t@%p1 mbarrier.init.shared::cta.b64 [bar], 64;', '\tbar.sync 0;',
    '\tmov.u32 %r2, bar;', '\tmapa.shared::cluster.u32 %r3, %r2, 1;',
    '\tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r3];',
    '\tret;', '}', '',
  ].join('\n');
}

const hasCxxfilt = spawnSync('c++filt', ['--version']).status === 0;

describe('the lifter takes a kernel\'s cluster shape from its name', () => {
  it.skipIf(!hasCxxfilt)('a CUTLASS-style name compiled for 1×2×1 is launched 1×2×1, where a plain name gets the guess 2×1×1 (needs c++filt)', () => {
    const named = liftKernelWithFacts(parsePtx(peerKernel(NAMED_1X2), 'k.ptx'));
    expect(named.facts.cluster).toEqual([1, 2, 1]);
    expect(named.facts.clusterNote).toMatch(/taken as 1×2×1, the ClusterShape in the kernel's name/);
    const plain = liftKernelWithFacts(parsePtx(peerKernel('k'), 'k.ptx'));
    expect(plain.facts.cluster).toEqual([2, 1, 1]);
    expect(plain.facts.clusterNote).toMatch(/taken as 2×1×1; give --cluster/);
    // --cluster still wins over the name
    expect(liftKernelWithFacts(parsePtx(peerKernel(NAMED_1X2), 'k.ptx'), { cluster: [2, 1, 1] }).facts.cluster).toEqual([2, 1, 1]);
  });
});

/**
 * A kernel of one warp per CTA in a declared 2×1×1 cluster, with params n (u32) and src (u64):
 * thread 0 (%p1) inits bar with count 1 and the CTA syncs, then `body`.
 */
function clusterKernel(body: readonly string[]): string {
  return [
    '.version 8.4', '.target sm_90a', '.address_size 64',
    '.shared .align 8 .b64 bar[1];', '.shared .align 128 .b8 buf[256];',
    '.visible .entry k(.param .u32 n, .param .u64 src)', '.reqntid 32', '.reqnctapercluster 2, 1, 1', '{',
    '\t.reg .pred %p<8>;', '\t.reg .b32 %r<12>;', '\t.reg .b64 %rd<4>;',
    '\tmov.u32 %r1, %tid.x;', '\tsetp.eq.u32 %p1, %r1, 0;',
    '\t@%p1 mbarrier.init.shared::cta.b64 [bar], 1;', '\tbar.sync 0;',
    ...body,
    '\tret;', '}', '',
  ].join('\n');
}

/**
 * The CTAs of rank below the tile count `n` copy 256 bytes into their buf through their own bar,
 * wait for them and read them; the others do nothing.
 */
function tileKernel(): string {
  return clusterKernel([
    '\tld.param.u32 %r2, [n];', '\tmov.u32 %r3, %cluster_ctarank;', '\tsetp.ge.u32 %p2, %r3, %r2;', '\t@%p2 bra $L_done;',
    '\tld.param.u64 %rd1, [src];', '\tcvta.to.global.u64 %rd2, %rd1;',
    '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 256;',
    '\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd2], 256, [bar];',
    '$L_w:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0;', '\t@!%p3 bra $L_w;', '\tld.shared.u32 %r4, [buf];',
    '$L_done:',
  ]);
}

describe('a CTA of the cluster left without a tile', () => {
  it('is named in a note, and not when every CTA has one', () => {
    const one = verifyPtx(tileKernel(), { noSweep: true, params: new Map([['n', '1']]) });
    expect(one.notes?.some((n) => /CTA 1 of the cluster issued no TMA copy and no wgmma while another CTA did/.test(n))).toBe(true);
    const two = verifyPtx(tileKernel(), { noSweep: true, params: new Map([['n', '2']]) });
    expect(one.verdict).toBe('verified');
    expect(two.verdict).toBe('verified');
    expect(two.notes?.some((n) => /of the cluster issued no TMA copy/.test(n))).toBe(false);
  });
});

/**
 * CTA 0 runs n tiles, CTA 1 runs them only when n ≥ 3; each tile copies
 * 256 bytes through bar, waits for them at the tile's parity and reads them.
 */
function sweptKernel(): string {
  return clusterKernel([
    '\tld.param.u32 %r2, [n];', '\tld.param.u64 %rd1, [src];', '\tcvta.to.global.u64 %rd2, %rd1;',
    '\tmov.u32 %r3, %cluster_ctarank;', '\tmov.u32 %r5, %r2;',
    '\tsetp.eq.u32 %p2, %r3, 0;', '\t@%p2 bra $L_go;',
    '\tsetp.lt.u32 %p3, %r2, 3;', '\t@%p3 mov.u32 %r5, 0;',
    '$L_go:', '\tmov.u32 %r6, 0;',
    '$L_loop:', '\tsetp.ge.u32 %p4, %r6, %r5;', '\t@%p4 bra $L_done;',
    '\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 256;',
    '\t@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd2], 256, [bar];',
    '\tand.b32 %r7, %r6, 1;',
    '$L_w:', '\tmbarrier.try_wait.parity.shared::cta.b64 %p5, [bar], %r7;', '\t@!%p5 bra $L_w;',
    '\tld.shared.u32 %r4, [buf];', '\tfence.proxy.async.shared::cta;', '\tbar.sync 0;',
    '\tadd.u32 %r6, %r6, 1;', '\tbra $L_loop;',
    '$L_done:',
  ]);
}

describe('the launch sweep and CTAs without a tile', () => {
  it('takes no point at which a CTA of the cluster has no tile while another has one', () => {
    const points = liftLaunchPoints(parsePtx(sweptKernel(), 'k.ptx'), {});
    // at n = 2 CTA 0 already waits bar at both parities, but CTA 1 has no tile: the ladder goes on to 3
    expect(points.map((p) => p.label)).toEqual(['defaults', 'n = 3']);
    expect(points[0]?.facts.idleCtas).toEqual([1]);
    expect(points[1]?.facts.idleCtas).toBeUndefined();
    expect(verifyPtx(sweptKernel()).verdict).toBe('verified');
  });
});
