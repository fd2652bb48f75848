"""Run a Triton kernel from an edited copy of its own PTX: does a change arefcheck points at change
what the GPU computes?

    python3 triton_ws_patch.py CASE VARIANT [LINE ...]     # on the GPU machine, one process per run

CASE is a case of triton_ws_suite.py; VARIANT `control` assembles the PTX Triton made, unchanged,
with ptxas (so the two variants differ only in the edit); `drop` comments out the given PTX lines
(each must be an `mbarrier.init`); `mutate` comments out the given lines, each an mbarrier arrive
(a release or an arrive.expect_tx left out: scripts/triton-ws-mutants.ts). Prints one RESULT line:
the PTX hash and the three runs (`hang`: not done 6 s after the launch).
"""
import copy
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def main():
    import torch
    import triton
    import triton_ws_suite as suite

    case, variant, *lines = sys.argv[1:]
    torch.manual_seed(0)
    launch, check = suite.build(case, torch, triton)
    io = launch.fresh()
    # the first launch compiles; its result is thrown away, and its module is reloaded from the edit
    compiled = launch.go(io)
    torch.cuda.synchronize()
    ptx = compiled.asm["ptx"]
    text = ptx.split("\n")
    for n in map(int, lines):
        want = "mbarrier.arrive" if variant == "mutate" else "mbarrier.init"
        assert want in text[n - 1], f"line {n} is not an {want}: {text[n - 1]}"
        if variant in ("drop", "mutate"):
            text[n - 1] = "\t// dropped: " + text[n - 1].strip()
    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d, "k.ptx"), Path(d, "k.cubin")
        src.write_text("\n".join(text))
        subprocess.run(["ptxas", "-arch=sm_90a", str(src), "-o", str(out)], check=True)
        cubin = out.read_bytes()
    # a copy of the CompiledKernel over the edited binary, loaded on its first launch
    fresh = copy.copy(compiled)
    fresh.kernel = cubin
    fresh.module = None
    fresh.function = None
    runs = []
    for _ in range(3):
        io = launch.fresh()
        launch.go_with(fresh, io)
        done = torch.cuda.Event()
        done.record()
        t0 = time.time()
        while not done.query():
            if time.time() - t0 > 6:
                print("RESULT " + json.dumps({"case": case, "variant": variant, "ptx_sha": hashlib.sha256(ptx.encode()).hexdigest()[:16], "runs": runs + ["hang"]}), flush=True)
                os._exit(0)
            time.sleep(0.01)
        runs.append(check(io))
    print("RESULT " + json.dumps({"case": case, "variant": variant, "ptx_sha": hashlib.sha256(ptx.encode()).hexdigest()[:16], "runs": runs}), flush=True)


if __name__ == "__main__":
    main()
