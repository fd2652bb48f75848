#!/usr/bin/env bash
# Regenerate the committed PTX of the CUDA C++ lifter fixtures (test/fixtures/cuda/*.cu).
# Needs nvcc 13 (no GPU): nvcc -ptx -gencode=arch=compute_90a,code=sm_90a.
set -euo pipefail
cd "$(dirname "$0")/../test/fixtures/cuda"
NVCC="${NVCC:-nvcc}"
command -v "$NVCC" >/dev/null || { echo "build-cuda-ptx: nvcc not found (set NVCC=/path/to/nvcc)" >&2; exit 2; }
for cu in *.cu; do
  out="${cu%.cu}.ptx"
  "$NVCC" -ptx -gencode=arch=compute_90a,code=sm_90a -o "$out" "$cu"
  echo "$cu -> $out"
done
# the lcsf pattern run on the GPU (gpu/lcsf/lag.cu), without its lag loop (a loop on clock64 is data to the lifter)
"$NVCC" -ptx -gencode=arch=compute_90a,code=sm_90a -DNO_LAG -o lcsf_lag.ptx ../../../gpu/lcsf/lag.cu
echo "gpu/lcsf/lag.cu -> lcsf_lag.ptx"
