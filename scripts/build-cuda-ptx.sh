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
