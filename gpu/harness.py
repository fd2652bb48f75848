"""GPU harness for the kernels arefcheck emits (docs/gpu.md).

  python3 gpu/harness.py --manifest .gpu/manifest.json --out DIR

The parent process never touches the GPU: it runs children, one per group of kernels, with a
time limit each. A kernel that traps (the watchdog build turns a hang into a trap) leaves its
CUDA context unusable, so the child reports it and exits and the parent starts a new child for
the rest. Results go to DIR/results.json, DIR/perf.csv, DIR/mutants.csv; a short table is
printed last."""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


# ---- child --------------------------------------------------------------------------------------

def child(args):
    sys.path.insert(0, HERE)
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.zeros(1, device="cuda")  # create the primary context
    import cudrv
    from kernels import Loaded, runner

    cudrv.ensure_context()
    manifest = json.load(open(args.manifest))
    base = os.path.dirname(os.path.abspath(args.manifest))
    entries = {e["id"]: e for e in manifest["entries"]}
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    cpu_gen = torch.Generator()
    cpu_gen.manual_seed(args.seed)

    def emit(tag, obj):
        print(tag, json.dumps(obj), flush=True)

    if args.info:
        p = torch.cuda.get_device_properties(0)
        emit("INFO", {"device": p.name, "sms": p.multi_processor_count, "torch": torch.__version__, "cuda": torch.version.cuda,
                      "enums": cudrv.enum_check()})

    for id_ in [i for i in args.ids.split(",") if i]:
        e = entries[id_]
        if e["kind"] == "mutant":
            L = Loaded(os.path.join(base, e["ptxWatchdog"]))
            r = runner(L, e)
            for _ in range(args.trials):
                res = r.check(gen, cpu_gen)
                emit("TRIAL", {"id": id_, **res})
                if res["status"] == "trap":
                    os._exit(0)  # the context is gone
            continue
        out = {"id": id_}
        # 1. the watchdog build first: a hang becomes a trap instead of a stuck machine
        Lw = Loaded(os.path.join(base, e["ptxWatchdog"]))
        wd = runner(Lw, e).check(gen, cpu_gen)
        out["watchdog_check"] = wd
        if wd["status"] == "trap":
            emit("RESULT", out)
            os._exit(0)
        Lw.kernel.unload()
        # 2. the plain build: correctness on fresh inputs, then timing against the peers
        L = Loaded(os.path.join(base, e["ptx"]))
        out["registers"], out["local_bytes"], out["jit_ms"] = L.registers, L.local_bytes, L.load_ms
        r = runner(L, e)
        out["occupancy"] = L.kernel.occupancy(L.meta["threads"], L.meta["smemBytes"])
        out["checks"] = [r.check(gen, cpu_gen) for _ in range(args.checks)]
        if any(c["status"] == "trap" for c in out["checks"]):
            emit("RESULT", out)
            os._exit(0)
        if e["kind"] == "perf":
            out["timing"] = r.time(gen)
        emit("RESULT", out)
        L.kernel.unload()
        torch.cuda.empty_cache()


# ---- parent -------------------------------------------------------------------------------------

def run_child(manifest, ids, timeout, extra=(), seed=1):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--manifest", manifest, "--ids", ",".join(ids), "--seed", str(seed), *extra]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        out, err, code = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as te:
        out = te.stdout.decode() if isinstance(te.stdout, bytes) else (te.stdout or "")
        err = (te.stderr.decode() if isinstance(te.stderr, bytes) else (te.stderr or "")) + f"\nhost timeout after {timeout}s"
        code = "timeout"
    lines = {"RESULT": [], "TRIAL": [], "INFO": []}
    for line in out.splitlines():
        tag, _, rest = line.partition(" ")
        if tag in lines:
            lines[tag].append(json.loads(rest))
    return lines, {"code": code, "stderr_tail": err[-2000:], "seconds": round(time.time() - t0, 1)}


