#!/usr/bin/env bash
# On the device: build every Programming Guide variant of test/fixtures/cuda/guide_* with its host
# harness (harness.cu) and run it; prints "kernel runs wrong_runs wrong_elements" per variant.
# Variants that may hang on hardware (an init count below the arrivals, a producer that never
# waits) are not run. Usage: gpu/cuda-guide/run.sh [RUNS] (default 20).
set -euo pipefail
cd "$(dirname "$0")"
RUNS="${1:-20}"
OUTDIR="${OUT:-/tmp/cuda-guide}"
mkdir -p "$OUTDIR/bin"
F="-std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -diag-suppress 20054,550,177 -lcuda"
build() { # name family defines...
  local name=$1 fam=$2; shift 2
  nvcc $F -DFAMILY_$fam -DNAME=$name "$@" -o "$OUTDIR/bin/$name" harness.cu
}
build guide_pc_ok PC -DGUIDE_PC_COUNT=128
build guide_tma1d_ok TMA1D
build guide_tma1d_no_wait TMA1D -DGUIDE_TMA_NO_WAIT=1
build guide_tma1d_no_fence TMA1D -DGUIDE_TMA_NO_FENCE=1
build guide_tma2d_ok TMA2D
build guide_tma2d_no_fence TMA2D -DGUIDE_TMA2D_NO_FENCE=1
build guide_pipeline_ok PIPE
build guide_pipeline_early_release PIPE -DGUIDE_PIPE_RELEASE_EARLY=1
# the same bug with the consumers held 20 µs between their early release and their reads
build guide_pipeline_early_release_delayed PIPE -DGUIDE_PIPE_RELEASE_EARLY=1 -DGUIDE_PIPE_DELAY_NS=20000
build guide_hist_ok HIST
build guide_hist_no_final_sync HIST -DGUIDE_HIST_NO_FINAL_SYNC=1
echo "kernel runs wrong_runs wrong_elements"
for b in "$OUTDIR"/bin/*; do timeout 120 "$b" "$RUNS" || echo "$(basename "$b") FAILED rc=$?"; done | sort
