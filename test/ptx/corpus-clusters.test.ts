// The corpus's cluster shapes from kernel names (scripts/corpus-clusters.ts): the ClusterShape
// template argument of CUTLASS's and FlashAttention-3's mainloops, read from demangled names as
// c++filt prints them.
import { describe, expect, it } from 'vitest';
import { clusterOfName, templateArgs } from '../../scripts/corpus-clusters.ts';

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
