#!/usr/bin/env bash
# On the device: build the multicast ring of test/fixtures/cuda/cluster_ring.cuh with and without
# its producer tail, each also with CTA 1's consumer held back before its last releases, run each
# RUNS times (K = 8 stages) at 66 clusters and at 1, then 3 times each under compute-sanitizer
# (memcheck, 4 clusters).
# Usage: gpu/cluster-exit/run.sh [RUNS] (default 20). Results: one line per binary.
set -uo pipefail
cd "$(dirname "$0")"
RUNS="${1:-20}"
OUTDIR="${OUT:-/tmp/cluster-exit}"
mkdir -p "$OUTDIR/bin"
F="-std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a"
build() { local name=$1; shift; nvcc $F -DNAME=$name "$@" -o "$OUTDIR/bin/$name" harness.cu; }
build cluster_ring_ok
build cluster_ring_no_tail -DCLUSTER_RING_NO_TAIL=1
build cluster_ring_ok_delayed -DCLUSTER_RING_DELAY_NS=50000
build cluster_ring_no_tail_delayed -DCLUSTER_RING_NO_TAIL=1 -DCLUSTER_RING_DELAY_NS=50000
echo "kernel runs wrong_runs wrong_elements"
for c in 66 1; do
  echo "-- $c clusters"
  for b in "$OUTDIR"/bin/*; do timeout 120 "$b" "$RUNS" 8 "$c" || echo "$(basename "$b") FAILED rc=$?"; done | sort
done
echo "compute-sanitizer --tool memcheck, 3 runs of 4 clusters each (the last line of each):"
for b in "$OUTDIR"/bin/*; do
  for i in 1 2 3; do
    log=$(timeout 300 compute-sanitizer --tool memcheck "$b" 1 8 4 2>&1)
    echo "$(basename "$b") run $i: $(grep -E 'ERROR SUMMARY' <<<"$log" | tail -1) $(grep -oE 'unspecified launch failure|Invalid [a-z_ ]+' <<<"$log" | head -1)"
  done
done
