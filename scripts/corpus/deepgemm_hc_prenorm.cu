// One DeepGEMM sm90 TF32 hyper-connection pre-norm GEMM instantiation, compiled to PTX for
// arefcheck's corpus (scripts/build-corpus.sh), with the values its host code picks
// (csrc/jit_kernels/impls/sm90_tf32_hc_prenorm_gemm.hpp) for n = 24, k = 7168, one split:
// 64x32x64 blocks, a 128-byte swizzle for D, 12 stages, 128 math and 128 TMA threads.
#include <deep_gemm/impls/sm90_tf32_hc_prenorm_gemm.cuh>

using namespace deep_gemm;

void* arefcheck_corpus_kernel() {
  return reinterpret_cast<void*>(&sm90_tf32_hc_prenorm_gemm_impl<24, 7168, 64, 32, 64, 1, 128, 12, 128, 128>);
}
