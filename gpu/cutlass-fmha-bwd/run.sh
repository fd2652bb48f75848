#!/bin/bash
# Runs CUTLASS example 88's causal backward (built by build.sh) at shapes where some CTA has no
# contributing query tile, and at shapes where every CTA has one; each run is stopped after 20 s.
#   gpu/cutlass-fmha-bwd/run.sh BINARY > results.csv
# outcome: the example's own check of each kernel's dQ, dK, dV against its reference ([OK] or
# [FAIL], one per kernel instantiated for that head dim), or hang (stopped by timeout, exit 124)
BIN=${1:?usage: run.sh BINARY}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >&2
echo "d,q,k,exit,seconds,outcome"
for d in 32 64 128; do
  for qk in "512 512" "1024 512" "128 512" "32 128" "64 128" "256 384"; do
    set -- $qk
    t0=$(date +%s%N)
    out=$(timeout 20 "$BIN" --bwd --mask=causal --b=1 --h=1 --d=$d --q=$1 --k=$2 --iterations=1 --verify 2>&1)
    rc=$?
    t1=$(date +%s%N)
    if [ $rc -eq 124 ]; then what=hang; else what=$(echo "$out" | grep -o '\[OK\]\|\[FAIL\]\|\[--\]' | tr '\n' ' '); fi
    printf '%s,%s,%s,%s,%d.%d,%s\n' $d $1 $2 $rc $(( (t1 - t0) / 1000000000 )) $(( (t1 - t0) / 100000000 % 10 )) "$what"
    echo "### d=$d q=$1 k=$2 rc=$rc" >&2; echo "$out" | tail -5 >&2
  done
done
