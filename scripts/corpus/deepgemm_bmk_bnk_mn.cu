// One DeepGEMM sm90 BF16 "bmk, bnk -> mn" GEMM instantiation (a K-grouped weight-gradient GEMM
// that sums over a batch s), compiled to PTX for arefcheck's corpus (scripts/build-corpus.sh),
// with the values its host code picks (csrc/jit_kernels/impls/sm90_bmk_bnk_mn.hpp) for
// m = n = k = 2048 and s = 1 on 132 SMs: 128x128x64 blocks, split factor 32 (each CTA takes 32
// k-blocks: 8 rounds of its 4-stage ring), 4 stages, 128 TMA and 256 math threads.
#include <deep_gemm/impls/sm90_bmk_bnk_mn.cuh>

using namespace deep_gemm;

void* arefcheck_corpus_kernel() {
  return reinterpret_cast<void*>(&sm90_bmn_bnk_mn_gemm_impl<2048, 2048, 2048, 128, 128, 64, 32, 4, 128, 256>);
}
