"""Parse and print speed of big modules: ``ir.script`` and ``ir.parse`` at 10k and 100k bindings.

    python benchmarks/bench_parse_print.py                 # 10k and 100k, both patterns
    python benchmarks/bench_parse_print.py 1000 50000      # other sizes
    python benchmarks/bench_parse_print.py --pattern chain --no-memory

Two module shapes, each with vdevice annotations on about one binding in
eight and a to_vdevice / hint_on_device every few dozen bindings:

``chain``     one long plain block: x = op(x, x), elementwise ops in turn;
``residual``  residual blocks in dataflow blocks: matmul, add bias, relu,
              matmul, add the block input; the blocks move between devices.

For each it prints the time to build the module in Python, print it, parse
the text back, and check the round trip with ``ir.structural_equal``, then
(unless ``--no-memory``) the peak memory of printing and of parsing, measured
with tracemalloc in a second, separate run (tracemalloc slows the code it
measures, so the times come from the first run).  For reference, TVM's own
printer takes about 2 s for 100k bindings on the team's machine.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vdplace.ir import DeviceSpec, IRModule, ModuleBuilder, VDevice, script, structural_equal  # noqa: E402
from vdplace.ir.builder import tensor  # noqa: E402

DEVICES = [VDevice("llvm"), VDevice("cuda", 0), VDevice("cuda", 1)]
ELEMENTWISE = ("add", "multiply", "subtract", "maximum")


def chain(n: int) -> IRModule:
    """One plain block of n bindings: x_{i+1} = op(x_i, x_i); pins and device changes sprinkled in."""
    mb = ModuleBuilder(DEVICES)
    f = mb.function("main", [("x", tensor((16, 16), "float32", DEVICES[0]))])
    x = f.params[0]
    for i in range(n):
        if i % 64 == 63:
            dst = DEVICES[(i // 64) % len(DEVICES)]
            x = f.emit("to_vdevice", x, dst_vdevice=dst, name="lv")
        elif i % 64 == 31:
            dst = DEVICES[(i // 64 + 1) % len(DEVICES)]
            x = f.emit("hint_on_device", x, device=DeviceSpec(dst.device_type, dst.vdevice_id), name="lv")
        else:
            ann = x.struct_info if i % 8 == 0 else None
            x = f.emit(ELEMENTWISE[i % len(ELEMENTWISE)], x, x, name="lv", annotation=ann)
    f.finish(x)
    return mb.get()


def residual(n: int) -> IRModule:
    """Residual blocks of 6 bindings, one dataflow block each, moving to another device every 8 blocks."""
    mb = ModuleBuilder(DEVICES)
    d = 32
    f = mb.function(
        "main",
        [
            ("x", tensor((8, d), "float32", DEVICES[1])),
            ("w", tensor((d, d), "float32")),
            ("b", tensor((d,), "float32")),
        ],
    )
    x, w, b = f.params
    emitted = 0
    block = 0
    while emitted < n:
        with f.dataflow():
            h = f.emit("matmul", x, w, name="lv")
            h = f.emit("add", h, b, name="lv", annotation=h.struct_info if block % 2 == 0 else None)
            h = f.emit("nn.relu", h, name="lv")
            h = f.emit("matmul", h, w, name="lv")
            last = block % 8 == 7
            h = f.emit("add", h, x, name="gv", output=not last)
            emitted += 5
            if last:
                dst = DEVICES[1 + (block // 8) % 2]
                h = f.emit("to_vdevice", h, dst_vdevice=dst, name="gv", output=True)
                emitted += 1
        x = h
        block += 1
    f.finish(x)
    return mb.get()


PATTERNS: dict[str, Callable[[int], IRModule]] = {"chain": chain, "residual": residual}


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def peak_mb(fn: Callable[[], object]) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20


def find_parse() -> Callable[..., IRModule] | None:
    from vdplace import ir

    return getattr(ir, "parse", None)


def measure(pattern: str, n: int, memory: bool) -> dict[str, object]:
    parse = find_parse()
    build_s, mod = timed(lambda: PATTERNS[pattern](n))
    bindings = mod.num_bindings()  # type: ignore[union-attr]
    print_s, text = timed(lambda: script(mod))  # type: ignore[arg-type]
    row: dict[str, object] = {
        "pattern": pattern,
        "bindings": bindings,
        "build_s": build_s,
        "print_s": print_s,
        "text_mb": len(text) / 2**20,  # type: ignore[arg-type]
        "parse_s": None,
        "equal_s": None,
        "print_peak_mb": None,
        "parse_peak_mb": None,
    }
    if parse is not None:
        row["parse_s"], parsed = timed(lambda: parse(text))
        row["equal_s"], same = timed(lambda: structural_equal(mod, parsed))  # type: ignore[arg-type]
        if not same:
            raise SystemExit(f"{pattern} {n}: parse(script(m)) is not structurally equal to m")
        del parsed
    if memory:
        row["print_peak_mb"] = peak_mb(lambda: script(mod))  # type: ignore[arg-type]
        if parse is not None:
            row["parse_peak_mb"] = peak_mb(lambda: parse(text))
    return row


COLUMNS = [
    ("pattern", "pattern", "{}"),
    ("bindings", "bindings", "{:,}"),
    ("build_s", "build s", "{:.2f}"),
    ("print_s", "print s", "{:.2f}"),
    ("text_mb", "text MB", "{:.1f}"),
    ("parse_s", "parse s", "{:.2f}"),
    ("equal_s", "equal s", "{:.2f}"),
    ("print_peak_mb", "print peak MB", "{:.0f}"),
    ("parse_peak_mb", "parse peak MB", "{:.0f}"),
]


def format_table(rows: list[dict[str, object]]) -> str:
    cells = [[title for _, title, _ in COLUMNS]]
    for row in rows:
        cells.append(["-" if row[key] is None else fmt.format(row[key]) for key, _, fmt in COLUMNS])
    widths = [max(len(r[i]) for r in cells) for i in range(len(COLUMNS))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000], help="bindings per module")
    parser.add_argument("--pattern", choices=sorted(PATTERNS), action="append", help="default: all")
    parser.add_argument("--no-memory", action="store_true", help="skip the tracemalloc peak-memory runs")
    args = parser.parse_args(argv)
    if find_parse() is None:
        print("ir.parse is not available: parse columns are empty", file=sys.stderr)
    rows = []
    for pattern in args.pattern or list(PATTERNS):
        for n in args.sizes:
            rows.append(measure(pattern, n, memory=not args.no_memory))
            print(f"done: {pattern} {n}", file=sys.stderr)
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
