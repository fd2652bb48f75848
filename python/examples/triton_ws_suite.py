"""Hardware ground truth for arefcheck on synchronization Triton writes itself: Hopper automatic warp
specialization (GEMM, persistent GEMM, attention) and pipelined attention (kernels in triton_ws_kernels.py).

    OUT=out python3 python/examples/triton_ws_suite.py       # on an H100/H200 with Triton 3.6

The harness is gluon_suite.py's: one child process per case, RUNS runs on fresh inputs with a
NaN-poisoned output, right / wrong / hang / crash. Writes OUT/triton_ws/<case>.ptx (+ .ttgir, .json)
and OUT/triton_ws/results.csv; `ws` in a case's name asks for warp specialization, and whether the
compiler did it is in the TTGIR (`ttg.warp_specialize`).
"""
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import gluon_suite as gs  # noqa: E402

OUT = Path(os.environ.get("OUT", "out")) / "triton_ws"

GEMM_WS = [(128, 128, 64, 2), (128, 128, 64, 3), (128, 128, 64, 4), (128, 256, 64, 3), (64, 128, 64, 3), (256, 128, 64, 3)]
PERSISTENT_WS = [(128, 128, 64, 3), (128, 256, 64, 3)]
# (causal, head dim, BLOCK_M, BLOCK_N, warps, stages, warp-specialized); Hopper WS: not causal, 4 warps
ATTN = [
    (False, 64, 128, 64, 4, 2, True), (False, 64, 128, 64, 4, 3, True), (False, 128, 128, 64, 4, 2, True),
    (False, 128, 128, 128, 4, 2, True), (False, 128, 128, 64, 4, 3, True),
    (False, 64, 128, 64, 4, 3, False), (True, 64, 128, 64, 4, 3, False), (False, 128, 128, 64, 8, 3, False),
    (True, 128, 128, 128, 8, 2, False), (True, 128, 64, 64, 4, 4, False), (False, 128, 128, 128, 8, 2, False),
]


def attn_name(causal, d, bm, bn, w, s, ws):
    return f"attn{'ws' if ws else ''}_{'causal' if causal else 'full'}_d{d}_{bm}x{bn}_w{w}_s{s}"


def cases():
    out = [f"mmws_{bm}x{bn}x{bk}_s{s}" for bm, bn, bk, s in GEMM_WS]
    out += [f"mmws_persistent_{bm}x{bn}x{bk}_s{s}" for bm, bn, bk, s in PERSISTENT_WS]
    out += [attn_name(*a) for a in ATTN]
    return out


def build(case, torch, triton):
    import triton_ws_kernels as tk

    # device-side tensor descriptors live in a global scratch the launch allocates
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    h = torch.float16
    if case.startswith("mmws_"):
        persistent = case.startswith("mmws_persistent_")
        shape, s = case.split("_")[-2:]
        BM, BN, BK = (int(v) for v in shape.split("x"))
        stages = int(s[1:])
        M = N = 512
        K = 1024

        fresh = gs.gemm_inputs(torch, M, N, K)
        # 5 CTAs over the 16 (or 8) tiles of the persistent kernel: trip counts differ, the ring wraps mid-tile
        kernel, grid = (tk.matmul_ws_persistent, (5,)) if persistent else (tk.matmul_ws, (M // BM, N // BN))
        args = (lambda io: (*io, M, N, K, BM, BN, BK, 5, True)) if persistent else (lambda io: (*io, M, N, K, BM, BN, BK, True))
        launch = gs.Launch(fresh, lambda io: kernel[grid](*args(io), num_warps=4, num_stages=stages))
        launch.go_with = lambda ck, io: ck[(*grid, 1, 1)[:3]](*args(io))  # a CompiledKernel of it (triton_ws_patch.py)
        return launch, gs.gemm_check(torch)

    causal, d, bm, bn, w, s, ws = next(a for a in ATTN if attn_name(*a) == case)
    ZH, N_CTX = 2, 512
    scale = d ** -0.5

    def fresh():
        q, k, v = (torch.randn(ZH * N_CTX, d, device="cuda", dtype=h) for _ in range(3))
        return q, k, v, torch.full((ZH * N_CTX, d), float("nan"), device="cuda", dtype=h)

    grid = (N_CTX // bm, ZH)
    args = lambda io: (*io, scale, ZH, N_CTX, d, bm, bn, causal, ws)  # noqa: E731

    def go(io):
        return tk.attn_fwd[grid](*args(io), num_warps=w, num_stages=s)

    def reference(io):
        q, k, v = (t.float().view(ZH, N_CTX, d) for t in io[:3])
        scores = q @ k.transpose(1, 2) * scale
        if causal:
            scores = scores.masked_fill(torch.ones(N_CTX, N_CTX, device="cuda").triu(1).bool(), float("-inf"))
        return (scores.softmax(-1) @ v).view(ZH * N_CTX, d)

    launch = gs.Launch(fresh, go)
    launch.go_with = lambda ck, io: ck[(*grid, 1, 1)[:3]](*args(io))
    return launch, lambda io: gs.rel_err(torch, io[3], reference(io))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        try:
            gs.child(sys.argv[2], build, OUT)
        except Exception:  # noqa: BLE001  a case this Triton cannot build: say why
            import traceback
            traceback.print_exc()
            sys.exit(1)
    else:
        gs.main(cases, __file__, OUT)
