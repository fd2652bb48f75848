// FlashInfer's Hopper (FA3-style) prefill kernels, compiled to PTX for arefcheck's corpus
// (scripts/build-corpus.sh). Our wrapper: only what FlashInfer's JIT renders from its Jinja
// templates (csrc/*_sm90_customize_config.jinja, *_sm90_kernel_inst.jinja) for a bf16 model
// without soft cap, and the instantiation; every line of the kernels is FlashInfer's.
// Macros: FI_KIND (0 single prefill, 1 batch ragged, 2 batch paged), FI_HEAD_DIM (64, 128, 256),
// FI_MASK (MaskMode::kNone or kCausal).
#include <flashinfer/attention/hopper/attention_updater.cuh>
#include <flashinfer/attention/hopper/variant_helper.cuh>
#include <flashinfer/cutlass_utils.cuh>
#include <flashinfer/layout.cuh>
#include <flashinfer/math.cuh>

#ifndef FI_KIND
#define FI_KIND 0
#endif
#ifndef FI_HEAD_DIM
#define FI_HEAD_DIM 128
#endif
#ifndef FI_MASK
#define FI_MASK MaskMode::kCausal
#endif

using namespace flashinfer;

using DTypeQ = cutlass_dtype_t<nv_bfloat16>;
using DTypeKV = cutlass_dtype_t<nv_bfloat16>;
using DTypeO = cutlass_dtype_t<nv_bfloat16>;
using IdType = cutlass_dtype_t<int32_t>;

// the additional params of FlashInfer's fa3 backend for a 16-bit model (jit/attention/modules.py)
struct AdditionalParams {
  float* maybe_scale_v;
  double logits_soft_cap;
  double sm_scale;
  double scale_v_scalar;
};

// The three Params structs of FlashInfer's templates share their types, the Q, K, V, O and LSE pointers,
// the additional params and the strides.
struct CommonParams {
  using AdditionalParams = ::AdditionalParams;
  using DTypeQ = ::DTypeQ;
  using DTypeKV = ::DTypeKV;
  using DTypeO = ::DTypeO;
  using IdType = ::IdType;
  DTypeQ* q_ptr;
  DTypeKV* k_ptr;
  DTypeKV* v_ptr;
  DTypeO* o_ptr;
  float* lse_ptr;
  AdditionalParams additional_params;
  int64_t q_stride_n, k_stride_n, v_stride_n, o_stride_n;
  int64_t q_stride_h, k_stride_h, v_stride_h, o_stride_h;
};

struct SingleParams : CommonParams {
  int qo_len, kv_len, head_dim, num_qo_heads, num_kv_heads, group_size, window_left;
  bool causal;
};

struct RaggedParams : CommonParams {
  IdType *qo_tile_indices, *qo_indptr, *kv_indptr, *qo_lens, *kv_lens, *head_indices, *work_indptr, *batch_indices;
  int64_t nnz_qo, nnz_kv;
  int head_dim, num_qo_heads, num_kv_heads, group_size, window_left;
  bool causal;
};

struct PagedParams : CommonParams {
  IdType *qo_tile_indices, *qo_indptr, *kv_indptr, *kv_indices, *qo_lens, *kv_lens, *head_indices, *work_indptr, *batch_indices;
  int64_t nnz_qo;
  int64_t k_page_stride, v_page_stride;
  int head_dim, num_qo_heads, num_kv_heads, group_size, page_size, window_left;
  bool causal;
};

#include <flashinfer/attention/hopper/variants.cuh>
#include <flashinfer/attention/hopper/prefill_sm90.cuh>

namespace flashinfer {
#if FI_KIND == 0
template cudaError_t SinglePrefillWithKVCacheDispatched<FI_HEAD_DIM, FI_HEAD_DIM, FI_MASK, false, DefaultAttention<false>, SingleParams>(SingleParams&, cudaStream_t);
#elif FI_KIND == 1
template cudaError_t BatchPrefillWithRaggedKVCacheDispatched<FI_HEAD_DIM, FI_HEAD_DIM, FI_MASK, false, true, DefaultAttention<false>, RaggedParams>(RaggedParams&, bool, cudaStream_t);
#else
template cudaError_t BatchPrefillWithPagedKVCacheDispatched<FI_HEAD_DIM, FI_HEAD_DIM, FI_MASK, false, true, DefaultAttention<false>, PagedParams>(PagedParams&, bool, cudaStream_t);
#endif
}  // namespace flashinfer
