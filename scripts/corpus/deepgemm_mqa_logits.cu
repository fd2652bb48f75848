// One DeepGEMM sm90 FP8 MQA-logits instantiation (DeepSeek V3.2's indexer), compiled to PTX for
// arefcheck's corpus (scripts/build-corpus.sh), with the values its host code picks
// (csrc/apis/attention.hpp, csrc/jit_kernels/impls/sm90_fp8_mqa_logits.hpp): 64 heads of 128,
// block_qh 128 (so block_q 2), block_kv 256, 3 Q and 3 KV stages, 128 TMA and 512 math threads.
#include <deep_gemm/impls/sm90_fp8_mqa_logits.cuh>

using namespace deep_gemm;

void* arefcheck_corpus_kernel() {
  return reinterpret_cast<void*>(&sm90_fp8_mqa_logits<64, 128, false, 2, 256, 3, 3, 132, 128, 512, float>);
}
