#!/usr/bin/env bash
# Build arefcheck's own corpus of real Hopper kernels: nvcc 13 compiles kernels of public
# repositories to sm_90a PTX in a git-ignored folder (third-party PTX never enters this repo).
#
#   scripts/build-corpus.sh SRC [OUT]
#
# ONLY=REGEX limits the build to the targets whose names match.
# SRC holds checkouts of NVIDIA/cutlass, HazyResearch/ThunderKittens, deepseek-ai/DeepGEMM,
# pranjalssh/fast.cu, Dao-AILab/flash-attention, deepseek-ai/FlashMLA, thu-ml/SageAttention,
# flashinfer-ai/flashinfer and NVIDIA/cccl (folders cutlass/,
# ThunderKittens/, DeepGEMM/, fast.cu/, flash-attention/, FlashMLA/, SageAttention/, flashinfer/,
# cccl/ (v3.3.2, for FlashInfer); FA3, FlashMLA and FlashInfer are built
# against cutlass/, not their submodules; the commits measured
# are in docs/ptx.md); a missing one is cloned when the network allows. OUT defaults to .corpus/.
# Our wrappers (scripts/corpus/*.cu) only instantiate the libraries' kernels; NAME.launch files hold
# the launch values a kernel needs to have any tile (scripts/corpus.ts gives them). Then:
#   AREFCHECK_CORPUS=.corpus node --import tsx scripts/corpus.ts
set -euo pipefail
SRC="${1:?usage: scripts/build-corpus.sh SRC [OUT]}"
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$(mkdir -p "${2:-$HERE/../.corpus}" && cd "${2:-$HERE/../.corpus}" && pwd)"
NVCC="${NVCC:-nvcc}"
JOBS="${JOBS:-2}"
command -v "$NVCC" >/dev/null || { echo "build-corpus: nvcc not found (set NVCC=/path/to/nvcc)" >&2; exit 2; }

declare -A REPO=(
  [cutlass]=https://github.com/NVIDIA/cutlass
  [ThunderKittens]=https://github.com/HazyResearch/ThunderKittens
  [DeepGEMM]=https://github.com/deepseek-ai/DeepGEMM
  [fast.cu]=https://github.com/pranjalssh/fast.cu
  [flash-attention]=https://github.com/Dao-AILab/flash-attention
  [FlashMLA]=https://github.com/deepseek-ai/FlashMLA
  [SageAttention]=https://github.com/thu-ml/SageAttention
  [flashinfer]=https://github.com/flashinfer-ai/flashinfer
)
for d in "${!REPO[@]}"; do
  [ -d "$SRC/$d" ] || git clone --depth 1 "${REPO[$d]}" "$SRC/$d" || echo "build-corpus: no $SRC/$d; its kernels are skipped" >&2
done
# FlashInfer vendors CCCL v3.3.2 (a submodule; the toolkit's CCCL lacks cuda::fast_mod_div)
[ -d "$SRC/cccl" ] || git clone --depth 1 --branch v3.3.2 https://github.com/NVIDIA/cccl "$SRC/cccl" || echo "build-corpus: no $SRC/cccl; FlashInfer's kernels fail" >&2

