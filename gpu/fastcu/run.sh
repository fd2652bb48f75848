#!/usr/bin/env bash
# Run fast.cu's matmul kernels 8–10 on the GPU where arefcheck predicts a deadlock (K < 64: the
# consumers' peeled first k-block that the producer's K/64-trip loop never fills, M9 and M10) and
# where it predicts none (M = N = 2048: the tile schedule needs 8 × 8 cluster tiles), and record what the hardware does: finished (with C checked against a CPU
# reference) or hung (killed after a timeout). Then compute-sanitizer synccheck at K = 128.
#
#   gpu/fastcu/run.sh FASTCU OUT     (FASTCU: a checkout of pranjalssh/fast.cu)
# docs/gpu.md has the results and the verdicts they are compared with.
set -u
FASTCU="${1:?usage: gpu/fastcu/run.sh FASTCU OUT}"
OUT="${2:?usage: gpu/fastcu/run.sh FASTCU OUT}"
HERE="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$OUT"
nvcc -std=c++17 -O3 -DNDEBUG -w -gencode arch=compute_90a,code=sm_90a --expt-relaxed-constexpr --expt-extended-lambda \
  --use_fast_math -lineinfo -I "$FASTCU" "$HERE/harness.cu" -o "$OUT/harness" -lcuda || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt"
echo "kernel M N K outcome detail" > "$OUT/runs.txt"
for run in "8 32" "9 32" "10 32" "8 128" "9 128" "10 128" "8 512" "9 512" "10 512"; do
  set -- $run
  line=$(timeout 30 "$OUT/harness" "$1" 2048 2048 "$2" 2>&1)
  rc=$?
  if [ $rc -eq 124 ]; then outcome=hung; detail="killed after 30 s"
  elif [ $rc -eq 0 ]; then outcome=finished; detail="${line#*finished, }"
  else outcome=error; detail="rc $rc: $(echo "$line" | tail -1)"; fi
  echo "$1 2048 2048 $2 $outcome $detail" | tee -a "$OUT/runs.txt"
done
for k in 8 9 10; do
  echo "== synccheck kernel $k K=128" >> "$OUT/sanitizer.txt"
  timeout 150 compute-sanitizer --tool synccheck "$OUT/harness" "$k" 2048 2048 128 >> "$OUT/sanitizer.txt" 2>&1
  echo "rc $?" >> "$OUT/sanitizer.txt"
done
rm -f "$OUT/harness"
grep -h "ERROR SUMMARY\|^==\|^rc" "$OUT/sanitizer.txt"
cat "$OUT/runs.txt"
