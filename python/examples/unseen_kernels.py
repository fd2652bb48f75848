"""Triton kernels of kinds the lifter was never tuned on, run on the GPU against torch, with their
PTX saved for arefcheck: fp8 (e4m3) wgmma, tensor descriptors the kernel builds itself, a
warp-specialized k-loop with BK = 128, a persistent kernel whose epilogue stores its tile in two
halves, and a batched GEMM over 3-D descriptors. Each kernel computes the right product on the GPU,
so each is expected to verify unless its PTX breaks a rule (docs/gpu.md, *Kernels not tuned on*).

    OUT=out python3 python/examples/unseen_kernels.py      # on a Hopper machine
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

OUT = Path(os.environ.get("OUT", "out")) / "unseen"
FP8 = torch.float8_e4m3fn


@triton.jit
def mm_desc(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, WS: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=WS):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([pid_n * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


@triton.jit
def mm_kn(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # B is K×N in memory: its tile is loaded as [BK, BN] and used as is (MN-major for wgmma)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([k * BK, pid_n * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


@triton.jit
def mm_device_desc(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # descriptors made in the kernel (tensormap creation in global scratch, then a proxy fence)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([pid_n * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


@triton.jit
def mm_persistent_halves(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, NUM_SMS: tl.constexpr):
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_SMS, flatten=True, warp_specialize=True):
        pid_m = tile // tiles_n
        pid_n = tile % tiles_n
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(k_tiles):
            a = a_desc.load([pid_m * BM, k * BK])
            b = b_desc.load([pid_n * BN, k * BK])
            acc = tl.dot(a, b.T, acc)
        # the epilogue in two halves of BN/2 columns (c_desc's block is [BM, BN/2])
        acc = tl.reshape(acc, (BM, 2, BN // 2))
        acc = tl.permute(acc, (0, 2, 1))
        lo, hi = tl.split(acc)
        c_desc.store([pid_m * BM, pid_n * BN], lo.to(tl.float16))
        c_desc.store([pid_m * BM, pid_n * BN + BN // 2], hi.to(tl.float16))


@triton.jit
def bmm_3d(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([batch, pid_m * BM, k * BK]).reshape(BM, BK)
        b = b_desc.load([batch, pid_n * BN, k * BK]).reshape(BN, BK)
        acc = tl.dot(a, b.T, acc)
    c_desc.store([batch, pid_m * BM, pid_n * BN], acc.to(tl.float16).reshape(1, BM, BN))


def inputs(M, N, K, dtype, batch=None):
    shape = (lambda *s: (batch, *s)) if batch else (lambda *s: s)
    a = torch.randn(*shape(M, K), device="cuda").to(dtype)
    b = torch.randn(*shape(N, K), device="cuda").to(dtype)
    return a, b


def check(c, a, b, name, k):
    torch.cuda.synchronize()
    ref = a.float() @ b.float().transpose(-1, -2)
    err = (c.float() - ref).abs().max().item()
    ac.save(k, OUT / name)
    return err < 0.05 * max(1.0, ref.abs().max().item()), err


def run_desc(name, M, N, K, BM, BN, BK, warps, stages, dtype=torch.float16, ws=False):
    a, b = inputs(M, N, K, dtype)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    ad, bd, cd = TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(b, [BN, BK]), TensorDescriptor.from_tensor(c, [BM, BN])
    k = mm_desc[(triton.cdiv(M, BM), triton.cdiv(N, BN))](ad, bd, cd, K, BM=BM, BN=BN, BK=BK, WS=ws, num_warps=warps, num_stages=stages)
    return check(c, a, b, name, k)


def run_kn(name, M, N, K, BM, BN, BK, warps, stages, dtype=torch.bfloat16):
    a = torch.randn(M, K, device="cuda").to(dtype)
    b = torch.randn(K, N, device="cuda").to(dtype)
    c = torch.empty(M, N, device="cuda", dtype=dtype)
    ad, bd, cd = TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(b, [BK, BN]), TensorDescriptor.from_tensor(c, [BM, BN])
    k = mm_kn[(triton.cdiv(M, BM), triton.cdiv(N, BN))](ad, bd, cd, K, BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
    return check(c, a, b.T, name, k)


def run_device_desc(name, M, N, K, BM, BN, BK, warps, stages):
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    a, b = inputs(M, N, K, torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    k = mm_device_desc[(triton.cdiv(M, BM), triton.cdiv(N, BN))](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
    return check(c, a, b, name, k)


def run_halves(name, M, N, K, BM, BN, BK, warps, stages):
    a, b = inputs(M, N, K, torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    ad, bd, cd = TensorDescriptor.from_tensor(a, [BM, BK]), TensorDescriptor.from_tensor(b, [BN, BK]), TensorDescriptor.from_tensor(c, [BM, BN // 2])
    k = mm_persistent_halves[(4,)](ad, bd, cd, M, N, K, BM=BM, BN=BN, BK=BK, NUM_SMS=4, num_warps=warps, num_stages=stages)
    return check(c, a, b, name, k)


def run_bmm(name, B, M, N, K, BM, BN, BK, warps, stages):
    a, b = inputs(M, N, K, torch.float16, batch=B)
    c = torch.empty(B, M, N, device="cuda", dtype=torch.float16)
    ad, bd, cd = TensorDescriptor.from_tensor(a, [1, BM, BK]), TensorDescriptor.from_tensor(b, [1, BN, BK]), TensorDescriptor.from_tensor(c, [1, BM, BN])
    k = bmm_3d[(triton.cdiv(M, BM), triton.cdiv(N, BN), B)](ad, bd, cd, K, BM=BM, BN=BN, BK=BK, num_warps=warps, num_stages=stages)
    return check(c, a, b, name, k)


CASES = [
    ("fp8_128x128x128_w4_s3", lambda n: run_desc(n, 512, 512, 1024, 128, 128, 128, 4, 3, FP8)),
    ("fp8_128x256x128_w8_s3", lambda n: run_desc(n, 512, 512, 1024, 128, 256, 128, 8, 3, FP8)),
    ("fp8_64x128x128_w4_s4", lambda n: run_desc(n, 512, 512, 1024, 64, 128, 128, 4, 4, FP8)),
    ("ws_k128_128x128x128_w4_s2", lambda n: run_desc(n, 512, 512, 1024, 128, 128, 128, 4, 2, ws=True)),
    ("ws_k128_128x128x128_w8_s3", lambda n: run_desc(n, 512, 512, 1024, 128, 128, 128, 8, 3, ws=True)),
    ("ws_fp8_128x128x128_w4_s3", lambda n: run_desc(n, 512, 512, 1024, 128, 128, 128, 4, 3, FP8, ws=True)),
    ("devdesc_128x128x64_w4_s3", lambda n: run_device_desc(n, 512, 512, 1024, 128, 128, 64, 4, 3)),
    ("devdesc_128x64x64_w4_s4", lambda n: run_device_desc(n, 512, 512, 1024, 128, 64, 64, 4, 4)),
    ("halves_128x128x64_w4_s3", lambda n: run_halves(n, 512, 512, 1024, 128, 128, 64, 4, 3)),
    ("halves_128x256x64_w8_s3", lambda n: run_halves(n, 512, 512, 1024, 128, 256, 64, 8, 3)),
    ("bmm3d_128x128x64_w4_s3", lambda n: run_bmm(n, 3, 256, 256, 512, 128, 128, 64, 4, 3)),
    ("bmm3d_64x64x64_w4_s4", lambda n: run_bmm(n, 3, 256, 256, 512, 64, 64, 64, 4, 4)),
    # second run: tf32, B given K×N (a transposed encoding), wider warp-specialized tiles
    ("tf32_128x128x32_w4_s3", lambda n: run_desc(n, 512, 512, 1024, 128, 128, 32, 4, 3, torch.float32)),
    ("tf32_128x128x64_w8_s2", lambda n: run_desc(n, 512, 512, 1024, 128, 128, 64, 8, 2, torch.float32)),
    ("kn_bf16_128x128x64_w4_s3", lambda n: run_kn(n, 512, 512, 1024, 128, 128, 64, 4, 3)),
    ("kn_bf16_128x256x64_w8_s3", lambda n: run_kn(n, 512, 512, 1024, 128, 256, 64, 8, 3)),
    ("kn_bf16_64x128x128_w4_s2", lambda n: run_kn(n, 512, 512, 1024, 64, 128, 128, 4, 2)),
    ("ws_128x256x64_w8_s4", lambda n: run_desc(n, 512, 512, 1024, 128, 256, 64, 8, 4, ws=True)),
    ("nows_128x128x128_w8_s3", lambda n: run_desc(n, 512, 512, 1024, 128, 128, 128, 8, 3)),
]

if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, fn in CASES:
        try:
            ok, err = fn(name)
            rows.append(f"{name},{'correct' if ok else 'WRONG'},{err:.4g}")
        except Exception as e:  # a config this Triton cannot build: record why
            (OUT / f"{name}.error.txt").write_text(traceback.format_exc())
            rows.append(f"{name},error,{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}")
        print(rows[-1], flush=True)
    (OUT / "results.csv").write_text("case,result,max_abs_err\n" + "\n".join(rows) + "\n")
    print(f"torch {torch.__version__}, triton {triton.__version__}, {torch.cuda.get_device_name()}")