def parent(args):
    manifest = json.load(open(args.manifest))
    os.makedirs(args.out, exist_ok=True)
    results = {"set": manifest["set"], "watchdog": manifest["watchdog"], "skipped": manifest["skipped"], "runs": [], "mutants": [], "children": []}
    t_start = time.time()

    info, meta = run_child(args.manifest, [], 300, ["--info"])
    results["info"] = info["INFO"][0] if info["INFO"] else {"error": meta}
    print("device:", json.dumps(results["info"]), flush=True)
    try:
        results["nvidia_smi"] = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu",
                                                "--format=csv"], capture_output=True, text=True, timeout=30).stdout
    except Exception as ex:  # noqa: BLE001
        results["nvidia_smi"] = str(ex)

    # perf and check kernels: one child per family and size, restarted after a trap
    groups = {}
    for e in manifest["entries"]:
        if e["kind"] != "mutant":
            groups.setdefault((e["family"], json.dumps(e["problem"], sort_keys=True)), []).append(e["id"])
    for key, ids in groups.items():
        todo = list(ids)
        while todo:
            lines, meta = run_child(args.manifest, todo, 60 + 40 * len(todo), ["--checks", str(args.checks)])
            results["children"].append({"ids": todo, **meta})
            done = [r["id"] for r in lines["RESULT"]]
            results["runs"].extend(lines["RESULT"])
            for r in lines["RESULT"]:
                print(summary_line(r, manifest), flush=True)
            todo = [i for i in todo if i not in done]
            if todo and (meta["code"] != 0 or not done):
                # the child died on todo[0] without reporting it (a crash or the host time limit)
                results["runs"].append({"id": todo[0], "error": meta})
                print(f"{todo[0]}: child failed: {meta['code']} {meta['stderr_tail'][-300:]}", flush=True)
                todo = todo[1:]

    # mutants: trials on fresh inputs; a trap ends the child, so hanging mutants take one child per trial
    mutants = [e for e in manifest["entries"] if e["kind"] == "mutant"]
    lock = threading.Lock()

    def run_mutant(e):
        trials, seed, failures = [], 100, 0
        while len(trials) < e["trials"] and failures < 3:
            lines, meta = run_child(args.manifest, [e["id"]], 120, ["--trials", str(e["trials"] - len(trials))], seed=seed)
            seed += 1
            got = lines["TRIAL"]
            trials.extend(got)
            if meta["code"] == "timeout":
                # a hang the watchdog did not end: record it once and stop (each costs the whole limit)
                trials.append({"status": "host-timeout", "meta": meta})
                break
            if not got:
                failures += 1
                trials.append({"status": "child-failed", "meta": meta})
        counts = {}
        for t in trials:
            counts[t["status"]] = counts.get(t["status"], 0) + 1
        rec = {"id": e["id"], "mutant": e["mutant"], "verdict": e["verdict"], "violation": e["violation"], "trials": trials, "counts": counts}
        with lock:
            results["mutants"].append(rec)
            print(f"{e['id']}: {counts}  (checker: {e['verdict']} {e['violation']['kind'] if e['violation'] else ''})", flush=True)

    threads = [threading.Thread(target=run_mutant, args=(e,)) for e in mutants]
    running = []
    for t in threads:
        while len([x for x in running if x.is_alive()]) >= args.parallel:
            time.sleep(0.2)
        t.start()
        running.append(t)
    for t in running:
        t.join()

    results["seconds"] = round(time.time() - t_start, 1)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    write_csvs(results, manifest, args.out)
    print_table(results, manifest)


def entry_of(manifest, id_):
    return next(e for e in manifest["entries"] if e["id"] == id_)


def summary_line(r, manifest):
    checks = r.get("checks", [])
    statuses = ",".join(c["status"] for c in checks)
    t = r.get("timing", {})
    perf = ""
    if "ours_tflops" in t:
        perf = f"{t['ours_tflops']:.0f} TFLOP/s vs cuBLAS {t['cublas_tflops']:.0f} ({t['vs_cublas']:.2f}x)"
    elif "ours_gbs" in t:
        perf = f"{t['ours_gbs']:.0f} GB/s vs copy {t['copy_gbs']:.0f} ({t['vs_copy']:.2f}x)"
    return f"{r['id']}: watchdog {r.get('watchdog_check', {}).get('status')} checks [{statuses}] {perf} regs {r.get('registers')} occ {r.get('occupancy')}"


def write_csvs(results, manifest, out):
    with open(os.path.join(out, "perf.csv"), "w") as f:
        f.write("id,family,D,P,C,size,checks,ours_ms,peer_ms,ours_rate,peer_rate,ratio,registers\n")
        for r in results["runs"]:
            e = entry_of(manifest, r["id"])
            t = r.get("timing", {})
            checks = "/".join(c["status"] for c in [r.get("watchdog_check", {"status": "?"})] + r.get("checks", []))
            if e["family"] == "gemm":
                size, peer, rate, prate, ratio = e["problem"]["m"], t.get("cublas_ms", {}).get("median"), t.get("ours_tflops"), t.get("cublas_tflops"), t.get("vs_cublas")
            else:
                size, peer, rate, prate, ratio = e["problem"]["elems"], t.get("copy_ms", {}).get("median"), t.get("ours_gbs"), t.get("copy_gbs"), t.get("vs_copy")
            f.write(f"{r['id']},{e['family']},{e['depth']},{e['pending']},{e['consumers']},{size},{checks},{t.get('ours_ms', {}).get('median')},{peer},{rate},{prate},{ratio},{r.get('registers')}\n")
    with open(os.path.join(out, "mutants.csv"), "w") as f:
        f.write("id,mutant,checker_verdict,checker_kind,trials,trap,wrong,pass,other\n")
        for m in results["mutants"]:
            c = m["counts"]
            other = sum(v for k, v in c.items() if k not in ("trap", "wrong", "pass"))
            f.write(f"{m['id']},{m['mutant']['id']},{m['verdict']},{(m['violation'] or {}).get('kind', '')},{sum(c.values())},{c.get('trap', 0)},{c.get('wrong', 0)},{c.get('pass', 0)},{other}\n")


def print_table(results, manifest):
    print("\n==== arefcheck GPU harness:", results["info"].get("device"), f"({results['seconds']} s) ====")
    for r in results["runs"]:
        print(summary_line(r, manifest) if "error" not in r else f"{r['id']}: ERROR {r['error']['code']}")
    for m in results["mutants"]:
        print(f"{m['id']}: {m['counts']} | checker: {m['verdict']} {(m['violation'] or {}).get('kind', '')}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", default=".gpu/manifest.json")
    ap.add_argument("--out", default=os.environ.get("OUT", "gpu-out"))
    ap.add_argument("--checks", type=int, default=3)
    ap.add_argument("--parallel", type=int, default=3)
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--ids", default="")
    ap.add_argument("--trials", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--info", action="store_true")
    args = ap.parse_args()
    if args.child:
        child(args)
    else:
        parent(args)


if __name__ == "__main__":
    main()
