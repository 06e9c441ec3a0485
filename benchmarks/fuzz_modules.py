"""A seeded mutation fuzzer: mutated modules through parse, place, print and run raise only documented errors.

    python benchmarks/fuzz_modules.py                       # 10,000 mutants, seed 0, 8 workers
    python benchmarks/fuzz_modules.py -n 200 --seed 7 --workers 1 --timeout 20
    python benchmarks/fuzz_modules.py -n 2000 --seeds tests/tir/      # only seeds whose name has this text

The seeds are every module the repository holds: ``examples/*.py``,
``tests/models/*/*.py``, ``tests/tir/*.py`` and the TVMScript string constants of the other ``tests/**/*.py``
(read with `ast`, never imported).  Each mutant is one seed with one to three
mutations (`MUTATIONS`: deleted, duplicated and swapped lines, truncation,
token and character edits, deep nesting, huge dims, odd Unicode).  It goes
through `check`:

parse   ``ir.parse``; may raise `vdplace.ir.IRError` (``ParseError``, ``InferenceError``...);
place   ``placement.place(default="host")``; may raise `PlacementConflict` or an `IRError`
        (``PlacementError``); must leave the parsed module as it was;
print   ``ir.script`` of the placed module; may raise ``ir.printer.PrintError``; what it
        prints must parse again (a failure there is a bug: ``roundtrip``);
run     compile and run ``main`` on every device simulated, each with a 64 MiB per-tensor
        limit, on seeded random inputs; may raise `runtime.VMError`; must leave the
        module and the inputs as they were.

Anything else is a finding: ``crash`` (an undocumented exception, with its
traceback), ``mutated`` (an input changed), ``roundtrip``, or ``hang`` (no
answer within ``--timeout`` seconds: each mutant runs in a worker process
that is killed and replaced when it hangs).  The summary counts each
outcome; ``--show`` prints each finding's mutant text.  Exit status 1 when
there are findings.
"""

from __future__ import annotations

import argparse
import ast
import multiprocessing
import random
import re
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MEMORY_LIMIT = 64 << 20  # bytes per tensor on every device of a fuzz run
FINDINGS = ("crash", "mutated", "roundtrip", "hang")
ODD_CHARS = [
    "\u202e",  # right-to-left override
    "\u200b",  # zero-width space
    "\ufeff",  # byte-order mark
    "\x00",
    "\x0c",
    "\u2028",  # line separator
    "\U0001f600",
    "é",
    "\u0301",  # a combining accent
    "\\ud800",  # a lone surrogate, as an escape inside a string literal
    "\\U0010ffff",
    "\\x",
    "'",
    '"',
    "\\",
]
TOKEN_POOL = ["R.add", "R.nosuch", "x", "lv", "0", "-1", "None", "True", "(", ")", "[", "]", ",", ":", "=", '"cuda"']
TOKEN_POOL += ['"llvm:0:global"', '"float32"', '"int4"', "R.Tensor", "metadata", "__import__", "lambda", "1e999"]
HUGE = ["10**18", "1000000000000000000", "9223372036854775808", "-5", "0", "100000", "18446744073709551615"]
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[A-Za-z_][A-Za-z0-9_.]*|\d+(?:\.\d+)?|\S')


# -- seeds ----------------------------------------------------------------------------


def _looks_like_module(text: str) -> bool:
    return "@I.ir_module" in text or "@R.function" in text


def seed_texts(root: Path = ROOT) -> list[tuple[str, str]]:
    """(name, text) of every module the repository holds, in a fixed order."""
    seeds = [(str(p.relative_to(root)), p.read_text()) for p in sorted((root / "examples").glob("*.py"))]
    seeds += [(str(p.relative_to(root)), p.read_text()) for p in sorted((root / "tests" / "models").glob("*/*.py"))]
    seeds += [(str(p.relative_to(root)), p.read_text()) for p in sorted((root / "tests" / "tir").glob("*.py"))]
    tests = root / "tests"
    for path in sorted(p for p in tests.rglob("*.py") if p.relative_to(tests).parts[0] not in ("models", "tir")):
        try:
            tree = ast.parse(path.read_text())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _looks_like_module(node.value):
                seeds.append((f"{path.relative_to(root)}:{node.lineno}", node.value))
    return [(name, text) for name, text in seeds if _looks_like_module(text)]


# -- mutations ------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return text.split("\n")


def delete_line(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def duplicate_line(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    i = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines) + 1), lines[i])
    return "\n".join(lines)