CUTLASS_FLAGS="-std=c++17 --expt-relaxed-constexpr -DNDEBUG -I $SRC/cutlass/include -I $SRC/cutlass/tools/util/include"
# CUTLASS's examples include <curand_kernel.h> for their random fills; where the toolkit lacks it,
# our stand-in (scripts/corpus/stub) declares what those fills call
[ -f "$(dirname "$(command -v "$NVCC")")/../include/curand_kernel.h" ] || CUTLASS_FLAGS="$CUTLASS_FLAGS -I $HERE/corpus/stub"
# --pre-include chrono: some ThunderKittens harnesses time with std::chrono without including it
TK_FLAGS="--pre-include chrono -std=c++20 -O3 --use_fast_math --expt-extended-lambda --expt-relaxed-constexpr -I $SRC/ThunderKittens/include -I $SRC/ThunderKittens/prototype -DNDEBUG -DKITTENS_HOPPER"
DG_FLAGS="-std=c++20 -O3 --expt-relaxed-constexpr --expt-extended-lambda -I $SRC/DeepGEMM/deep_gemm/include -I $SRC/cutlass/include"
# FlashAttention-3 as its setup.py builds it (sm8x off; backward off for the forward instantiation)
FA3_FLAGS="-std=c++17 -O3 --use_fast_math --expt-relaxed-constexpr --expt-extended-lambda -DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED -DCUTLASS_ENABLE_GDC_FOR_SM90 -DNDEBUG -DFLASHATTENTION_DISABLE_BACKWARD -DFLASHATTENTION_DISABLE_SM8x -I $SRC/flash-attention/hopper -I $SRC/cutlass/include"
FA3_BWD_FLAGS="${FA3_FLAGS/-DFLASHATTENTION_DISABLE_BACKWARD /}"
# FlashMLA as its setup.py builds it for sm_90a
FMLA="$SRC/FlashMLA/csrc"
FMLA_FLAGS="-std=c++20 -O3 --use_fast_math --expt-relaxed-constexpr --expt-extended-lambda -DNDEBUG -I $FMLA -I $FMLA/kerutils/include -I $FMLA/sm90 -I $SRC/cutlass/include -I $SRC/cutlass/tools/util/include"
# SageAttention's Hopper kernel shares its file with the torch bindings: the part before them is
# cut out into the build folder (third-party code stays out of this repo), compiled against our
# torch stand-in; scripts/corpus/sage_sm90.cu instantiates it
SAGE="$SRC/SageAttention/csrc/qattn/qk_int_sv_f8_cuda_sm90.cu"
mkdir -p "$OUT/build"
[ -f "$SAGE" ] && awk '/^torch::Tensor/{exit} {print}' "$SAGE" >"$OUT/build/sage_sm90_kernel.cuh"
SAGE_FLAGS="-std=c++17 -O3 --use_fast_math -I $OUT/build -I $HERE/corpus/stub-torch -I $SRC/SageAttention/csrc/qattn -I $SRC/SageAttention/csrc"
# FlashInfer's Hopper prefill as its JIT renders it for a bf16 model (our wrapper
# scripts/corpus/flashinfer_prefill_sm90.cu), against the CUTLASS checkout and CCCL v3.3.2
FI_FLAGS="-std=c++17 -O3 --use_fast_math --expt-relaxed-constexpr --expt-extended-lambda -DNDEBUG -I $SRC/cccl/libcudacxx/include -I $SRC/cccl/cub -I $SRC/cccl/thrust -I $SRC/flashinfer/include -I $SRC/cutlass/include -I $SRC/cutlass/tools/util/include -I $HERE/corpus/stub"
CT="cutlass::gemm"

