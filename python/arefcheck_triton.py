"""Save what Triton compiled for a kernel (PTX, TTGIR, metadata) and check its PTX with arefcheck.

    import arefcheck_triton as ac
    compiled = my_kernel[grid](*args, BM=128, BN=256, BK=64, num_warps=8, num_stages=3)
    ptx = ac.save(compiled, "out/gemm_128x256", )      # writes .ptx, .ttgir, .json
    ac.verify(ptx)                                      # runs `arefcheck verify`, raises on a violation

Works for @triton.jit and @gluon.jit kernels alike (both return a CompiledKernel from a launch
or from `.warmup(...)`). `verify` needs node and the arefcheck checkout (AREFCHECK_HOME, default:
this file's repository); `save` needs neither, so PTX can be dumped on a GPU machine and checked
elsewhere.
"""
import json
import os
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent


def save(compiled, stem):
    """Write STEM.ptx, STEM.ttgir (when present) and STEM.json (the compile metadata); return the .ptx path."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    asm = compiled.asm
    ptx = stem.with_suffix(".ptx")
    ptx.write_text(asm["ptx"])
    if "ttgir" in asm:
        stem.with_suffix(".ttgir").write_text(asm["ttgir"])
    meta = compiled.metadata
    meta = meta._asdict() if hasattr(meta, "_asdict") else dict(vars(meta))
    stem.with_suffix(".json").write_text(json.dumps(meta, default=str, indent=1))
    return str(ptx)


class Violation(Exception):
    """arefcheck found a violation (exit 1) or could not decide (exit 3)."""


def verify(ptx_path, *flags, home=None):
    """Run `arefcheck verify PTX --json FLAGS...` (with `--ttgir` when the TTGIR lies beside the PTX);
    return the report (a dict); raise Violation unless verified."""
    home = Path(home or os.environ.get("AREFCHECK_HOME", HERE.parent))
    # the TTGIR saved next to the PTX gives the TMA box sizes the compiler chose
    ttgir = Path(ptx_path).with_suffix(".ttgir")
    if ttgir.exists() and "--ttgir" not in flags and "--tma-box" not in flags:
        flags = (*flags, "--ttgir", str(ttgir))
    cmd = ["node", "--import", "tsx", str(home / "src/cli/main.ts"), "verify", str(ptx_path), "--json", *flags]
    r = subprocess.run(cmd, cwd=home, capture_output=True, text=True)
    if r.returncode == 2:
        raise ValueError(r.stderr.strip())
    report = json.loads(r.stdout)
    if r.returncode != 0:
        raise Violation(f"{ptx_path}: {report['verdict']}: " + "; ".join(v["message"] for v in report.get("violations", [])))
    return report
