"""Hardware ground truth for arefcheck on Gluon and Triton kernels (issue 8).

    OUT=out python3 python/examples/gluon_suite.py            # on an H100/H200 with Triton 3.6

Compiles the four Gluon warp-specialized kernels of gluon_kernels.py and their mutants, and Triton's
TMA GEMM over tiles x warps x stages; runs each case in its own child process (a hung or crashed
kernel must not take the others with it), RUNS times with fresh random inputs and a NaN-poisoned
output, and records right / wrong / hang / crash. Writes OUT/gluon/<case>.ptx (+ .ttgir, .json) and
OUT/gluon/results.csv; arefcheck then checks each PTX on a machine without a GPU.
"""
import csv
import json
import os
import subprocess
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

OUT = Path(os.environ.get("OUT", "out")) / "gluon"
RUNS = 3
HANG_S = 6.0      # a kernel not finished this long after launch (they take microseconds) is hung
CHILD_S = 120     # backstop for a child that wedges outside the kernel

# mutant number -> what it is (gluon_kernels.py's docstring has the same list)
MUTANTS = {
    0: "correct",
    1: "producer empty-wait parity ph (M1)",
    2: "consumer ready-wait parity ph^1 (M2)",
    3: "expect_tx too small (M3)",
    4: "expect_tx too large (M4)",
    5: "release before the read retires (M6)",
    6: "release missing (M8)",
    7: "no fence_async_shared before the TMA store (M13)",
    8: "no fence_async_shared between generic read and release (cross-proxy WAR)",
    9: "TMA-store buffer reused before tma.store_wait",
    10: "empty init count 1 for two consumers (M5 low)",
    11: "empty init count 3 for two consumers (M5 high)",
}
GLUON = {
    "gemm_ws": [0, 1, 2, 3, 4, 5, 6, 7],
    "elementwise_ws": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    "persistent_gemm_ws": [0, 1, 2, 5, 6, 7, 9],
    "two_consumer_ws": [0, 1, 2, 6, 10, 11],
}
TRITON_TILES = [(64, 64), (128, 128), (128, 256), (256, 128)]


def cases():
    out = [f"{k}_m{b}" for k, bugs in GLUON.items() for b in bugs]
    out += [f"tma_{bm}x{bn}x64_w{w}_s{s}" for bm, bn in TRITON_TILES for w in (4, 8) for s in (2, 3, 4, 5)]
    out += [f"tma_persistent_128x128x64_w{w}_s{s}" for w in (4, 8) for s in (3, 4)]
    return out


# ---------------------------------------------------------------- child: build, run RUNS times, report


def child(case, builder=None, out=None):
    """Build CASE, run it RUNS times, print its RESULT line (another suite passes its own builder and folder)."""
    import torch
    import triton
    import arefcheck_triton as ac

    torch.manual_seed(0)
    out = out or OUT
    launch, check = (builder or build)(case, torch, triton)
    runs = []
    compiled = None
    for _ in range(RUNS):
        inputs = launch.fresh()
        compiled = launch.go(inputs)
        if len(runs) == 0:
            ac.save(compiled, out / case)  # saved before waiting: a hung kernel's PTX is kept too
        done = torch.cuda.Event()
        done.record()
        t0 = time.time()
        try:
            while not done.query():
                if time.time() - t0 > HANG_S:
                    report(case, runs + ["hang"])
                    os._exit(0)  # the driver tears the hung context down with the process
                time.sleep(0.01)
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001  a fault in the kernel (illegal address, launch failure)
            report(case, runs + [f"crash: {str(e).splitlines()[0][:100]}"])
            os._exit(0)
        runs.append(check(inputs))
    report(case, runs)


def report(case, runs):
    print("RESULT " + json.dumps({"case": case, "runs": runs}), flush=True)


class Launch:
    def __init__(self, fresh, go):
        self.fresh, self.go = fresh, go


def gemm_inputs(torch, M, N, K):
    """fresh() of a GEMM case: fp16 A (M x K) and B (N x K), and C (M x N) poisoned with NaN."""
    def fresh():
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(N, K, device="cuda", dtype=torch.float16)
        return a, b, torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    return fresh


def gemm_check(torch):
    """check() of a GEMM case: C against A @ B^T in fp32."""
    return lambda io: rel_err(torch, io[2], io[0].float() @ io[1].float().T)


def rel_err(torch, out, ref):
    if torch.isnan(out).any():
        return "wrong: NaN (unwritten or garbage)"
    err = ((out.float() - ref).norm() / ref.norm()).item()
    return "right" if err < 1e-2 else f"wrong: rel err {err:.3g}"


