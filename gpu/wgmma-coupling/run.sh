#!/bin/bash
# Every case of coupling.cu, three runs each: gpu/wgmma-coupling/run.sh > results.txt
set -e
cd "$(dirname "$0")"
nvcc -gencode arch=compute_90a,code=sm_90a -O2 -o /tmp/coupling coupling.cu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for where in 0 1; do
  for w in 1 3 0; do
    for lag in 0 100000 1000000 10000000; do
      for r in 1 2 3; do /tmp/coupling $w $lag $where; done
    done
  done
done
