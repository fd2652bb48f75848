// One DeepGEMM sm90 FP8 1D1D GEMM instantiation (FP32 output, per-128-channel scaling of both
// operands), compiled to PTX for arefcheck's corpus (scripts/build-corpus.sh): the instantiation
// DeepGEMM's JIT writes (csrc/jit_kernels/impls/sm90_fp8_gemm_1d1d.hpp), template values as macros.
#include <deep_gemm/impls/sm90_fp8_gemm_1d1d.cuh>
#include "deepgemm_defaults.h"

using namespace deep_gemm;

void* arefcheck_corpus_kernel() {
  return reinterpret_cast<void*>(&sm90_fp8_gemm_1d1d_impl<
      0, SHAPE_N, SHAPE_K, 1, DG_BLOCK_M, DG_BLOCK_N, 128, 128, 128, DG_STAGES,
      128, (DG_BLOCK_M == 64 ? 128 : 256), 1, false, 132, GemmType::Normal, float>);
}
