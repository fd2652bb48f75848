#!/bin/bash
# Writes ThunderKittens' linear attention kernel (kernels/linear_attention/linear_attention.cu,
# its own test harness included) into .corpus/bin/tk-la/ (git-ignored: third-party code stays out
# of the repository) in four variants, each with its sm_90a PTX beside it, and a copy of the
# headers they need (tk/), so that run.sh can build them on the GPU machine:
#   la_orig        the kernel as ThunderKittens ships it
#   la_delay       the same, with warp 1 held back ~1 ms (clock64 spin) just before its
#                  warp::mul on q_decay: a schedule the hardware may pick at any time
#   la_fixed       one warp per warpgroup runs the warp-scope ops on q_decay / k_decay (each warp
#                  of the group ran them over the whole shared vector); warp::zero(kv_smem) by
#                  warp 0 only; a __syncthreads() between warp 0's init_semaphore and the loop's
#                  first wait (no barrier ordered them)
#   la_fixed_delay la_fixed with the same delay
#   gpu/tk-linear-attention/build.sh /path/to/ThunderKittens
# arefcheck's findings on the original and what these variants test: docs/gpu.md, "ThunderKittens'
# linear attention".
set -euo pipefail
TK=${1:?usage: build.sh THUNDERKITTENS_DIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/.corpus/bin/tk-la
mkdir -p "$OUT"
SRC=$TK/kernels/linear_attention/linear_attention.cu
DELAY='if (warpid == 1) { long long t0 = clock64(); while (clock64() - t0 < 2000000) {} }'
# variant NAME DELAY FIX
variant() {
  local f=$OUT/$1.cu
  cp "$SRC" "$f"
  if [ "$3" = 1 ]; then
    sed -i -E 's/^( *)(warp::(mul|exp|add)\((q|k)_decay)/\1if (warpid % 4 == 0) \2/' "$f"
    sed -i -E 's/^( *)warp::zero\(kv_smem\);/\1if (warpid == 0) warp::zero(kv_smem);\n\1__syncthreads();/' "$f"
    [ "$(grep -c 'if (warpid % 4 == 0) warp::' "$f")" = 6 ]
    grep -q 'if (warpid == 0) warp::zero(kv_smem);' "$f"
  fi
  if [ "$2" = 1 ]; then
    sed -i -E "s/^( *)(warp::mul\(q_decay|if \(warpid % 4 == 0\) warp::mul\(q_decay)/\1$DELAY\n\1\2/" "$f"
    grep -q 'clock64() - t0 < 2000000' "$f"
  fi
}
variant la_orig 0 0
variant la_delay 1 0
variant la_fixed 0 1
variant la_fixed_delay 1 1
rm -rf "$OUT/tk" && mkdir -p "$OUT/tk" && cp -r "$TK/include" "$TK/prototype" "$OUT/tk/"
# the flags of ThunderKittens' own build (scripts/build-corpus.sh TK_FLAGS), headers relative to
# $OUT; kept beside the variants, where run.sh reads them on the GPU machine
echo "--pre-include chrono -std=c++20 -O3 --use_fast_math --expt-extended-lambda --expt-relaxed-constexpr -I tk/include -I tk/prototype -DNDEBUG -DKITTENS_HOPPER" >"$OUT/nvcc-flags"
cd "$OUT"
# shellcheck disable=SC2046
printf '%s\n' la_orig la_delay la_fixed la_fixed_delay | xargs -P "${JOBS:-2}" -I{} nvcc $(cat nvcc-flags) -arch=sm_90a -ptx -o {}.ptx {}.cu
ls -l "$OUT"/*.ptx
