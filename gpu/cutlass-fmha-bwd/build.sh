#!/bin/bash
# Builds CUTLASS example 88's backward FMHA with the causal mask only, for sm_90a, into
# .corpus/bin/fmha_bwd_causal, and its PTX beside it (git-ignored: third-party code stays out of
# the repository).
#   gpu/cutlass-fmha-bwd/build.sh /path/to/cutlass            # CUTLASS's kernels, unchanged
#   FIXED=1 gpu/cutlass-fmha-bwd/build.sh /path/to/cutlass    # .corpus/bin/fmha_bwd_causal_fixed
# The copy of 88_hopper_fmha.cu is cut down so that only the causal fusion's kernels are
# instantiated (the other fusions and the forward pass take most of the compile time). FIXED=1
# builds a copy of the example in which the dQ reducer makes its last consumer_release only when
# it consumed a stage (the fix arefcheck's finding suggests: docs/ptx.md).
set -euo pipefail
CUTLASS=${1:?usage: build.sh CUTLASS_DIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/.corpus/bin
mkdir -p "$OUT"
EX=$CUTLASS/examples/88_hopper_fmha
NAME=fmha_bwd_causal
if [ "${FIXED:-0}" = 1 ]; then
  NAME=fmha_bwd_causal_fixed
  rm -rf "$OUT/ex88-fixed" && cp -r "$EX" "$OUT/ex88-fixed" && EX=$OUT/ex88-fixed
  H=$EX/collective/fmha_collective_bwd_tma_warpspecialized.hpp
  # the release after the reducer's loop: with no tile consumed there is nothing to release
  awk '/^    pipeline_reducer.consumer_release\(smem_pipe_release_reducer\);$/ && !done { print "    if (! first) pipeline_reducer.consumer_release(smem_pipe_release_reducer);"; done=1; next } { print }' "$H" > "$H.new"
  mv "$H.new" "$H"
  grep -q 'if (! first) pipeline_reducer.consumer_release' "$H"
fi
SRC=$OUT/$NAME.cu
sed -e 's/^\( *\)fn(ResidualFusion{});/\1(void)0;/' \
    -e 's/^\( *\)fn(DefaultFusion{});/\1(void)0;/' \
    -e 's/^\( *\)run_fwd_[0-9]*(fusion, options, hw_info);/\1(void)0;/' \
    "$EX/88_hopper_fmha.cu" > "$SRC"
grep -q 'fn(CausalFusion{})' "$SRC"
! grep -q 'fn(DefaultFusion{})\|run_fwd_[0-9]*(fusion' "$SRC"
FLAGS=(-std=c++17 -O2 --expt-relaxed-constexpr -DCUTLASS_ENABLE_GDC_FOR_SM90=0
  -I "$CUTLASS/include" -I "$CUTLASS/tools/util/include" -I "$CUTLASS/examples/common" -I "$EX"
  -I "$ROOT/scripts/corpus/stub")
nvcc "${FLAGS[@]}" -gencode arch=compute_90a,code=sm_90a -o "$OUT/$NAME" "$SRC"
nvcc "${FLAGS[@]}" -arch=sm_90a -ptx -o "$OUT/$NAME.ptx" "$SRC"
ls -l "$OUT/$NAME" "$OUT/$NAME.ptx"
