// One DeepGEMM sm90 FP8 1D2D GEMM instantiation, compiled to PTX for arefcheck's corpus
// (scripts/build-corpus.sh): the instantiation DeepGEMM's JIT writes, with the template values as
// macros. SHAPE_N/SHAPE_K compiled in, M at run time; DG_BLOCK_M 64 uses one math warp group.
#include <deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh>
#include "deepgemm_defaults.h"

#ifndef DG_MULTICAST_ON_A
#define DG_MULTICAST_ON_A false
#endif
#ifndef GEMM_TYPE
#define GEMM_TYPE Normal
#endif
#ifndef NUM_GROUPS
#define NUM_GROUPS 1
#endif

using namespace deep_gemm;

void* arefcheck_corpus_kernel() {
  return reinterpret_cast<void*>(&sm90_fp8_gemm_1d2d_impl<
      cute::UMMA::Major::K, 0, SHAPE_N, SHAPE_K, NUM_GROUPS, DG_BLOCK_M, DG_BLOCK_N, 128, 128, 128, 128, DG_STAGES,
      128, (DG_BLOCK_M == 64 ? 128 : 256), DG_MULTICAST, DG_MULTICAST_ON_A, 132, GemmType::GEMM_TYPE, cutlass::bfloat16_t, epilogue::transform::EpilogueIdentity>);
}