def swap_lines(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def truncate(rng: random.Random, text: str) -> str:
    return text[: rng.randrange(len(text) + 1)]


def edit_token(rng: random.Random, text: str) -> str:
    """Replace, delete or repeat one token; a replacement comes from the text itself or `TOKEN_POOL`."""
    tokens = list(TOKEN.finditer(text))
    if not tokens:
        return text
    m = rng.choice(tokens)
    choice = rng.random()
    if choice < 0.2:
        new = ""
    elif choice < 0.3:
        new = m.group() * rng.randint(2, 4)
    elif choice < 0.6:
        new = rng.choice(TOKEN_POOL)
    else:
        new = rng.choice(tokens).group()
    return text[: m.start()] + new + text[m.end() :]


def edit_char(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text) + 1)
    char = chr(rng.choice([rng.randrange(32, 127), rng.randrange(0, 0x3000)]))
    op = rng.randrange(3)
    if op == 0:
        return text[:i] + char + text[i:]
    if op == 1:
        return text[:i] + text[i + 1 :]
    return text[:i] + char + text[i + 1 :]


def deep_nesting(rng: random.Random, text: str) -> str:
    """Wrap one name in many brackets, tuples or calls: deeper than any walker's limit, or just under it."""
    names = [m for m in re.finditer(r"\b(?:x|y|lv\w*|gv\w*|[a-z]\w*)\b(?!\s*[(=:])", text)]
    if not names:
        return text
    m = rng.choice(names)
    depth = rng.choice([10, 60, 65, 99, 101, 199, 250, 1000, 5000])
    opening, closing = rng.choice([("(", ")"), ("(", ",)"), ("[", "]"), ("R.nn.relu(", ")"), ("R.tuple(", ")")])
    return text[: m.start()] + opening * depth + m.group() + closing * depth + text[m.end() :]


def huge_dims(rng: random.Random, text: str) -> str:
    """Replace one number inside a ``R.Tensor((...))`` / ``R.shape([...])`` with a huge or odd one."""
    spots = [m for m in re.finditer(r"(?<=[(\[, ])\d+(?=[,)\]])", text)]
    if not spots:
        return text
    m = rng.choice(spots)
    return text[: m.start()] + rng.choice(HUGE) + text[m.end() :]


def odd_unicode(rng: random.Random, text: str) -> str:
    """Put an odd character inside a string literal, a name, or anywhere."""
    strings = [m for m in re.finditer(r'"[^"\n]*"', text)]
    if strings and rng.random() < 0.6:
        m = rng.choice(strings)
        i = rng.randrange(m.start() + 1, m.end())
    else:
        i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(ODD_CHARS) + text[i:]


MUTATIONS: dict[str, Callable[[random.Random, str], str]] = {
    "delete_line": delete_line,
    "duplicate_line": duplicate_line,
    "swap_lines": swap_lines,
    "truncate": truncate,
    "edit_token": edit_token,
    "edit_char": edit_char,
    "deep_nesting": deep_nesting,
    "huge_dims": huge_dims,
    "odd_unicode": odd_unicode,
}


def mutants(seed: int, count: int, seeds: list[tuple[str, str]]) -> list[tuple[int, str, str]]:
    """`count` mutants as (index, description, text); the same for the same seed and seeds."""
    rng = random.Random(seed)
    out = []
    for index in range(count):
        name, text = rng.choice(seeds)
        applied = []
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            mutation = rng.choice(sorted(MUTATIONS))
            text = MUTATIONS[mutation](rng, text)
            applied.append(mutation)
        out.append((index, f"{name} [{', '.join(applied)}]", text))
    return out


# -- one mutant -------------------------------------------------------------------------


def check(text: str) -> tuple[str, str]:
    """(outcome, detail): how far `text` got and the error that stopped it; a finding's detail is its traceback."""
    try:
        return _check(text)
    except Exception:  # the finding the fuzzer exists for: an undocumented error
        return "crash", traceback.format_exc()


def _devices(vdevices: list) -> dict:
    from vdplace.runtime import CPU, Simulated

    by_physical: dict = {}
    for v in vdevices:
        kind, ident = v.physical
        if v.physical not in by_physical:
            name = f"{'cpu' if kind == 'cpu' else 'sim:' + kind}:{ident}"
            device = CPU(name, MEMORY_LIMIT) if kind == "cpu" else Simulated(name, MEMORY_LIMIT)
            by_physical[v.physical] = device
    return {v: by_physical[v.physical] for v in vdevices}


