#!/usr/bin/env bash
# On the GPU machine: run the mutants scripts/triton-ws-mutants.ts lists (a consumer release or a
# producer arrive.expect_tx left out of Triton's own PTX), one process each, through
# triton_ws_patch.py's `mutate` variant. Usage: OUT=dir bash python/examples/triton_ws_mutants.sh
set -u
cd "$(dirname "$0")"
out="${OUT:?set OUT}/mutants.txt"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  date -u +%Y-%m-%dT%H:%M:%SZ
} > "${OUT}/machine.txt" 2>&1
: > "$out"
while read -r kase mutant line; do
  [ -z "$kase" ] && continue
  echo "# $kase $mutant line $line" >> "$out"
  timeout 180 python3 triton_ws_patch.py "$kase" mutate "$line" >> "$out" 2>&1 || echo "EXIT $? $kase $mutant" >> "$out"
done <<'LIST'
mmws_128x128x64_s2 no-release 767
mmws_128x128x64_s2 no-expect-tx 327
mmws_persistent_128x128x64_s3 no-release 944
mmws_persistent_128x128x64_s3 no-expect-tx 419
attnws_full_d64_128x64_w4_s2 no-release 558
attnws_full_d64_128x64_w4_s2 no-expect-tx 390
LIST
grep -h '^RESULT\|^EXIT' "$out"
