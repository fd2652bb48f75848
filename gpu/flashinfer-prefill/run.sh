#!/bin/bash
# On the GPU machine: runs the four variants build.sh wrote into .corpus/bin/fi/ (carry that
# folder), each for a few shapes, RUNS launches per process.
#   gpu/flashinfer-prefill/run.sh [RUNS] > results.csv
# max_abs_err / mean_abs_err: |O - O_ref| against harness.cu's float reference; bad_rows: rows of
# O (query, head) with an element off by more than 0.05.
set -uo pipefail
D=$(cd "$(dirname "$0")/../../.corpus/bin/fi" && pwd)
RUNS=${1:-3}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >&2
echo "variant,n,heads,exit,run,max_abs_err,mean_abs_err,bad_rows"
for v in fi_orig fi_delay fi_fixed fi_fixed_delay; do
  for shape in "256 4" "1024 8"; do
    set -- $shape
    out=$(timeout 120 "$D/$v.bin" "$1" "$2" "$RUNS" 2>&1); rc=$?
    if ! echo "$out" | grep -q '^[0-9]'; then echo "$v,$1,$2,$rc,,,,"; echo "$out" | tail -3 >&2; continue; fi
    echo "$out" | grep '^[0-9]' | sed "s/^/$v,$1,$2,$rc,/"
  done
done
