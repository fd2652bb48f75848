#!/bin/bash
# Builds harness.cu (FlashInfer's Hopper single prefill, bf16, head dim 128, causal, through its
# own host entry point) in four variants into .corpus/bin/fi/ (git-ignored: third-party code stays
# out of the repository), each binary with its sm_90a PTX beside it:
#   fi_orig        FlashInfer's kernel as it is
#   fi_delay       the second MMA warpgroup held back ~1 ms (a clock64 spin) just before its
#                  epilogue writes O to shared memory: a schedule the hardware may pick at any time
#   fi_fixed       the epilogue's first use of EpilogueBarrier is a sync, not an arrive, so every
#                  MMA thread waits there until all of them have written O (FlashInfer's arrive
#                  and sync on that barrier, both by all 256 MMA threads with a count of 256, make
#                  two generations, and the first completes with any 256 arrivals)
#   fi_fixed_delay fi_fixed with the same delay
#   gpu/flashinfer-prefill/build.sh FLASHINFER_DIR CUTLASS_DIR CCCL_DIR
# FlashInfer vendors CCCL 3.3.2 (CCCL_DIR: a checkout of NVIDIA/cccl v3.3.2). The binaries need no
# libcuda at link time (CUTLASS reaches the driver through cudaGetDriverEntryPoint); run.sh runs
# them on the GPU machine. Findings and results: docs/gpu.md, "FlashInfer's Hopper prefill".
set -euo pipefail
FI=${1:?usage: build.sh FLASHINFER_DIR CUTLASS_DIR CCCL_DIR}
CUTLASS=${2:?usage: build.sh FLASHINFER_DIR CUTLASS_DIR CCCL_DIR}
CCCL=${3:?usage: build.sh FLASHINFER_DIR CUTLASS_DIR CCCL_DIR}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/.corpus/bin/fi
mkdir -p "$OUT"
DELAY='if (cutlass::canonical_warp_group_idx() == 2) { long long t0 = clock64(); while (clock64() - t0 < 2000000) {} }'
# variant NAME DELAY FIX: a copy of FlashInfer's headers with the epilogue patched
variant() {
  local inc=$OUT/$1/include
  rm -rf "$OUT/$1" && mkdir -p "$OUT/$1" && cp -r "$FI/include" "$inc"
  local e=$inc/flashinfer/attention/hopper/epilogue.cuh
  if [ "$3" = 1 ]; then
    perl -0pi -e 's/cutlass::arch::NamedBarrier::arrive\(NUM_MMA_THREADS,\s*cutlass::arch::ReservedNamedBarriers::EpilogueBarrier\);/cutlass::arch::NamedBarrier::sync(NUM_MMA_THREADS, cutlass::arch::ReservedNamedBarriers::EpilogueBarrier);/' "$e"
    ! grep -q 'NamedBarrier::arrive(NUM_MMA_THREADS,$' "$e"
    [ "$(grep -c 'NamedBarrier::sync(NUM_MMA_THREADS, cutlass::arch::ReservedNamedBarriers::EpilogueBarrier)' "$e")" = 1 ]
  fi
  if [ "$2" = 1 ]; then
    sed -i "s/^\( *\)cute::copy(smem_tiled_copy_O, tOrO_retile, tOsO);/\1$DELAY\n&/" "$e"
    [ "$(grep -c 'clock64() - t0 < 2000000' "$e")" = 1 ]
  fi
}
variant fi_orig 0 0
variant fi_delay 1 0
variant fi_fixed 0 1
variant fi_fixed_delay 1 1
build() {
  local flags=(-std=c++17 -O3 --use_fast_math --expt-relaxed-constexpr --expt-extended-lambda -DNDEBUG
    -I "$CCCL/libcudacxx/include" -I "$CCCL/cub" -I "$CCCL/thrust" -I "$OUT/$1/include"
    -I "$CUTLASS/include" -I "$CUTLASS/tools/util/include" -I "$ROOT/scripts/corpus/stub")
  nvcc "${flags[@]}" -gencode arch=compute_90a,code=sm_90a -o "$OUT/$1.bin" "$ROOT/gpu/flashinfer-prefill/harness.cu"
  nvcc "${flags[@]}" -arch=sm_90a -ptx -o "$OUT/$1.ptx" "$ROOT/gpu/flashinfer-prefill/harness.cu"
}
export -f build; export OUT ROOT CCCL CUTLASS
printf '%s\n' fi_orig fi_delay fi_fixed fi_fixed_delay | xargs -P "${JOBS:-2}" -I{} bash -c 'build {}' 2>&1 | grep -E 'error' || true
ls -l "$OUT"/*.bin "$OUT"/*.ptx
