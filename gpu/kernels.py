"""Launching the emitted kernels on torch tensors, checking them against torch, timing them.
Kernel arguments come from the `// arefcheck-meta` line of each PTX file (src/ptx/emit)."""
import ctypes
import json
import statistics
import time

import torch

from cudrv import CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, CU_FUNC_ATTRIBUTE_NUM_REGS, Kernel, synchronize, tensor_map_2d

META = "// arefcheck-meta "
TORCH_DTYPE = {"bf16": torch.bfloat16, "f16": torch.float16}


def read_meta(ptx):
    for line in ptx.splitlines():
        if line.startswith(META):
            return json.loads(line[len(META):])
    raise ValueError("no arefcheck-meta line")


class Loaded:
    """One PTX file, JIT-compiled by the driver (cuModuleLoadDataEx), ready to launch."""

    def __init__(self, path):
        t0 = time.perf_counter()
        with open(path) as f:
            self.ptx = f.read()
        self.meta = read_meta(self.ptx)
        self.kernel = Kernel(self.ptx, self.meta["name"])
        self.kernel.set_dynamic_smem(self.meta["smemBytes"])
        self.load_ms = (time.perf_counter() - t0) * 1e3
        self.registers = self.kernel.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS)
        self.local_bytes = self.kernel.attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)

    def args(self, values, iterations):
        out = []
        for a in self.meta["args"]:
            v = values[a["name"]]
            kind = a["kind"]
            out.append(ctypes.c_uint64(v) if kind == "ptr" else ctypes.c_float(v) if kind == "f32" else ctypes.c_uint32(v) if kind == "u32" else v)
        for p in self.meta["params"]:
            if not p["inlined"]:
                out.append(ctypes.c_uint32(iterations if p["name"] == self.meta["iterParam"] else p["value"]))
        return out

    def launch(self, grid, args, stream=None):
        s = torch.cuda.current_stream().cuda_stream if stream is None else stream
        self.kernel.launch(grid, self.meta["threads"], self.meta["smemBytes"], s, args)


def time_ms(fn, warmup=5, reps=30):
    """Median (and min, max) of CUDA-event timings of `reps` calls after `warmup` calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    ts = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return {"median": statistics.median(ts), "min": min(ts), "max": max(ts), "reps": reps}


def time_interleaved(fns, rounds=5, reps=8, warmup=3):
    """Times several functions in alternating rounds (a few reps of each per round), so that clock
    and power drift over the run affects all of them alike; median and spread over all reps."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    torch.cuda.synchronize()
    samples = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            evs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
            for s, e in evs:
                s.record()
                fn()
                e.record()
            torch.cuda.synchronize()
            samples[k].extend(s.elapsed_time(e) for s, e in evs)
    return {k: {"median": statistics.median(v), "min": min(v), "max": max(v), "reps": len(v)} for k, v in samples.items()}


def random_scalar(gen, lo, hi):
    """A float that is exactly an fp32 value."""
    return float(torch.empty(1).uniform_(lo, hi, generator=gen).item())


# ---- stream: y = alpha*x + beta -----------------------------------------------------------------

class Stream:
    def __init__(self, loaded, entry):
        self.L = loaded
        self.e = entry
        p = entry["problem"]
        self.grid = p["grid"]
        self.n = p["elems"]
        self.iterations = entry["iterations"]

    def args(self, x, y, alpha, beta):
        return self.L.args({"arg_x": x.data_ptr(), "arg_y": y.data_ptr(), "arg_alpha": alpha, "arg_beta": beta, "arg_stride": self.iterations}, self.iterations)

    def check(self, gen, cpu_gen):
        """Fresh random x, y poisoned with NaN; bit-exact against torch's (x*alpha)+beta."""
        x = torch.randn(self.n, device="cuda", generator=gen)
        y = torch.full_like(x, float("nan"))
        alpha, beta = random_scalar(cpu_gen, 0.5, 2.0), random_scalar(cpu_gen, -1.0, 1.0)
        t0 = time.perf_counter()
        self.L.launch(self.grid, self.args(x, y, alpha, beta))
        err = synchronize()
        wall = (time.perf_counter() - t0) * 1e3
        if err:
            return {"status": "trap", "error": err, "wall_ms": wall}
        ref = x.mul(alpha).add_(beta)
        bad = int((y != ref).sum().item())
        unwritten = int(torch.isnan(y).sum().item())
        del x, y, ref
        return {"status": "pass" if bad == 0 else "wrong", "mismatches": bad, "unwritten": unwritten, "wall_ms": wall}

    def time(self, gen):
        x = torch.randn(self.n, device="cuda", generator=gen)
        y = torch.empty_like(x)
        args = self.args(x, y, 1.5, 0.25)
        t = time_interleaved({"ours": lambda: self.L.launch(self.grid, args), "copy": lambda: y.copy_(x),
                              "torch": lambda: torch.add(x.mul(1.5), 0.25, out=y)})
        err = synchronize()
        if err:
            return {"error": err}
        nbytes = 2 * self.n * 4
        ours, copy, eltwise = t["ours"], t["copy"], t["torch"]
        gbs = lambda t: nbytes / (t["median"] * 1e-3) / 1e9  # noqa: E731
        return {"bytes": nbytes, "ours_ms": ours, "copy_ms": copy, "torch_ms": eltwise,
                "ours_gbs": gbs(ours), "copy_gbs": gbs(copy), "torch_gbs": gbs(eltwise), "vs_copy": copy["median"] / ours["median"]}