def _check(text: str) -> tuple[str, str]:
    import numpy as np

    from vdplace import ir, placement, runtime
    from vdplace.ir.printer import PrintError

    try:
        mod = ir.parse(text, filename="<mutant>")
    except ir.IRError as err:
        return "parse_error", _first_line(err)
    before = ir.script(mod)
    placed, stopped = None, None
    try:
        placed = placement.place(mod, default="host").module
    except (placement.PlacementConflict, ir.IRError) as err:
        stopped = ("conflict" if isinstance(err, placement.PlacementConflict) else "place_error"), _first_line(err)
    if ir.script(mod) != before:
        return "mutated", "place changed its input module"
    if placed is None:
        return stopped
    try:
        printed = ir.script(placed)
    except PrintError as err:
        return "print_error", _first_line(err)
    try:
        ir.parse(printed, filename="<printed>")
    except ir.IRError as err:
        return "roundtrip", f"{err}\n--- printed ---\n{printed}"
    if "main" not in placed:
        return "no_main", ""
    try:
        exe = runtime.compile(placed)
        vm = runtime.VirtualMachine(exe, devices=_devices(list(exe.vdevices)))
        inputs = runtime.random_inputs(placed, rng=np.random.default_rng(0), memory_limit=MEMORY_LIMIT)
        kept = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in inputs]
        vm.run("main", *inputs)
    except runtime.VMError as err:
        return "run_error", _first_line(err)
    changed = any(
        isinstance(a, np.ndarray) and not np.array_equal(a, b, equal_nan=True)
        for a, b in zip(inputs, kept, strict=True)
    )
    if changed or ir.script(placed) != printed:
        return "mutated", "run changed its inputs or its module"
    return "ran", ""


def _first_line(err: BaseException) -> str:
    text = str(err)
    return text.splitlines()[0][:300] if text else type(err).__name__


# -- workers ----------------------------------------------------------------------------


def _worker(conn) -> None:
    """Check each text the pipe brings; answer (outcome, detail)."""
    import warnings

    warnings.simplefilter("ignore")  # NumPy's overflow / invalid-value warnings on random inputs
    while True:
        text = conn.recv()
        if text is None:
            return
        conn.send(check(text))


class Worker:
    """A process that checks one mutant at a time and is replaced when it hangs or dies."""

    def __init__(self, context) -> None:
        self.context = context
        self._start()

    def _start(self) -> None:
        self.conn, child = self.context.Pipe()
        self.process = self.context.Process(target=_worker, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.job: tuple[int, str, str] | None = None
        self.started = 0.0

    def submit(self, job: tuple[int, str, str]) -> None:
        self.job, self.started = job, time.monotonic()
        self.conn.send(job[2])

    def poll(self, timeout: float) -> tuple[str, str] | None:
        """The answer when ready; ("hang", ...) past `timeout`, the worker then restarted; else None."""
        try:
            if self.conn.poll():
                return self.conn.recv()
        except (EOFError, OSError):
            self.restart()
            return "crash", "the worker process died"
        if time.monotonic() - self.started > timeout:
            self.restart()
            return "hang", f"no answer within {timeout:g} s"
        return None

    def restart(self) -> None:
        self.process.kill()
        self.process.join()
        self._start()

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()


def fuzz(
    seed: int, count: int, workers: int = 1, timeout: float = 30.0, only: str = ""
) -> tuple[Counter, list[tuple[str, str, str, str]]]:
    """Run `count` mutants of `seed` (of the seeds whose name contains `only`): outcome counts and the
    findings as (description, outcome, detail, text)."""
    jobs = mutants(seed, count, [s for s in seed_texts() if only in s[0]])
    context = multiprocessing.get_context("fork")
    pool = [Worker(context) for _ in range(max(1, min(workers, len(jobs))))]
    counts: Counter = Counter()
    findings: list[tuple[str, str, str, str]] = []
    pending = list(reversed(jobs))
    busy: list[Worker] = []
    try:
        while pending or busy:
            for worker in pool:
                if worker not in busy and pending:
                    worker.submit(pending.pop())
                    busy.append(worker)
            for worker in list(busy):
                job = worker.job
                answer = worker.poll(timeout)
                if answer is None or job is None:
                    continue
                busy.remove(worker)
                outcome, detail = answer
                counts[outcome] += 1
                if outcome in FINDINGS:
                    findings.append((job[1], outcome, detail, job[2]))
            time.sleep(0.001)
    finally:
        for worker in pool:
            worker.stop()
    return counts, findings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--count", type=int, default=10_000, help="mutants to check (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="the random seed (default 0)")
    parser.add_argument("--workers", type=int, default=8, help="worker processes (default 8)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds one mutant may take (default 30)")
    parser.add_argument("--show", action="store_true", help="print each finding's mutant text")
    parser.add_argument("--seeds", default="", help="only the seeds whose name contains this text")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    counts, findings = fuzz(args.seed, args.count, args.workers, args.timeout, args.seeds)
    elapsed = time.perf_counter() - start
    seeds = sum(args.seeds in name for name, _ in seed_texts())
    print(f"seed {args.seed}: {args.count} mutants from {seeds} seeds in {elapsed:.1f} s")
    for outcome, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {outcome:12} {n}")
    for description, outcome, detail, text in findings:
        print(f"\n== {outcome}: {description}\n{detail}")
        if args.show:
            print(f"--- mutant ---\n{text}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
