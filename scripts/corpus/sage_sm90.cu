// SageAttention's Hopper kernel (thu-ml/SageAttention, csrc/qattn/qk_int_sv_f8_cuda_sm90.cu: INT8
// QK^T and FP8 PV on wgmma, Q, K and V by TMA onto three mbarriers, K and V single-buffered with
// the parity flipped each k-block), instantiated as its torch binding does (CTA_Q 64, CTA_K 128,
// 128 threads). build-corpus.sh cuts the kernel out of that file (the part before the torch
// bindings) into sage_sm90_kernel.cuh; the macros pick the instantiation.
#include "sage_sm90_kernel.cuh"

#ifndef HEAD_DIM
#define HEAD_DIM 128
#endif
#ifndef GRAN
#define GRAN QuantGranularity::kPerWarp
#endif
#ifndef MASK
#define MASK MaskMode::kCausal
#endif
#ifndef RETURN_LSE
#define RETURN_LSE false
#endif
#ifndef FUSE_V_SCALE
#define FUSE_V_SCALE false
#endif

template __global__ void qk_int8_sv_f8_attn_kernel<64, 128, 128, HEAD_DIM, GRAN, GRAN, half, MASK, RETURN_LSE, FUSE_V_SCALE>(
    const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, float *, float *, float *, half *,
    float *, uint32_t, uint32_t, uint32_t, const uint32_t, const uint32_t, const uint32_t, float);