# ---- gemm: C = A * B^T --------------------------------------------------------------------------

class Gemm:
    def __init__(self, loaded, entry):
        self.L = loaded
        self.e = entry
        p = entry["problem"]
        self.m, self.n, self.k = p["m"], p["n"], p["k"]
        t = loaded.meta["tile"]
        self.bm, self.bn, self.bk = t["bm"], t["bn"], t["bk"]
        self.dtype = loaded.meta["dtype"]
        tiles = (self.m // self.bm) * (self.n // self.bn)
        self.grid = tiles
        if loaded.meta.get("persistent"):
            # a persistent kernel: each CTA computes T tiles (the Program's T, verified at that value)
            per_cta = next(p["value"] for p in loaded.meta["params"] if p["name"] == loaded.meta["tilesParam"])
            if tiles % per_cta != 0:
                raise ValueError(f"{tiles} tiles do not split into CTAs of {per_cta}")
            self.grid = tiles // per_cta
        self.iterations = self.k // self.bk

    def inputs(self, gen):
        dt = TORCH_DTYPE[self.dtype]
        a = torch.randn(self.m, self.k, device="cuda", generator=gen).to(dt)
        b = torch.randn(self.n, self.k, device="cuda", generator=gen).to(dt)
        return a, b

    def args(self, a, b, c):
        ta = tensor_map_2d(a.data_ptr(), self.m, self.k, self.bm, self.bk, self.dtype)
        tb = tensor_map_2d(b.data_ptr(), self.n, self.k, self.bn, self.bk, self.dtype)
        return self.L.args({"arg_tmap_a": ta, "arg_tmap_b": tb, "arg_c": c.data_ptr(), "arg_m": self.m, "arg_n": self.n}, self.iterations)

    def check(self, gen, cpu_gen=None):
        """Fresh random A, B; C poisoned with NaN; relative Frobenius error against fp32 (no TF32)."""
        a, b = self.inputs(gen)
        c = torch.full((self.m, self.n), float("nan"), device="cuda", dtype=a.dtype)
        t0 = time.perf_counter()
        self.L.launch(self.grid, self.args(a, b, c))
        err = synchronize()
        wall = (time.perf_counter() - t0) * 1e3
        if err:
            return {"status": "trap", "error": err, "wall_ms": wall}
        ref = a.float() @ b.float().T
        out = c.float()
        unwritten = int(torch.isnan(out).sum().item())
        rel = float(((out - ref).norm() / ref.norm()).item()) if unwritten == 0 else float("nan")
        bad_rows = int(((out - ref).abs() > 0.05 * ref.abs().max()).any(dim=1).sum().item()) if unwritten == 0 else -1
        ok = unwritten == 0 and rel < 1e-2
        return {"status": "pass" if ok else "wrong", "rel_err": rel, "unwritten": unwritten, "bad_rows": bad_rows, "wall_ms": wall}

    def time(self, gen):
        a, b = self.inputs(gen)
        c = torch.empty((self.m, self.n), device="cuda", dtype=a.dtype)
        args = self.args(a, b, c)
        t = time_interleaved({"ours": lambda: self.L.launch(self.grid, args), "cublas": lambda: torch.matmul(a, b.T)})
        err = synchronize()
        if err:
            return {"error": err}
        ours, cublas = t["ours"], t["cublas"]
        flops = 2 * self.m * self.n * self.k
        tf = lambda t: flops / (t["median"] * 1e-3) / 1e12  # noqa: E731
        return {"flops": flops, "ours_ms": ours, "cublas_ms": cublas, "ours_tflops": tf(ours), "cublas_tflops": tf(cublas),
                "vs_cublas": cublas["median"] / ours["median"]}


def runner(loaded, entry):
    return Gemm(loaded, entry) if entry["family"] == "gemm" else Stream(loaded, entry)