# name | source | flags (one kernel family per line; macros pick the instantiation)
TARGETS=$(cat <<EOF
cutlass_coop_128x256x64_f16|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecializedCooperative -DTILE_N=256
cutlass_coop_256x128x64_f16_c2x1|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecializedCooperative -DTILE_M=256 -DCLUSTER_M=2
cutlass_coop_128x128x64_f16_c2x2|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecializedCooperative -DCLUSTER_M=2 -DCLUSTER_N=2
cutlass_coop_128x128x128_e4m3|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecializedCooperative -DELEM_AB=cutlass::float_e4m3_t -DTILE_K=128
cutlass_coop_streamk_128x128x64_f16|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecializedCooperative -DSCHEDULER=$CT::StreamKScheduler
cutlass_pingpong_128x128x64_bf16|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecializedPingpong -DELEM_AB=cutlass::bfloat16_t
cutlass_pingpong_128x64x64_f16_c1x2|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecializedPingpong -DTILE_N=64 -DCLUSTER_N=2
cutlass_ws_128x128x64_bf16_c2x1|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecialized -DELEM_AB=cutlass::bfloat16_t -DCLUSTER_M=2
cutlass_ws_64x128x64_f16_s4|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecialized -DTILE_M=64 -DSTAGES=4
cutlass_ws_128x128x32_tf32|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecialized -DELEM_AB=cutlass::tfloat32_t -DTILE_K=32
cutlass_ws_128x256x64_f16_nn|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecialized -DTILE_N=256 -DLAYOUT_B=cutlass::layout::RowMajor
deepgemm_1d2d_m128_n128_s5|$HERE/corpus/deepgemm_1d2d.cu|$DG_FLAGS
deepgemm_1d2d_m64_n128_s6|$HERE/corpus/deepgemm_1d2d.cu|$DG_FLAGS -DDG_BLOCK_M=64 -DDG_STAGES=6
deepgemm_1d2d_m128_n128_s4_mc2|$HERE/corpus/deepgemm_1d2d.cu|$DG_FLAGS -DDG_STAGES=4 -DDG_MULTICAST=2
deepgemm_1d2d_m128_n64_s5_mc2a|$HERE/corpus/deepgemm_1d2d.cu|$DG_FLAGS -DDG_BLOCK_N=64 -DDG_MULTICAST=2 -DDG_MULTICAST_ON_A=true
tk_fp8_h100_gemm|$SRC/ThunderKittens/kernels/gemm/fp8_h100/fp8_h100_gemm.cu|$TK_FLAGS
tk_educational_h100_level_05|$SRC/ThunderKittens/kernels/gemm/educational_h100/level_05.cu|$TK_FLAGS
tk_educational_h100_level_07|$SRC/ThunderKittens/kernels/gemm/educational_h100/level_07.cu|$TK_FLAGS
tk_educational_h100_level_08|$SRC/ThunderKittens/kernels/gemm/educational_h100/level_08.cu|$TK_FLAGS
fa3_fwd_hdim128_bf16|$SRC/flash-attention/hopper/instantiations/flash_fwd_hdim128_bf16_sm90.cu|$FA3_FLAGS
fa3_bwd_hdim128_bf16|$SRC/flash-attention/hopper/instantiations/flash_bwd_hdim128_bf16_sm90.cu|$FA3_BWD_FLAGS
cutlass_coop_epitma_128x128x64_f16|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecializedCooperative -DEPI_SCHEDULE=cutlass::epilogue::TmaWarpSpecializedCooperative
cutlass_pingpong_epitma_128x128x64_f16|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecializedPingpong -DEPI_SCHEDULE=cutlass::epilogue::TmaWarpSpecialized
cutlass_ws_epitma_128x128x64_bf16_c2x1|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelTmaWarpSpecialized -DEPI_SCHEDULE=cutlass::epilogue::TmaWarpSpecialized -DELEM_AB=cutlass::bfloat16_t -DCLUSTER_M=2
deepgemm_bf16_m128_n128_s5|$HERE/corpus/deepgemm_bf16.cu|$DG_FLAGS
deepgemm_1d1d_m128_n128_s5|$HERE/corpus/deepgemm_1d1d.cu|$DG_FLAGS
tk_mha_h100|$SRC/ThunderKittens/kernels/attention/mha_h100/mha_h100.cu|$TK_FLAGS
tk_based|$SRC/ThunderKittens/kernels/based/linear_attn.cu|$TK_FLAGS
tk_fp8_h100_scaled|$SRC/ThunderKittens/kernels/gemm/fp8_h100_scaled/fp8_h100_gemm_scaled.cu|$TK_FLAGS
cutlass_grouped_coop_128x128x64_f16|$HERE/corpus/cutlass_grouped.cu|$CUTLASS_FLAGS
cutlass_grouped_pingpong_128x128x64_f16|$HERE/corpus/cutlass_grouped.cu|$CUTLASS_FLAGS -DPINGPONG=1
cutlass_ex63_weight_prefetch|$SRC/cutlass/examples/63_hopper_gemm_with_weight_prefetch/63_hopper_gemm_with_weight_prefetch.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex67_fp8_blockwise|$SRC/cutlass/examples/67_hopper_fp8_warp_specialized_gemm_with_blockwise_scaling/67_hopper_fp8_warp_specialized_gemm_with_blockwise_scaling.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex54_fp8_ws|$SRC/cutlass/examples/54_hopper_fp8_warp_specialized_gemm/54_hopper_fp8_warp_specialized_gemm.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
fa3_fwd_hdim64_bf16|$SRC/flash-attention/hopper/instantiations/flash_fwd_hdim64_bf16_sm90.cu|$FA3_FLAGS
fa3_fwd_hdim128_e4m3|$SRC/flash-attention/hopper/instantiations/flash_fwd_hdim128_e4m3_sm90.cu|$FA3_FLAGS
tk_educational_h100_level_06|$SRC/ThunderKittens/kernels/gemm/educational_h100/level_06.cu|$TK_FLAGS
tk_mha_h100_lcf|$SRC/ThunderKittens/kernels/attention/mha_h100_lcf/mha_h100_lcf.cu|$TK_FLAGS
tk_fftconv_pc|$SRC/ThunderKittens/kernels/fftconv/fftconv_pc.cu|$TK_FLAGS
tk_hedgehog|$SRC/ThunderKittens/kernels/hedgehog/hedgehog.cu|$TK_FLAGS
tk_mamba2|$SRC/ThunderKittens/kernels/mamba2/mamba2.cu|$TK_FLAGS
cutlass_cpasync_ws_128x128x64_f16|$HERE/corpus/cutlass_gemm.cu|$CUTLASS_FLAGS -DSCHEDULE=KernelCpAsyncWarpSpecialized
flashmla_dense_decode_bf16|$FMLA/sm90/decode/dense/instantiations/bf16.cu|$FMLA_FLAGS
flashmla_sparse_prefill_k512|$FMLA/sm90/prefill/sparse/instantiations/phase1_k512.cu|$FMLA_FLAGS
flashmla_sparse_fp8_decode_h64|$FMLA/sm90/decode/sparse_fp8/instantiations/v32_persistent_h64.cu|$FMLA_FLAGS
flashmla_sparse_fp8_decode_h128|$FMLA/sm90/decode/sparse_fp8/instantiations/v32_persistent_h128.cu|$FMLA_FLAGS
cutlass_ex48_ws|$SRC/cutlass/examples/48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex49_builder|$SRC/cutlass/examples/49_hopper_gemm_with_collective_builder/49_collective_builder.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex88_fmha|$SRC/cutlass/examples/88_hopper_fmha/88_hopper_fmha.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common -I $SRC/cutlass/examples/88_hopper_fmha
cutlass_ex111_ssd|$SRC/cutlass/examples/111_hopper_ssd/111_hopper_ssd.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common -I $SRC/cutlass/examples/111_hopper_ssd
cutlass_ex113_gated_act|$SRC/cutlass/examples/113_hopper_gemm_activation_fusion/113_hopper_gemm_fused_gated_act.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common -I $SRC/cutlass/examples/113_hopper_gemm_activation_fusion
fa3_fwd_hdim128_bf16_paged_split|$SRC/flash-attention/hopper/instantiations/flash_fwd_hdim128_bf16_paged_split_sm90.cu|$FA3_FLAGS
fa3_fwd_hdim256_bf16|$SRC/flash-attention/hopper/instantiations/flash_fwd_hdim256_bf16_sm90.cu|$FA3_FLAGS
fa3_bwd_hdim64_bf16|$SRC/flash-attention/hopper/instantiations/flash_bwd_hdim64_bf16_sm90.cu|$FA3_BWD_FLAGS
cutlass_ex50_epi_swizzle|$SRC/cutlass/examples/50_hopper_gemm_with_epilogue_swizzle/50_hopper_gemm_with_epilogue_swizzle.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex51_gett|$SRC/cutlass/examples/51_hopper_gett/51_hopper_gett.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex52_gather_scatter|$SRC/cutlass/examples/52_hopper_gather_scatter_fusion/52_hopper_gather_scatter_fusion.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex53_permute|$SRC/cutlass/examples/53_hopper_gemm_permute/53_hopper_gemm_permute.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex55_int4_bf16|$SRC/cutlass/examples/55_hopper_mixed_dtype_gemm/55_hopper_int4_bf16_gemm.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex56_ptr_array|$SRC/cutlass/examples/56_hopper_ptr_array_batched_gemm/56_hopper_ptr_array_batched_gemm.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex57_grouped|$SRC/cutlass/examples/57_hopper_grouped_gemm/57_hopper_grouped_gemm.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex61_topk_softmax|$SRC/cutlass/examples/61_hopper_gemm_with_topk_and_softmax/61_hopper_gemm_with_topk_and_softmax.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex62_sparse|$SRC/cutlass/examples/62_hopper_sparse_gemm/62_hopper_sparse_gemm.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex68_fp8_grouped_blockwise|$SRC/cutlass/examples/68_hopper_fp8_warp_specialized_grouped_gemm_with_blockwise_scaling/68_hopper_fp8_warp_specialized_grouped_gemm_with_blockwise_scaling.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
cutlass_ex69_int4_bf16_grouped|$SRC/cutlass/examples/69_hopper_mixed_dtype_grouped_gemm/69_hopper_int4_bf16_grouped_gemm.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
fa3_fwd_hdim192_bf16|$SRC/flash-attention/hopper/instantiations/flash_fwd_hdim192_bf16_sm90.cu|$FA3_FLAGS
fa3_fwd_hdim96_bf16|$SRC/flash-attention/hopper/instantiations/flash_fwd_hdim96_bf16_sm90.cu|$FA3_FLAGS
fa3_fwd_hdim128_bf16_softcap_packgqa|$SRC/flash-attention/hopper/instantiations/flash_fwd_hdim128_bf16_softcap_packgqa_sm90.cu|$FA3_FLAGS
tk_rotary|$SRC/ThunderKittens/kernels/rotary/rotary.cu|$TK_FLAGS
tk_linear_attention|$SRC/ThunderKittens/kernels/linear_attention/linear_attention.cu|$TK_FLAGS
tk_flux_gate|$SRC/ThunderKittens/kernels/flux/flux_gate.cu|$TK_FLAGS
cutlass_ex65_distributed|$SRC/cutlass/examples/65_distributed_gemm/65_distributed_gemm.cu|$CUTLASS_FLAGS -I $SRC/cutlass/examples/common
deepgemm_mqa_logits|$HERE/corpus/deepgemm_mqa_logits.cu|$DG_FLAGS
deepgemm_paged_mqa_logits|$HERE/corpus/deepgemm_paged_mqa_logits.cu|$DG_FLAGS
deepgemm_bmk_bnk_mn|$HERE/corpus/deepgemm_bmk_bnk_mn.cu|$DG_FLAGS
deepgemm_hc_prenorm|$HERE/corpus/deepgemm_hc_prenorm.cu|$DG_FLAGS
fa3_bwd_hdim96_bf16|$SRC/flash-attention/hopper/instantiations/flash_bwd_hdim96_bf16_sm90.cu|$FA3_BWD_FLAGS
fa3_bwd_hdim192_bf16|$SRC/flash-attention/hopper/instantiations/flash_bwd_hdim192_bf16_sm90.cu|$FA3_BWD_FLAGS
flashmla_sparse_prefill_k576|$FMLA/sm90/prefill/sparse/instantiations/phase1_k576.cu|$FMLA_FLAGS
flashmla_sparse_fp8_decode_model1_h64|$FMLA/sm90/decode/sparse_fp8/instantiations/model1_persistent_h64.cu|$FMLA_FLAGS
fa3_fwd_hdim64_e4m3|$SRC/flash-attention/hopper/instantiations/flash_fwd_hdim64_e4m3_sm90.cu|$FA3_FLAGS
fa3_fwd_hdim256_e4m3|$SRC/flash-attention/hopper/instantiations/flash_fwd_hdim256_e4m3_sm90.cu|$FA3_FLAGS
fa3_fwd_hdim64_bf16_split|$SRC/flash-attention/hopper/instantiations/flash_fwd_hdim64_bf16_split_sm90.cu|$FA3_FLAGS
sage_sm90_d128_causal|$HERE/corpus/sage_sm90.cu|$SAGE_FLAGS
sage_sm90_d64_lse|$HERE/corpus/sage_sm90.cu|$SAGE_FLAGS -DHEAD_DIM=64 -DGRAN=QuantGranularity::kPerThread -DMASK=MaskMode::kNone -DRETURN_LSE=true
sage_sm90_d128_causal_vscale|$HERE/corpus/sage_sm90.cu|$SAGE_FLAGS -DFUSE_V_SCALE=true
flashinfer_single_prefill_h128_causal|$HERE/corpus/flashinfer_prefill_sm90.cu|$FI_FLAGS -DFI_KIND=0
flashinfer_batch_ragged_h128_causal|$HERE/corpus/flashinfer_prefill_sm90.cu|$FI_FLAGS -DFI_KIND=1
flashinfer_batch_paged_h128_causal|$HERE/corpus/flashinfer_prefill_sm90.cu|$FI_FLAGS -DFI_KIND=2
EOF
)

