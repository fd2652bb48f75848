#!/usr/bin/env bash
# arefcheck's verdicts for the runs of gpu/fastcu/run.sh: fast.cu M8–M10 of ../shared/corpus at
# M = N = 2048 and K = 32, 128, 512 (no sweep: exactly these launch values). One line per run:
# kernel, K, verdict and the kinds found.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
PTX="${1:-$HERE/../../../shared/corpus/fastcu_matmul_1_12.ptx}"
echo "kernel M N K verdict kinds"
for k in 8 9 10; do
  name=$(grep -o "_ZN[0-9]*M${k}[0-9]*matmulKernel${k}[A-Za-z0-9_]*" "$PTX" | head -1)
  for K in 32 128 512; do
    out=$(node --import tsx "$HERE/../../src/cli/main.ts" verify "$PTX" --kernel "$name" --param 0=2048 --param 1=2048 --param "2=$K" --no-sweep --timeout 120 --json 2>/dev/null)
    echo "$out" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);const kinds=[...new Set((r.violations??[]).map(v=>v.kind))].sort().join(",")||"-";console.log(`'"$k"' 2048 2048 '"$K"' ${r.verdict} ${kinds}`)})'
  done
done
