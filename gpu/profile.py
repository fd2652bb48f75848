"""Launches chosen kernels of the manifest once each (and cuBLAS once per gemm size) for Nsight
Compute: ncu --clock-control none ... python3 gpu/profile.py --ids A,B"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import cudrv  # noqa: E402
from kernels import Loaded, runner  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", default=".gpu/manifest.json")
    ap.add_argument("--ids", required=True)
    args = ap.parse_args()
    torch.zeros(1, device="cuda")
    cudrv.ensure_context()
    manifest = json.load(open(args.manifest))
    base = os.path.dirname(os.path.abspath(args.manifest))
    entries = {e["id"]: e for e in manifest["entries"]}
    gen = torch.Generator(device="cuda")
    gen.manual_seed(7)
    done_sizes = set()
    for id_ in args.ids.split(","):
        e = entries[id_]
        r = runner(Loaded(os.path.join(base, e["ptx"])), e)
        a, b = r.inputs(gen)
        c = torch.empty((r.m, r.n), device="cuda", dtype=a.dtype)
        r.L.launch(r.grid, r.args(a, b, c))
        torch.cuda.synchronize()
        if r.m not in done_sizes:
            done_sizes.add(r.m)
            torch.matmul(a, b.T)
            torch.cuda.synchronize()
        print("profiled", id_, cudrv.synchronize(), flush=True)


if __name__ == "__main__":
    main()
