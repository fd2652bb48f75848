// One DeepGEMM sm90 FP8 paged MQA-logits instantiation (DeepSeek V3.2's decoding indexer),
// compiled to PTX for arefcheck's corpus (scripts/build-corpus.sh), with the values its host code
// picks (csrc/apis/attention.hpp, csrc/jit_kernels/impls/sm90_fp8_mqa_logits.hpp): next_n 1, 64
// heads of 128, block_kv 64, context lengths 1-D, not varlen, 3 Q and 3 KV stages, split_kv 256
// (4 math warpgroups of 128 threads), 128 TMA threads.
#include <deep_gemm/impls/sm90_fp8_paged_mqa_logits.cuh>

using namespace deep_gemm;

void* arefcheck_corpus_kernel() {
  return reinterpret_cast<void*>(&sm90_fp8_paged_mqa_logits<1, 64, 128, 64, false, false, 3, 3, 256, 128, 512, float>);
}
