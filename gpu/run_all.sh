#!/usr/bin/env bash
# The GPU harness in two halves (docs/gpu.md):
#   gpu/run_all.sh build [smoke|full]   here, with node: verify every config, emit the PTX into .gpu/
#   gpu/run_all.sh run [harness args]   on the Hopper machine: load, check, time, run the mutants
# The device machine needs no node: the PTX travels in .gpu/ (ignored by git; carried to the device).
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-}"
shift || true
case "$mode" in
  build)
    set_name="${1:-full}"
    rm -rf .gpu/kernels .gpu/manifest.json
    npx tsx gpu/build.ts "$set_name"
    # every kernel assembles for sm_90a before it travels
    if command -v ptxas >/dev/null; then
      for f in .gpu/kernels/*.ptx; do ptxas -arch=sm_90a -o /dev/null "$f" || { echo "ptxas failed on $f"; exit 1; }; done
      echo "ptxas: all $(ls .gpu/kernels/*.ptx | wc -l) kernels assemble for sm_90a"
    fi
    ;;
  run)
    export PYTHONUNBUFFERED=1
    out="${OUT:-gpu-out}"
    mkdir -p "$out"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv || true
    python3 gpu/harness.py --manifest .gpu/manifest.json --out "$out" "$@" 2>&1 | tee "$out/log.txt"
    ;;
  *)
    echo "usage: gpu/run_all.sh build [smoke|full|coop|persistent|pingpong] | run [--checks N] [--parallel N]" >&2
    exit 2
    ;;
esac
