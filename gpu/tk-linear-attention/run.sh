#!/bin/bash
# On the GPU machine: builds the four variants that build.sh wrote into .corpus/bin/tk-la/, with
# the flags it wrote beside them (carry that folder), makes the inputs (inputs.py) and runs each
# variant REPS times through ThunderKittens' own harness, which compares O with the reference.
#   gpu/tk-linear-attention/run.sh [REPS] > results.csv
# rel_diff: the harness's sum |O - O_ref| / sum |O_ref| in %; max_diff its largest |O - O_ref|.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(cd "$HERE/../../.corpus/bin/tk-la" && pwd)
REPS=${1:-5}
VARIANTS="la_orig la_delay la_fixed la_fixed_delay"
cd "$D"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >&2
for v in $VARIANTS; do
  # shellcheck disable=SC2046
  nvcc $(cat nvcc-flags) -gencode arch=compute_90a,code=sm_90a -o "$v" "$v.cu" -lcuda >"$v.build.log" 2>&1 &
done
wait
python3 "$HERE/inputs.py" randn_1024.txt >&2
mkdir -p printouts
echo "variant,rep,exit,avg_diff,avg_abs,rel_diff_percent,max_diff"
for v in $VARIANTS; do
  [ -x "$v" ] || { echo "$v,0,build-failed,,,,"; tail -5 "$v.build.log" >&2; continue; }
  for r in $(seq 1 "$REPS"); do
    out=$(timeout 60 "./$v" randn_1024.txt 2>&1); rc=$?
    line=$(echo "$out" | grep 'O | avg_diff=' | tail -1)
    # O | avg_diff=X, avg_abs=Y, rel_diff=Z%, max_diff=W
    vals=$(echo "$line" | sed -E 's/.*avg_diff=([^,]*), avg_abs=([^,]*), rel_diff=([^%]*)%, max_diff=(.*)/\1,\2,\3,\4/')
    echo "$v,$r,$rc,${vals:-,,,}"
    [ $rc -eq 0 ] || echo "$out" | tail -5 >&2
  done
done
