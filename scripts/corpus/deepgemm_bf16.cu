// One DeepGEMM sm90 BF16 GEMM instantiation, compiled to PTX for arefcheck's corpus
// (scripts/build-corpus.sh): the instantiation DeepGEMM's JIT writes (csrc/jit_kernels/impls/
// sm90_bf16_gemm.hpp), with the template values as macros. N and K compiled in, M at run time.
#include <deep_gemm/impls/sm90_bf16_gemm.cuh>
#include "deepgemm_defaults.h"

using namespace deep_gemm;

void* arefcheck_corpus_kernel() {
  return reinterpret_cast<void*>(&sm90_bf16_gemm_impl<
      cute::UMMA::Major::K, cute::UMMA::Major::K, 0, SHAPE_N, SHAPE_K, 1, DG_BLOCK_M, DG_BLOCK_N, 64, 128, 128, 128, DG_STAGES,
      128, (DG_BLOCK_M == 64 ? 128 : 256), DG_MULTICAST, false, 132, GemmType::Normal, false, cutlass::bfloat16_t>);
}