build() {
  local name="${1%%|*}" rest="${1#*|}"
  local src="${rest%%|*}" flags="${rest#*|}"
  [ -f "$src" ] || { echo "skip $name: no $src"; return 0; }
  # shellcheck disable=SC2086
  if "$NVCC" -ptx -arch=sm_90a $flags -o "$OUT/$name.ptx" "$src" 2>"$OUT/$name.log"; then echo "built $name"; rm -f "$OUT/$name.log"
  else echo "FAILED $name (see $OUT/$name.log)"; fi
}
export -f build
export NVCC OUT
# ONLY=REGEX builds just the targets whose name matches (the launch files below are written anyway)
[ -n "${ONLY:-}" ] && TARGETS=$(printf '%s\n' "$TARGETS" | grep -E "^(${ONLY})\|" || true)
printf '%s\n' "$TARGETS" | xargs -P "$JOBS" -I{} bash -c 'build "$@"' _ {}
# block sizes of the kernels that declare none (.reqntid): read by scripts/corpus.ts
echo 128 >"$OUT/tk_educational_h100_level_05.block"
echo 256 >"$OUT/tk_educational_h100_level_07.block"
echo 384 >"$OUT/tk_educational_h100_level_08.block"
echo 128 >"$OUT/tk_educational_h100_level_06.block"
for s in sage_sm90_d128_causal sage_sm90_d64_lse sage_sm90_d128_causal_vscale; do echo 128 >"$OUT/$s.block"; done
# launch values without which a kernel has no tile (read by scripts/corpus.ts, given as a user
# would give them): the scheduler's 64-bit fields default to 0, and CUTLASS rounds the tile count
# up to the cluster on the host. Written afresh each time (corpus-clusters.ts appends to them).
rm -f "$OUT"/*.launch
cat >"$OUT/cutlass_grouped_coop_128x128x64_f16.launch" <<'LAUNCH'
# PersistentTileSchedulerSm90Group: FastDivmodU64 for the 128-row and 128-column CTA tile
# (divisor, multiplier 0 for a power of two, shift 7, round_up 0), two tiles across the problem,
# two groups of 128x128x128 each
--param 0+1608:u64=128
--param 0+1616:u64=0
--param 0+1624:u32=7
--param 0+1628:u32=0
--param 0+1632:u64=128
--param 0+1640:u64=0
--param 0+1648:u32=7
--param 0+1652:u32=0
--param 0+1656:u64=2
--param 0+1680:u32=2
--param 0+1688[*]:u32=128
LAUNCH
cp "$OUT/cutlass_grouped_coop_128x128x64_f16.launch" "$OUT/cutlass_grouped_pingpong_128x128x64_f16.launch"
cat >"$OUT/cutlass_ex67_fp8_blockwise.launch" <<'LAUNCH'
# two tiles (PersistentTileSchedulerSm90's blocks per problem, one per CTA of the 1x2 cluster
# the example is compiled for)
--param 0+2552:u64=2
--cluster 1,2,1
LAUNCH
# CUTLASS examples 57, 68 and 69 (grouped GEMM): the group scheduler's fields, per kernel where
# the file's kernels differ in tile or cluster shape (`--kernel REGEX` starts lines for those only).
# group_sched OFFSET MAJOR MINOR TILE_M TILE_N TILES: PersistentTileSchedulerSm90GroupParams at
# field OFFSET of param 0: FastDivmodU64Pow2 of the cluster's MAJOR and MINOR extents (divisor,
# shift), FastDivmodU64 of the CTA tile's M and N (divisor, multiplier 0 for a power of two, shift,
# round_up 0), and the tile count (blocks_across_problem_). Every extent is a power of two.
group_sched() {
  local at="$1" major="$2" minor="$3" tm="$4" tn="$5" tiles="$6"
  log2() { local n="$1" k=0; while [ "$n" -gt 1 ]; do n=$((n / 2)); k=$((k + 1)); done; echo "$k"; }
  printf -- '--param 0+%s:%s=%s\n' \
    "$at" u64 "$major" $((at + 8)) u32 "$(log2 "$major")" $((at + 16)) u64 "$minor" $((at + 24)) u32 "$(log2 "$minor")" \
    $((at + 32)) u64 "$tm" $((at + 40)) u64 0 $((at + 48)) u32 "$(log2 "$tm")" $((at + 52)) u32 0 \
    $((at + 56)) u64 "$tn" $((at + 64)) u64 0 $((at + 72)) u32 "$(log2 "$tn")" $((at + 76)) u32 0 \
    $((at + 80)) u64 "$tiles"
}
{
  cat <<'LAUNCH'
# PersistentTileSchedulerSm90Group: two groups of 256x256x256; the problem shapes reach the kernel
# twice (the mainloop's pointer at 0+16 and the scheduler's at 0+1688), one array
--param 0+1680:u32=2
--param 0+1688[*]:u32=256
--param 0+16[*]:u32=256
# Cooperative: 256x128 tiles, 1x2 clusters (the kernel type's; the PTX does not declare it),
# raster along N: FastDivmodU64Pow2 of the cluster's 2 (major) and 1 (minor); FastDivmodU64 of
# 256 and 128 (multiplier 0 for a power of two); 2 tiles per group
--kernel Cooperative
--cluster 1,2,1
LAUNCH
  group_sched 1576 2 1 256 128 4
  cat <<'LAUNCH'
# Pingpong: 128x128 tiles, 2x1 clusters, raster along N: the cluster's 1 (major) and 2 (minor);
# 4 tiles per group
--kernel Pingpong
--cluster 2,1,1
LAUNCH
  group_sched 1576 1 2 128 128 8
} >"$OUT/cutlass_ex57_grouped.launch"
{
  cat <<'LAUNCH'
# PersistentTileSchedulerSm90Group for 128x128 tiles in 1x2 clusters (the kernel type's; the PTX
# does not declare it), raster along N: FastDivmodU64Pow2 of the cluster's 2 (major) and 1
# (minor), FastDivmodU64 of 128 and 128 (multiplier 0 for a power of two); two groups of
# 256x256x256, 4 tiles each; the problem shapes reach the kernel twice (the mainloop's pointer at
# 0+16 and the scheduler's at 0+1688), one array
--cluster 1,2,1
LAUNCH
  group_sched 1576 2 1 128 128 8
  cat <<'LAUNCH'
--param 0+1680:u32=2
--param 0+1688[*]:u32=256
--param 0+16[*]:u32=256
LAUNCH
} >"$OUT/cutlass_ex68_fp8_grouped_blockwise.launch"
{
  cat <<'LAUNCH'
# PersistentTileSchedulerSm90Group for 128x16 tiles, no cluster: FastDivmodU64Pow2 of 1 and 1,
# FastDivmodU64 of 128 and 16 (multiplier 0 for a power of two); one group of M = 128, N = 32,
# K = 128, 2 tiles; the problem shapes reach the kernel twice (the mainloop's pointer at 0+16 and
# the scheduler's at 0+2328), one array
--kernel PtrArray
LAUNCH
  group_sched 2216 1 1 128 16 2
  cat <<'LAUNCH'
--param 0+2320:u32=1
--param 0+2328[0]:u32=128
--param 0+2328[4]:u32=32
--param 0+2328[8]:u32=128
--param 0+16[0]:u32=128
--param 0+16[4]:u32=32
--param 0+16[8]:u32=128
LAUNCH
} >"$OUT/cutlass_ex69_int4_bf16_grouped.launch"
# FlashMLA's decode kernels find their work in DecodingSchedMeta, an array the host fills (one
# entry per SM part: begin/end request, begin/end block, begin split, two split flags): one
# request, blocks 0..N of it, unsplit. Its sparse FP8 decode is launched in clusters of
# NUM_HEADS / 64 CTAs (cutlass::launch_kernel_on_cluster), which its PTX does not declare: 2 for
# 128 heads.
meta() {
  local field="$1" blocks="$2"
  printf -- '--param %s[%s]=%s\n' "$field" 0 0 "$field" 4 0 "$field" 8 0 "$field" 12 "$blocks" "$field" 16 0 "$field" 20 0 "$field" 24 0
}
{ echo "# one request of 4 KV blocks (DenseAttnDecodeParams::tile_scheduler_metadata_ptr)"; meta 0+184 4; } >"$OUT/flashmla_dense_decode_bf16.launch"
{ echo "# one request of 4 top-k blocks (SparseAttnDecodeParams::tile_scheduler_metadata_ptr)"; meta 0+256 4; } >"$OUT/flashmla_sparse_fp8_decode_h64.launch"
{ echo "# one request of 4 top-k blocks (SparseAttnDecodeParams::tile_scheduler_metadata_ptr)"; meta 0+256 4; } >"$OUT/flashmla_sparse_fp8_decode_model1_h64.launch"
# DeepGEMM's paged MQA logits: schedule_meta (param 7) holds a (q, kv split) uint2 per SM, this
# CTA's start and the next one's end, by byte offset: q 0 split 0 up to q 1; one sequence of 1024
# tokens (context_lens, param 3): 16 KV blocks in 4 splits, so each KV stage is used again
{ echo "# one sequence of 1024 tokens: this CTA's schedule (0, 0) .. (1, 0)"; for x in '7[0]=0' '7[4]=0' '7[8]=1' '7[12]=0' '3[0]=1024'; do echo "--param $x"; done; } >"$OUT/deepgemm_paged_mqa_logits.launch"
{ echo "# one request of 4 top-k blocks, clusters of 2 (128 heads)"; meta 0+256 4; echo "--cluster 2,1,1"; } >"$OUT/flashmla_sparse_fp8_decode_h128.launch"
# DeepGEMM's multicast kernels are launched in clusters of kNumTMAMulticast CTAs along x
# (sm90_fp8_gemm_1d2d's launch), which their PTX does not declare
for f in deepgemm_1d2d_m128_n128_s4_mc2 deepgemm_1d2d_m128_n64_s5_mc2a; do
  echo "--cluster 2,1,1" >"$OUT/$f.launch"
done
# FlashAttention-3's 2x1-cluster forward kernels (StaticPersistentTileScheduler): the host rounds
# the number of m-blocks up to the cluster size, so total_blocks (0+2852) is even; 4 gives each CTA
# of the cluster two tiles. The sweep would take odd counts, which leave a CTA without its peer's
# tile: a hang the host never launches.
for f in fa3_fwd_hdim128_bf16 fa3_fwd_hdim192_bf16 fa3_fwd_hdim256_bf16; do
  printf -- '--kernel %s\n--param 0+2852=4\n' 'CollectiveMainloopFwdSm90ILi2EN4cute5tupleIJNS5_1CILi2EEE' >"$OUT/$f.launch"
done
# the PackGQA instantiation's Params are smaller: its total_blocks is 0+2484 (compared with %ctaid.x)
printf -- '--kernel %s\n--param 0+2484=4\n' 'CollectiveMainloopFwdSm90ILi2EN4cute5tupleIJNS5_1CILi2EEE' >"$OUT/fa3_fwd_hdim128_bf16_softcap_packgqa.launch"
# the cluster shape of every CUTLASS and FlashAttention-3 kernel whose PTX does not declare one,
# from its name (appended to the launch files above)
node --import tsx "$HERE/corpus-clusters.ts" "$OUT"
