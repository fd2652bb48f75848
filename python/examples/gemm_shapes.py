"""Triton TMA GEMMs at several tile shapes (and a Gluon warp-specialized one), run on the GPU against
torch, with their PTX saved for arefcheck: ground truth for the lifter on kernels it was not tuned on.

    OUT=out python3 python/examples/gemm_shapes.py      # on a Hopper machine
"""
import os
import sys
import traceback
from pathlib import Path

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import arefcheck_triton as ac  # noqa: E402

OUT = Path(os.environ.get("OUT", "out")) / "triton"


@triton.jit
def matmul_tma(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([pid_n * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


@triton.jit
def matmul_tma_persistent(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, NUM_SMS: tl.constexpr, WS: tl.constexpr):
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_SMS, flatten=True, warp_specialize=WS):
        pid_m = tile // tiles_n
        pid_n = tile % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(k_tiles):
            a = a_desc.load([pid_m * BM, k * BK])
            b = b_desc.load([pid_n * BN, k * BK])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


def run_tma(name, M, N, K, BM, BN, BK, warps, stages, persistent=False, ws=False):
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    ad = TensorDescriptor.from_tensor(a, [BM, BK])
    bd = TensorDescriptor.from_tensor(b, [BN, BK])
    cd = TensorDescriptor.from_tensor(c, [BM, BN])
    if persistent:
        sms = 4
        k = matmul_tma_persistent[(sms,)](ad, bd, cd, M, N, K, BM=BM, BN=BN, BK=BK, NUM_SMS=sms, WS=ws, num_warps=warps, num_stages=stages)
    else:
        k = matmul_tma[(triton.cdiv(M, BM), triton.cdiv(N, BN))](ad, bd, cd, M, N, K, BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
    torch.cuda.synchronize()
    ref = (a.float() @ b.float().T)
    err = (c.float() - ref).abs().max().item()
    ok = err < 0.05 * max(1.0, ref.abs().max().item())
    ac.save(k, OUT / name)
    return ok, err, f"M={M} N={N} K={K}"


try:  # Gluon: Triton's explicit dialect (warp_specialize, mbarrier, TMA, wgmma by hand)
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia.hopper import tma, mbarrier, warpgroup_mma, warpgroup_mma_wait, fence_async_shared
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor as GDesc
    HAVE_GLUON = True
except ImportError:
    HAVE_GLUON = False

if HAVE_GLUON:
    @gluon.jit
    def load_part(a_desc, b_desc, a_bufs, b_bufs, ready, empty, k_tiles, pid_m, pid_n, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr, S: gl.constexpr):
        for k in range(k_tiles):
            s = k % S
            ph = (k // S) & 1
            mbarrier.wait(empty.index(s), ph ^ 1)
            mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_copy_global_to_shared(a_desc, [pid_m * BM, k * BK], ready.index(s), a_bufs.index(s))
            tma.async_copy_global_to_shared(b_desc, [pid_n * BN, k * BK], ready.index(s), b_bufs.index(s))

    @gluon.jit
    def mma_part(c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, pid_m, pid_n, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr, S: gl.constexpr, BUG: gl.constexpr):
        layout: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BN, 16])
        acc = gl.zeros((BM, BN), dtype=gl.float32, layout=layout)
        for k in range(k_tiles):
            s = k % S
            ph = (k // S) & 1
            mbarrier.wait(ready.index(s), ph ^ BUG)  # BUG = 1: the parity-flip mutant (M2)
            acc = warpgroup_mma(a_bufs.index(s), b_bufs.index(s).permute((1, 0)), acc, is_async=True)
            acc = warpgroup_mma_wait(0, deps=[acc])
            mbarrier.arrive(empty.index(s), count=1)
        c_smem.store(acc.to(gl.float16))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [pid_m * BM, pid_n * BN], c_smem)
        tma.store_wait(0)

    @gluon.jit
    def gluon_gemm_ws(a_desc, b_desc, c_desc, K, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr, S: gl.constexpr, BUG: gl.constexpr):
        pid_m = gl.program_id(0)
        pid_n = gl.program_id(1)
        k_tiles = gl.cdiv(K, BK)
        a_bufs = gl.allocate_shared_memory(a_desc.dtype, [S, BM, BK], a_desc.layout)
        b_bufs = gl.allocate_shared_memory(b_desc.dtype, [S, BN, BK], b_desc.layout)
        c_smem = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
        ready = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
        empty = gl.allocate_shared_memory(gl.int64, [S, 1], mbarrier.MBarrierLayout())
        for i in gl.static_range(S):
            mbarrier.init(ready.index(i), count=1)
            mbarrier.init(empty.index(i), count=1)
        fence_async_shared()
        gl.warp_specialize([
            (mma_part, (c_desc, a_bufs, b_bufs, ready, empty, c_smem, k_tiles, pid_m, pid_n, BM, BN, BK, S, BUG)),
            (load_part, (a_desc, b_desc, a_bufs, b_bufs, ready, empty, k_tiles, pid_m, pid_n, BM, BN, BK, S)),
        ], [1], [40])



def gluon_ws(name, M, N, K, BM, BN, BK, stages, bug=0):
    """A Gluon warp-specialized GEMM: a 1-warp TMA producer and a 4-warp wgmma consumer."""
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    sl = lambda shape: gl.NVMMASharedLayout.get_default_for(shape, gl.float16)  # noqa: E731
    ad = GDesc.from_tensor(a, [BM, BK], sl([BM, BK]))
    bd = GDesc.from_tensor(b, [BN, BK], sl([BN, BK]))
    cd = GDesc.from_tensor(c, [BM, BN], sl([BM, BN]))
    k = gluon_gemm_ws[(triton.cdiv(M, BM), triton.cdiv(N, BN))](ad, bd, cd, K, BM, BN, BK, stages, bug, num_warps=4)
    torch.cuda.synchronize()
    ref = a.float() @ b.float().T
    err = (c.float() - ref).abs().max().item()
    ac.save(k, OUT / name)
    return err < 0.05 * max(1.0, ref.abs().max().item()), err, f"M={M} N={N} K={K}"


CASES = [
    ("tma_128x256x64_w8_s3", lambda: run_tma("tma_128x256x64_w8_s3", 512, 512, 1024, 128, 256, 64, 8, 3)),
    ("tma_128x128x64_w4_s4", lambda: run_tma("tma_128x128x64_w4_s4", 512, 512, 1024, 128, 128, 64, 4, 4)),
    ("tma_64x128x64_w4_s3", lambda: run_tma("tma_64x128x64_w4_s3", 512, 512, 1024, 64, 128, 64, 4, 3)),
    ("tma_128x64x128_w4_s2", lambda: run_tma("tma_128x64x128_w4_s2", 512, 512, 1024, 128, 64, 128, 4, 2)),
    ("tma_64x64x32_w4_s5", lambda: run_tma("tma_64x64x32_w4_s5", 512, 512, 1024, 64, 64, 32, 4, 5)),
    ("tma_persistent_128x128x64_w4_s3", lambda: run_tma("tma_persistent_128x128x64_w4_s3", 512, 512, 1024, 128, 128, 64, 4, 3, persistent=True)),
    ("tma_persistent_ws_128x128x64_w4_s3", lambda: run_tma("tma_persistent_ws_128x128x64_w4_s3", 512, 512, 1024, 128, 128, 64, 4, 3, persistent=True, ws=True)),
    ("gluon_ws_128x128x64_s3", lambda: gluon_ws("gluon_ws_128x128x64_s3", 512, 512, 1024, 128, 128, 64, 3)),
    ("gluon_ws_64x128x64_s4", lambda: gluon_ws("gluon_ws_64x128x64_s4", 512, 512, 1024, 64, 128, 64, 4)),
    ("gluon_ws_128x128x64_s3_parity_mutant", lambda: gluon_ws("gluon_ws_128x128x64_s3_parity_mutant", 512, 512, 1024, 128, 128, 64, 3, bug=1)),
]

if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, fn in CASES:
        try:
            ok, err, shape = fn()
            rows.append(f"{name},{'correct' if ok else 'WRONG'},{err:.4g},{shape}")
        except Exception as e:  # a config this Triton cannot build: record why
            (OUT / f"{name}.error.txt").write_text(traceback.format_exc())
            rows.append(f"{name},error,,{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}")
        print(rows[-1], flush=True)
    (OUT / "results.csv").write_text("case,result,max_abs_err,shape\n" + "\n".join(rows) + "\n")
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}")