def build(case, torch, triton):
    if case.startswith("tma_"):
        return build_triton(case, torch, triton)
    import gluon_kernels as gk
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor as GDesc

    kernel, bug = case.rsplit("_m", 1)
    bug = int(bug)
    sl = lambda shape, dt: gl.NVMMASharedLayout.get_default_for(shape, dt)  # noqa: E731
    desc = lambda t, shape, dt: GDesc.from_tensor(t, shape, sl(shape, dt))  # noqa: E731
    g = gl.float16  # Gluon's dtype for shared layouts
    if kernel == "elementwise_ws":
        R, N, BR, BC = 256, 4096, 32, 64

        def fresh():
            x = torch.randn(R, N, device="cuda")
            return x, torch.full_like(x, float("nan"))

        def go(io):
            x, y = io
            return gk.elementwise_ws[(R // BR,)](desc(x, [BR, BC], gl.float32), desc(y, [BR, BC], gl.float32), N, 3, 2, bug, num_warps=4, maxnreg=128)

        return Launch(fresh, go), lambda io: rel_err(torch, io[1], io[0] * 2 + 1)

    M = N = 512
    K = 1024

    fresh = gemm_inputs(torch, M, N, K)
    check = gemm_check(torch)
    if kernel == "gemm_ws":
        BM, BN, BK = 128, 128, 64
        go = lambda io: gk.gemm_ws[(M // BM, N // BN)](desc(io[0], [BM, BK], g), desc(io[1], [BN, BK], g), desc(io[2], [BM, BN], g), K, 3, bug, num_warps=4)  # noqa: E731
    elif kernel == "persistent_gemm_ws":
        BM, BN, BK, P = 128, 128, 64, 5  # 16 tiles over 5 CTAs: trip counts 4 and 3, the ring wraps mid-tile
        go = lambda io: gk.persistent_gemm_ws[(P,)](desc(io[0], [BM, BK], g), desc(io[1], [BN, BK], g), desc(io[2], [BM, BN], g), M, N, K, P, 3, bug, num_warps=4)  # noqa: E731
    elif kernel == "two_consumer_ws":
        BM, BN, BK = 128, 64, 64
        go = lambda io: gk.two_consumer_ws[(M // (2 * BM), N // BN)](desc(io[0], [BM, BK], g), desc(io[1], [BN, BK], g), desc(io[2], [BM, BN], g), K, 3, bug, num_warps=4, maxnreg=168)  # noqa: E731
    else:
        raise ValueError(case)
    return Launch(fresh, go), check


def build_triton(case, torch, triton):
    from triton.tools.tensor_descriptor import TensorDescriptor
    from gemm_shapes import matmul_tma, matmul_tma_persistent

    persistent = case.startswith("tma_persistent_")
    shape, w, s = case.split("_")[-3:]
    BM, BN, BK = (int(v) for v in shape.split("x"))
    warps, stages = int(w[1:]), int(s[1:])
    M = N = 512
    K = 1024

    fresh = gemm_inputs(torch, M, N, K)

    def go(io):
        ad = TensorDescriptor.from_tensor(io[0], [BM, BK])
        bd = TensorDescriptor.from_tensor(io[1], [BN, BK])
        cd = TensorDescriptor.from_tensor(io[2], [BM, BN])
        if persistent:
            return matmul_tma_persistent[(5,)](ad, bd, cd, M, N, K, BM=BM, BN=BN, BK=BK, NUM_SMS=5, WS=False, num_warps=warps, num_stages=stages)
        return matmul_tma[(M // BM, N // BN)](ad, bd, cd, M, N, K, BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)

    return Launch(fresh, go), gemm_check(torch)


# ---------------------------------------------------------------- parent: one child per case, 4 at a time


def run_case(case, script=__file__, out=None):
    out = out or OUT
    t0 = time.time()
    try:
        r = subprocess.run([sys.executable, script, "--child", case], capture_output=True, text=True, timeout=CHILD_S,
                           env={**os.environ, "PYTHONUNBUFFERED": "1"})
        (out / f"{case}.log").write_text(r.stdout + r.stderr)
        line = next((ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")), None)
        if line:
            runs = json.loads(line[7:])["runs"]
        else:
            tail = (r.stderr.strip().splitlines() or ["no output"])[-1]
            runs = [f"error: {tail[:160]}"]
    except subprocess.TimeoutExpired:
        runs = ["hang (killed by the parent)"]
    return case, runs, time.time() - t0


def summary(runs):
    if len(runs) == 1 and runs[0].startswith("error"):
        return "error"
    kinds = [r.split(":")[0].split(" ")[0] for r in runs]
    if "hang" in kinds:
        return "hang"
    if "crash" in kinds:
        return "crash"
    if "wrong" in kinds:
        return "corrupt"
    return "right"


def main(all_cases=cases, script=__file__, out=None):
    out = out or OUT
    out.mkdir(parents=True, exist_ok=True)
    only = sys.argv[1:]
    todo = [c for c in all_cases() if not only or any(o in c for o in only)]
    rows = []
    with ThreadPoolExecutor(max_workers=4) as pool:
        for case, runs, secs in pool.map(lambda c: run_case(c, script, out), todo):
            rows.append((case, summary(runs), " | ".join(runs), f"{secs:.1f}"))
            print(f"{case:40s} {rows[-1][1]:8s} {rows[-1][2][:90]}", flush=True)
    with open(out / "results.csv", "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["case", "hardware", "runs", "seconds"])
        wr.writerows(rows)
    import torch
    import triton
    (out / "machine.txt").write_text(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}, runs per case {RUNS}\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        try:
            child(sys.argv[2])
        except Exception:  # noqa: BLE001  a case this Triton cannot build (shared memory, API): say why
            traceback.print_exc()
            sys.exit(1)
    else:
        main()
