"""Placement benchmarks: module generators, a per-size runner, a table, an optional plot.

    vdplace bench --family chain transformer --sizes 1000 100000 --plot out.png
    python benchmarks/bench_place.py --sizes 100000

Families (each generator returns a module with about `n` bindings):

chain           one function, ``lv_i = op(lv_{i-1}, w)``, the return annotated:
                everything is found by backward propagation.
two_chains      two chains joined by an explicit ``R.to_vdevice``, one end pinned
                on the CPU, the other on the GPU.
transformer     residual blocks (layer norm, attention-like matmuls, softmax, MLP,
                two residual adds, per-block weights as parameters); every
                `hint_every`-th block starts with ``hint_on_device`` on alternating
                devices, and a shared positional table is hinted into each hinted
                block, so Z3 decides where that table lives (MaxSMT).
many_functions  `n / 10` small functions of 10 bindings called in a chain from
                ``main``, whose input is annotated: placement crosses every call.
transformer_dense  (extra, for the Z3 encoding comparison) a hint on every
                block, so there is one equality class per block.

``--encodings`` compares Z3's two encodings of a device variable (bit-vector
and EnumSort) with propagation off, so that Z3 decides every constrained
class, and prints the solve phase of each.

Each size runs in a fresh subprocess, so the peak resident memory
(``getrusage`` maxrss) belongs to that run alone; ``--tracemalloc`` adds
Python's own peak allocation (slower).  When ``tvm`` (apache-tvm) is importable
the same module is built with TVM's BlockBuilder in another subprocess and
``relax.transform.RealizeVDevice`` is timed on it; the table prints the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

FAMILIES = ("chain", "two_chains", "transformer", "many_functions")
DEFAULT_SIZES = (1_000, 10_000, 100_000, 300_000)
SHAPE = (16, 16)
PHASES = ("extract", "collapse", "solve", "check", "realize")

# -- generators (vdplace IR) ---------------------------------------------------------


def _devices():
    from vdplace.ir.vdevice import VDevice

    return [VDevice("llvm", 0), VDevice("cuda", 0)]


def build_chain(n: int):
    """``main(x, w) -> R.Tensor(..., "cuda")``: n bindings alternating add/multiply/relu."""
    from vdplace.ir.builder import ModuleBuilder, tensor

    cpu, gpu = _devices()
    mb = ModuleBuilder([cpu, gpu])
    f = mb.function("main", [("x", tensor(SHAPE)), ("w", tensor(SHAPE))], ret=tensor(SHAPE, vdevice=gpu))
    x, w = f.params
    cur = x
    for i in range(n):
        cur = _step(f, i, cur, w)
    f.finish(cur)
    return mb.get()


def _step(f, i: int, cur, w):
    k = i % 3
    if k == 0:
        return f.emit("add", cur, w, name=f"lv{i}")
    if k == 1:
        return f.emit("multiply", cur, w, name=f"lv{i}")
    return f.emit("nn.relu", cur, name=f"lv{i}")


def build_two_chains(n: int):
    """A CPU chain (input annotated llvm), ``R.to_vdevice`` to cuda, a GPU chain (return annotated)."""
    from vdplace.ir.builder import ModuleBuilder, tensor

    cpu, gpu = _devices()
    mb = ModuleBuilder([cpu, gpu])
    f = mb.function(
        "main",
        [("x", tensor(SHAPE, vdevice=cpu)), ("w", tensor(SHAPE)), ("v", tensor(SHAPE))],
        ret=tensor(SHAPE, vdevice=gpu),
    )
    x, w, v = f.params
    cur = x
    half = max(1, (n - 1) // 2)
    for i in range(half):
        cur = _step(f, i, cur, w)
    cur = f.emit("to_vdevice", cur, name="moved", dst_vdevice=gpu)
    for i in range(half, n - 1):
        cur = _step(f, i, cur, v)
    f.finish(cur)
    return mb.get()


BLOCK = 12  # bindings per transformer block (13 for a hinted block, 14 with the positional hint)


def build_transformer(n: int, hint_every: int = 8):
    """Residual blocks; a hint on alternating devices every `hint_every` blocks."""
    from vdplace.ir.builder import ModuleBuilder, tensor
    from vdplace.ir.vdevice import DeviceSpec

    cpu, gpu = _devices()
    blocks = max(1, n // BLOCK)
    params = [("x", tensor(SHAPE)), ("pos", tensor(SHAPE))]
    for b in range(blocks):
        params += [(f"wq{b}", tensor(SHAPE)), (f"wk{b}", tensor(SHAPE)), (f"wv{b}", tensor(SHAPE))]
        params += [(f"w1{b}", tensor(SHAPE)), (f"w2{b}", tensor(SHAPE))]
    mb = ModuleBuilder([cpu, gpu])
    f = mb.function("main", params)
    p = f.params
    x, pos = p[0], p[1]
    for b in range(blocks):
        wq, wk, wv, w1, w2 = p[2 + 5 * b : 7 + 5 * b]
        if b % hint_every == 0:
            device = DeviceSpec("cuda", 0) if (b // hint_every) % 2 == 0 else DeviceSpec("cpu", 0)
            x = f.emit("hint_on_device", x, name=f"h{b}", device=device)
            pe = f.emit("hint_on_device", pos, name=f"pe{b}", device=device)
            x = f.emit("add", x, pe, name=f"xp{b}")
        ln = f.emit("multiply", x, x, name=f"ln{b}")
        q = f.emit("matmul", ln, wq, name=f"q{b}")
        k = f.emit("matmul", ln, wk, name=f"k{b}")
        v = f.emit("matmul", ln, wv, name=f"v{b}")
        s = f.emit("matmul", q, k, name=f"s{b}")
        a = f.emit("nn.softmax", s, name=f"a{b}")
        o = f.emit("matmul", a, v, name=f"o{b}")
        r = f.emit("add", x, o, name=f"r{b}")
        m = f.emit("matmul", r, w1, name=f"m{b}")
        g = f.emit("nn.relu", m, name=f"g{b}")
        d = f.emit("matmul", g, w2, name=f"d{b}")
        x = f.emit("add", r, d, name=f"y{b}")
    f.finish(x)
    return mb.get()


def build_many_functions(n: int, per_function: int = 10):
    """`n / per_function` functions ``f_k(x, w)`` called in a chain from ``main`` (input on cuda)."""
    from vdplace.ir.builder import ModuleBuilder, tensor

    cpu, gpu = _devices()
    mb = ModuleBuilder([cpu, gpu])
    count = max(1, n // (per_function + 1))
    for k in range(count):
        g = mb.function(f"f{k}", [("x", tensor(SHAPE)), ("w", tensor(SHAPE))])
        cur, w = g.params
        for i in range(per_function):
            cur = _step(g, i, cur, w)
        g.finish(cur)
    f = mb.function("main", [("x", tensor(SHAPE, vdevice=gpu)), ("w", tensor(SHAPE))])
    cur, w = f.params
    for k in range(count):
        cur = f.emit(f.call_function(f"f{k}", cur, w), name=f"y{k}")
    f.finish(cur)
    return mb.get()


def build_transformer_dense(n: int):
    """`build_transformer` with a hint on every block: one equality class per block for Z3."""
    return build_transformer(n, hint_every=1)


GENERATORS: dict[str, Callable] = {
    "chain": build_chain,
    "two_chains": build_two_chains,
    "transformer": build_transformer,
    "many_functions": build_many_functions,
    "transformer_dense": build_transformer_dense,
}


# -- the same modules in TVM (optional) -----------------------------------------------


def build_tvm(family: str, n: int):
    """The same module built with TVM's BlockBuilder (needs apache-tvm)."""
    import tvm
    from tvm import relax

    # TVM 0.27 calls struct infos "types" (relax.TensorType) and vdevices relax.VDevice.
    vcpu = relax.VDevice(tvm.target.Target("llvm"), 0, "global")
    vgpu = relax.VDevice(tvm.target.Target({"kind": "cuda", "arch": "sm_80"}), 0, "global")
    bb = relax.BlockBuilder()

    def t(vdev=None):
        return relax.TensorType(SHAPE, "float32", vdevice=vdev)

    def step(i, cur, w):
        k = i % 3
        if k == 0:
            return bb.emit(relax.op.add(cur, w))
        if k == 1:
            return bb.emit(relax.op.multiply(cur, w))
        return bb.emit(relax.op.nn.relu(cur))

    if family in ("chain", "two_chains"):
        x = relax.Var("x", t(vcpu if family == "two_chains" else None))
        w = relax.Var("w", t())
        v = relax.Var("v", t())
        params = [x, w] if family == "chain" else [x, w, v]
        with bb.function("main", params):
            cur = x
            if family == "chain":
                for i in range(n):
                    cur = step(i, cur, w)
            else:
                half = max(1, (n - 1) // 2)
                for i in range(half):
                    cur = step(i, cur, w)
                cur = bb.emit(relax.op.to_vdevice(cur, vgpu))
                for i in range(half, n - 1):
                    cur = step(i, cur, v)
            bb.emit_func_output(cur)
        mod = bb.get()
        func = mod["main"]
        mod["main"] = func.with_attr("global_symbol", "main")
        mod = _tvm_set_ret(mod, "main", t(vgpu))
    elif family == "transformer":
        blocks = max(1, n // BLOCK)
        x = relax.Var("x", t())
        pos = relax.Var("pos", t())
        weights = [relax.Var(f"w{j}_{b}", t()) for b in range(blocks) for j in range(5)]
        with bb.function("main", [x, pos, *weights]):
            cur = x
            for b in range(blocks):
                wq, wk, wv, w1, w2 = weights[5 * b : 5 * b + 5]
                if b % 8 == 0:
                    dev = tvm.cuda(0) if (b // 8) % 2 == 0 else tvm.cpu(0)
                    cur = bb.emit(relax.op.hint_on_device(cur, dev))
                    pe = bb.emit(relax.op.hint_on_device(pos, dev))
                    cur = bb.emit(relax.op.add(cur, pe))
                ln = bb.emit(relax.op.multiply(cur, cur))
                q = bb.emit(relax.op.matmul(ln, wq))
                k = bb.emit(relax.op.matmul(ln, wk))
                v = bb.emit(relax.op.matmul(ln, wv))
                s = bb.emit(relax.op.matmul(q, k))
                a = bb.emit(relax.op.nn.softmax(s))
                o = bb.emit(relax.op.matmul(a, v))
                r = bb.emit(relax.op.add(cur, o))
                m = bb.emit(relax.op.matmul(r, w1))
                g = bb.emit(relax.op.nn.relu(m))
                d = bb.emit(relax.op.matmul(g, w2))
                cur = bb.emit(relax.op.add(r, d))
            bb.emit_func_output(cur)
        mod = bb.get()
    else:
        count = max(1, n // 11)
        gvars = []
        for k in range(count):
            x = relax.Var("x", t())
            w = relax.Var("w", t())
            with bb.function(f"f{k}", [x, w]):
                cur = x
                for i in range(10):
                    cur = step(i, cur, w)
                gvars.append(bb.emit_func_output(cur))
        x = relax.Var("x", t(vgpu))
        w = relax.Var("w", t())
        with bb.function("main", [x, w]):
            cur = x
            for gv in gvars:
                cur = bb.emit(relax.Call(gv, [cur, w]))
            bb.emit_func_output(cur)
        mod = bb.get()
    mod.update_global_info("vdevice", [vcpu, vgpu])
    return mod


def _tvm_set_ret(mod, name, sinfo):
    from tvm import relax

    func = mod[name]
    new = relax.Function(func.params, func.body, sinfo, func.is_pure, func.attrs, func.span)
    mod[name] = new
    return mod


# -- running one size ------------------------------------------------------------------


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _maxrss_mb() -> float:
    """Peak resident memory of this process image (VmHWM; getrusage's maxrss survives exec on Linux)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_one(family: str, n: int, *, use_tracemalloc: bool = False, **options) -> dict:
    """Build one module and place it in this process; the measurements as a dict."""
    from vdplace.placement import place

    t0 = time.perf_counter()
    mod = GENERATORS[family](n)
    build = time.perf_counter() - t0
    bindings = mod.num_bindings()
    rss_before = _rss_mb()
    if use_tracemalloc:
        import tracemalloc

        tracemalloc.start()
    t1 = time.perf_counter()
    placement = place(mod, **options)
    total = time.perf_counter() - t1
    out = {
        "family": family,
        "size": n,
        "bindings": bindings,
        "build_s": build,
        "place_s": total,
        "phases": dict(placement.stats.times),
        "sites": placement.stats.sites,
        "classes": placement.stats.classes,
        "constraints": placement.stats.constraints,
        "z3_variables": placement.stats.z3_variables,
        "z3_soft": placement.stats.z3_soft,
        "copies": placement.stats.copies,
        "rss_before_mb": rss_before,
        "peak_rss_mb": _maxrss_mb(),
    }
    if use_tracemalloc:
        import tracemalloc

        out["tracemalloc_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return out


def run_tvm_one(family: str, n: int) -> dict:
    """Build the module with TVM and time RealizeVDevice on it (in this process)."""
    from tvm import relax

    t0 = time.perf_counter()
    mod = build_tvm(family, n)
    build = time.perf_counter() - t0
    rss_before = _rss_mb()
    t1 = time.perf_counter()
    relax.transform.RealizeVDevice()(mod)
    return {
        "family": family,
        "size": n,
        "build_s": build,
        "tvm_s": time.perf_counter() - t1,
        "rss_before_mb": rss_before,
        "peak_rss_mb": _maxrss_mb(),
    }


def tvm_available() -> bool:
    """Whether apache-tvm imports in this interpreter (checked in a child: importing TVM here
    would inflate this runner's memory, and every measurement child started from it)."""
    probe = subprocess.run([sys.executable, "-c", "import tvm, tvm.relax"], capture_output=True, text=True, timeout=300)
    return probe.returncode == 0


def _in_subprocess(kind: str, family: str, n: int, options: dict, timeout: float) -> dict:
    runner = "run_tvm_one" if kind == "tvm" else "run_one"
    code = (
        "import json, sys; from vdplace import bench; "
        f"r = bench.{runner}(*json.loads(sys.argv[1]), **json.loads(sys.argv[2])); "
        "print('RESULT ' + json.dumps(r))"
    )
    args = json.dumps([family, n])
    proc = subprocess.run(
        [sys.executable, "-c", code, args, json.dumps(options)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{kind} benchmark {family}/{n} failed:\n{proc.stderr[-2000:]}")


def run(
    families: Sequence[str],
    sizes: Sequence[int],
    *,
    tvm: bool | None = None,
    use_tracemalloc: bool = False,
    options: dict | None = None,
    timeout: float = 1800.0,
    out=None,
) -> list[dict]:
    """Run every (family, size) in its own subprocess, printing one table row each."""
    out = out or sys.stdout
    options = dict(options or {})
    if use_tracemalloc:
        options["use_tracemalloc"] = True
    if tvm is None:
        tvm = tvm_available()
    results = []
    print(_header(tvm), file=out, flush=True)
    for family in families:
        for n in sizes:
            row = _in_subprocess("vdplace", family, n, options, timeout)
            if tvm:
                try:
                    theirs = _in_subprocess("tvm", family, n, {}, timeout)
                    row["tvm_s"] = theirs["tvm_s"]
                    row["tvm_peak_rss_mb"] = theirs["peak_rss_mb"]
                except (RuntimeError, subprocess.TimeoutExpired) as err:
                    row["tvm_error"] = str(err).splitlines()[0]
            results.append(row)
            print(_row(row, tvm), file=out, flush=True)
    return results


def _header(tvm: bool) -> str:
    cols = ["family", "bindings", "place s"] + [f"{p} s" for p in PHASES] + ["us/bind", "peak MB", "z3 vars"]
    if tvm:
        cols += ["TVM s", "TVM/place"]
    return " | ".join(cols) + "\n" + " | ".join("---" for _ in cols)


def _row(r: dict, tvm: bool) -> str:
    cells = [r["family"], str(r["bindings"]), f"{r['place_s']:.3f}"]
    cells += [f"{r['phases'].get(p, 0.0):.3f}" for p in PHASES]
    cells += [f"{1e6 * r['place_s'] / max(1, r['bindings']):.1f}", f"{r['peak_rss_mb']:.0f}", str(r["z3_variables"])]
    if tvm:
        if "tvm_s" in r:
            cells += [f"{r['tvm_s']:.3f}", f"{r['tvm_s'] / r['place_s']:.2f}x"]
        else:
            cells += ["error", "-"]
    return " | ".join(cells)


def plot(results: Sequence[dict], path: str) -> None:
    """Time against bindings, one line per family and phase (needs matplotlib: the `bench` extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit("--plot needs matplotlib: pip install 'vdplace[bench]'") from None
    fig, ax = plt.subplots(figsize=(10, 6.5))
    families = sorted({r["family"] for r in results})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = dict(zip(PHASES, [(0, (1, 1)), (0, (3, 1)), (0, (5, 2, 1, 2)), (0, (1, 3)), (0, (6, 2))], strict=True))
    for i, family in enumerate(families):
        color = colors[i % len(colors)]
        rows = sorted((r for r in results if r["family"] == family), key=lambda r: r["bindings"])
        xs = [r["bindings"] for r in rows]
        ax.plot(xs, [r["place_s"] for r in rows], color=color, marker="o", lw=2, label=f"{family}: place() total")
        for phase in PHASES:
            ys = [r["phases"].get(phase, 0.0) for r in rows]
            if any(ys):
                ax.plot(xs, ys, color=color, lw=1, linestyle=styles[phase], label=f"{family}: {phase}")
        tv = [(r["bindings"], r["tvm_s"]) for r in rows if "tvm_s" in r]
        if tv:
            ax.plot(
                [a for a, _ in tv],
                [b for _, b in tv],
                color=color,
                marker="x",
                lw=2,
                linestyle="--",
                label=f"{family}: TVM RealizeVDevice",
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("bindings")
    ax.set_ylabel("seconds")
    ax.set_title("vdplace place() time per phase")
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def compare_encodings(
    families: Sequence[str], sizes: Sequence[int], *, timeout: float = 1800.0, out=None
) -> list[dict]:
    """Solve time of each Z3 encoding with propagation off (Z3 decides every constrained class)."""
    out = out or sys.stdout
    rows = []
    print("family | bindings | classes | z3 vars | soft | bv solve s | enum solve s | enum/bv", file=out)
    print(" | ".join("---" for _ in range(8)), file=out, flush=True)
    for family in families:
        for n in sizes:
            got = {}
            for encoding in ("bv", "enum"):
                got[encoding] = _in_subprocess(
                    "vdplace", family, n, {"propagate": False, "encoding": encoding}, timeout
                )
            bv, enum = got["bv"], got["enum"]
            row = {
                "family": family,
                "bindings": bv["bindings"],
                "classes": bv["classes"],
                "z3_variables": bv["z3_variables"],
                "z3_soft": bv["z3_soft"],
                "bv_solve_s": bv["phases"]["solve"],
                "enum_solve_s": enum["phases"]["solve"],
            }
            rows.append(row)
            ratio = row["enum_solve_s"] / max(row["bv_solve_s"], 1e-9)
            print(
                f"{family} | {row['bindings']} | {row['classes']} | {row['z3_variables']} | {row['z3_soft']} | "
                f"{row['bv_solve_s']:.3f} | {row['enum_solve_s']:.3f} | {ratio:.2f}x",
                file=out,
                flush=True,
            )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="vdplace bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", nargs="+", choices=list(GENERATORS), default=list(FAMILIES))
    ap.add_argument("--sizes", nargs="+", type=int, default=list(DEFAULT_SIZES))
    ap.add_argument("--plot", metavar="PNG", help="write a plot of time against bindings (needs matplotlib)")
    ap.add_argument("--json", metavar="FILE", help="also write the raw results as JSON")
    ap.add_argument("--no-tvm", action="store_true", help="skip TVM even when it is installed")
    ap.add_argument("--tracemalloc", action="store_true", help="also report Python's peak allocation (slow)")
    ap.add_argument("--encoding", choices=("bv", "enum"), default=None, help="Z3 encoding of a device variable")
    ap.add_argument("--no-propagate", action="store_true", help="let Z3 decide every constrained class")
    ap.add_argument("--encodings", action="store_true", help="compare Z3's bit-vector and EnumSort encodings")
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--"]:  # `vdplace bench -- --family chain`: the CLI passes the separator on
        argv = argv[1:]
    args = ap.parse_args(argv)
    for n in args.sizes:
        if n <= 0:
            ap.error("sizes must be positive")
    if args.encodings:
        rows = compare_encodings(args.family, args.sizes)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=1)
        return 0
    options: dict = {}
    if args.encoding:
        options["encoding"] = args.encoding
    if args.no_propagate:
        options["propagate"] = False
    results = run(
        args.family,
        args.sizes,
        tvm=False if args.no_tvm else None,
        use_tracemalloc=args.tracemalloc,
        options=options,
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if args.plot:
        plot(results, args.plot)
        print(f"wrote {args.plot}")
    return 0
