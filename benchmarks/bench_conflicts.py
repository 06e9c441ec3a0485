"""Conflict diagnostics at scale: 100k (or 1M) bindings with 4 planted, independent conflicts.

Two measurements of the same four conflicts:

* *the user's path* (`planted_text`): a TVMScript text in which only the
  planted bindings carry a vdevice annotation, so the long chain really is
  long in the file.  It is parsed, placed (`PlacementConflict`), diagnosed
  (find + prove + fixes, the specialization advice included) and rendered as
  text, JSON and HTML, as ``vdplace place FILE`` does; parse and place are
  timed apart from the diagnosis and the reports.  Target: diagnosis and the
  three reports under 10 s at 100k bindings and under 2 minutes at 1M, every
  planted pin named in the text report, and the report's length bounded
  (the same number of lines at 100k and 1M).
* *the constraint level* (`planted_module`): the module built with
  `ir.builder`, its constraints extracted and `find_conflicts` run on them,
  with an independent re-check of every conflict's minimality; and a
  domain-heavy stress class.

The module has a helper function and a `main` made of four chains, each a
separate equality class (the chains meet only through ``R.to_vdevice``),
each holding one planted conflict:

1. two annotations five bindings apart ("llvm:0" and "cuda:0");
2. two annotations `far` bindings apart (bindings // 5: 20,000 at 100k,
   200,000 at 1M; proven minimal by the structural certificate, short ones
   also by Z3's deletion pass);
3. a matmul whose operands are annotated on two GPUs ("cuda:0", "cuda:1");
4. a call whose result is annotated "llvm:0" while the callee's return
   annotation says "cuda:0" (a conflict through a call boundary).

Soft ``hint_on_device`` calls are sprinkled over the chains; they never take
part in a conflict.

    python benchmarks/bench_conflicts.py [--bindings 100000] [--only text|constraints]
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import time

from vdplace import ir, placement
from vdplace.ir import DeviceSpec, ModuleBuilder, VDevice, tensor
from vdplace.placement.diagnose import find_conflicts
from vdplace.placement.diagnose.verify import structurally_minimal, z3_minimal
from vdplace.placement.extract.extract import extract
from vdplace.placement.model.rules import Rule, RuleKind
from vdplace.placement.report import render_html, render_json, render_text

VDEVICES = [VDevice("llvm"), VDevice("cuda", 0), VDevice("cuda", 1)]
CPU, GPU0, GPU1 = VDEVICES
SHAPE = (4, 4)


def planted_module(bindings: int):
    """The module described in the docstring, with about `bindings` bindings in total."""
    mb = ModuleBuilder(VDEVICES)
    helper = mb.function("helper", [("h", tensor(SHAPE))], ret=tensor(SHAPE, vdevice=GPU0))
    r = helper.emit("exp", helper.params[0], name="hr")
    helper.finish(r)

    per_chain = max(40, bindings // 4)
    f = mb.function("main", [(f"x{i}", tensor(SHAPE)) for i in range(4)])
    xs = f.params
    count = 0

    def chain(start, n: int, chain_id: int, plant) -> object:
        """`n` bindings, each tied to the one before (and every other one to the one before that)."""
        nonlocal count
        h = prev = start
        for i in range(n):
            name = f"c{chain_id}_{i}"
            annotation = plant.get(i)
            if i % 2:
                h, prev = f.emit("add", h, prev, name=name, annotation=annotation), h
            else:
                h, prev = f.emit("tanh", h, name=name, annotation=annotation), h
            if i % 997 == 13:  # a soft hint on a side branch: its result is pinned, its input only preferred
                f.emit("hint_on_device", h, name=f"hint{chain_id}_{i}", device=DeviceSpec("cuda", 1))
            count += 1
        return h

    ends = []
    # 1. two annotations five bindings apart
    ends.append(chain(xs[0], per_chain, 0, {100: tensor(SHAPE, vdevice=CPU), 105: tensor(SHAPE, vdevice=GPU0)}))
    # 2. two annotations 20,000 bindings apart (or as far as the chain allows)
    far = min(20_000, per_chain - 200)
    ends.append(chain(xs[1], per_chain, 1, {50: tensor(SHAPE, vdevice=GPU0), 50 + far: tensor(SHAPE, vdevice=CPU)}))
    # 3. a matmul on two GPUs
    p = f.emit("tanh", xs[2], name="p", annotation=tensor(SHAPE, vdevice=GPU0))
    q = f.emit("tanh", p, name="q_src")
    q = f.emit("to_vdevice", q, name="q", dst_vdevice=GPU1)
    q2 = f.emit("exp", q, name="q2", annotation=tensor(SHAPE, vdevice=GPU1))
    m = f.emit("matmul", p, q2, name="m")
    ends.append(chain(m, per_chain - 5, 2, {}))
    count += 5
    # 4. a call result annotated llvm while the callee returns on cuda:0
    y = f.emit(f.call_function("helper", xs[3]), name="y", annotation=tensor(SHAPE, vdevice=CPU))
    ends.append(chain(y, per_chain - 1, 3, {}))
    count += 1
    # join the chains by explicit copies so that they stay separate classes
    out = f.emit("to_vdevice", ends[0], name="j0", dst_vdevice=CPU)
    for i, end in enumerate(ends[1:]):
        moved = f.emit("to_vdevice", end, name=f"m{i + 1}", dst_vdevice=CPU)
        out = f.emit("add", out, moved, name=f"j{i + 1}")
    f.finish(out)
    return mb.get(), count


TEXT_TENSOR = 'R.Tensor((4, 4), "float32"'


class Planted:
    """A planted module as text, and where its conflicts are: the lines every report must name.

    `pins` maps each planted annotation (``"c0_100"``, ``"helper.return"``)
    to its line; `joins` maps each conflict's joining binding that a report
    shows in full (the first binding after the first pin, the matmul, the
    call) to its line; `far` is the length in bindings of the long chain.
    """

    def __init__(self, far: int, pins: dict[str, int]) -> None:
        self.text = ""
        self.bindings = 0
        self.far = far
        self.pins = pins
        self.joins: dict[str, int] = {}


def planted_text(bindings: int, far: int | None = None) -> Planted:
    """The module of the docstring as TVMScript, with about `bindings` bindings; only planted bindings annotated.

    `far` (default ``bindings // 5``) is how many bindings apart the two pins
    of conflict 2 are; its chain is made long enough to hold them.
    """
    per_chain = max(40, bindings // 4)
    far = max(10, bindings // 5) if far is None else far
    lines = [
        "import tvm",
        "from tvm.script import ir as I",
        "from tvm.script import relax as R",
        "",
        "",
        "@I.ir_module",
        "class Module:",
        '    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0), I.vdevice("cuda", 1)]})',
        "",
        "    @R.function",
        f'    def helper(h: {TEXT_TENSOR})) -> {TEXT_TENSOR}, "cuda:0"):',
        "        hr = R.exp(h)",
        "        return hr",
        "",
        "    @R.function",
        "    def main(" + ", ".join(f"x{i}: {TEXT_TENSOR})" for i in range(4)) + f") -> {TEXT_TENSOR}):",
        "        cls = Module",
    ]
    planted = Planted(far, {"helper.return": 11})

    def emit(line: str) -> int:
        lines.append("        " + line)
        return len(lines)

    def chain(start: str, n: int, chain_id: int, plant: dict[int, str]) -> str:
        """`n` bindings, each tied to the one before (and every other one to the one before that)."""
        h = prev = start
        for i in range(n):
            name = f"c{chain_id}_{i}"
            device = plant.get(i)
            annotation = f': {TEXT_TENSOR}, "{device}")' if device else ""
            value = f"R.add({h}, {prev})" if i % 2 else f"R.tanh({h})"
            line = emit(f"{name}{annotation} = {value}")
            if device:
                planted.pins[name] = line
            h, prev = name, h
            if i % 997 == 13:  # a soft hint on a side branch: its result is pinned, its input only preferred
                emit(f"hint{chain_id}_{i} = R.hint_on_device({h}, tvm.cuda(1))")
        planted.bindings += n
        return h

    ends = [chain("x0", per_chain, 0, {100: "llvm", 105: "cuda:0"})]
    planted.joins["c0_101"] = planted.pins["c0_100"] + 1
    ends.append(chain("x1", max(per_chain, far + 100), 1, {50: "cuda:0", 50 + far: "llvm"}))
    planted.pins["p"] = emit(f'p: {TEXT_TENSOR}, "cuda:0") = R.tanh(x2)')
    emit("q_src = R.tanh(p)")
    emit('q = R.to_vdevice(q_src, "cuda:1")')
    planted.pins["q2"] = emit(f'q2: {TEXT_TENSOR}, "cuda:1") = R.exp(q)')
    planted.joins["m"] = emit("m = R.matmul(p, q2)")
    ends.append(chain("m", per_chain - 5, 2, {}))
    planted.pins["y"] = planted.joins["y"] = emit(f'y: {TEXT_TENSOR}, "llvm") = cls.helper(x3)')
    ends.append(chain("y", per_chain - 1, 3, {}))
    emit(f'j0 = R.to_vdevice({ends[0]}, "llvm")')
    for i, end in enumerate(ends[1:]):
        emit(f'm{i + 1} = R.to_vdevice({end}, "llvm")')
        emit(f"j{i + 1} = R.add({'j' + str(i)}, m{i + 1})")
    emit(f"return j{len(ends) - 1}")
    planted.bindings += 6 + 2 * len(ends)
    planted.text = "\n".join(lines) + "\n"
    return planted


def domain_heavy(n: int):
    """A constraint set (no module): one class of `n` sites in a chain, every site with a domain.

    Blocks of {llvm} {llvm, cuda:0} {cuda:0} domains, plus pins at both ends: the
    relaxation step and the neighbour search each meet `n` constraints in one class.
    """
    from vdplace.placement.model.constraints import ConstraintSet, Domain, Equal, Pin

    cs = ConstraintSet(VDEVICES)
    blocks = [frozenset({0}), frozenset({0, 1}), frozenset({1})]
    for i in range(n):
        cs.add_site("main", f"v{i}", (), None, 64, "binding")
        cs.domains.append(Domain(i, blocks[i % 3], Rule.of(RuleKind.SUPPORTED, op="matmul"), None))
        if i:
            cs.equals.append(Equal(i, i - 1, Rule.of(RuleKind.ALIAS), None))
    cs.pins += [Pin(0, 0, Rule.of(RuleKind.ANNOTATION), None), Pin(n - 1, 1, Rule.of(RuleKind.ANNOTATION), None)]
    return cs


def target_s(bindings: int) -> float:
    """The time target: 10 s up to 100k bindings, 2 minutes beyond."""
    return 10.0 if bindings <= 100_000 else 120.0


def peak_rss_mb() -> float:
    """The process's peak resident size so far (``ru_maxrss``, KiB on Linux), in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def missing_lines(text: str, planted: Planted) -> list[str]:
    """The planted pins and joins whose line the text report does not show in an excerpt."""
    shown = {int(m.group(1)) for m in re.finditer(r"^ *(\d+) \|", text, re.M)}
    named = {**planted.pins, **planted.joins}
    return [f"{name} (line {line})" for name, line in named.items() if line not in shown]


def text_path(bindings: int) -> bool:
    """The user's path, as `vdplace place FILE` runs it; prints time per phase, peak memory and report sizes."""
    planted = planted_text(bindings)
    t0 = time.perf_counter()
    mod = ir.parse(planted.text, filename=f"planted_{bindings}.py")
    t1 = time.perf_counter()
    rss_placed = 0.0
    try:
        placement.place(mod)
    except placement.PlacementConflict as conflict:
        err = conflict
    else:
        print("FAIL: the planted module has a placement")
        return False
    t2 = time.perf_counter()
    rss_placed = peak_rss_mb()
    conflicts, omitted = err.conflicts, err.omitted
    t3 = time.perf_counter()
    text = render_text(err, color=False)
    t4 = time.perf_counter()
    document = json.dumps(render_json(err))
    t5 = time.perf_counter()
    page = render_html(err)
    t6 = time.perf_counter()
    summary, message = str(err), err.message
    t7 = time.perf_counter()
    diagnosis = t7 - t2
    missing = missing_lines(text, planted)
    print(
        f"text path: {planted.bindings:,} bindings, {len(planted.text) / 1e6:.1f} MB of TVMScript, "
        f"long chain {planted.far:,} bindings"
    )
    print(f"  parse                     {t1 - t0:7.2f} s   (not part of the target)")
    print(f"  place (to the conflict)   {t2 - t1:7.2f} s   (not part of the target)   peak RSS {rss_placed:,.0f} MB")
    print(f"  find + prove + fixes      {t3 - t2:7.2f} s")
    print(f"  render text               {t4 - t3:7.2f} s   {text.count(chr(10)):,} lines")
    print(f"  render JSON               {t5 - t4:7.2f} s   {len(document):,} bytes")
    print(f"  render HTML               {t6 - t5:7.2f} s   {len(page):,} bytes")
    print(
        f"  str(err) + err.message    {t7 - t6:7.2f} s   {summary.count(chr(10)) + message.count(chr(10)) + 2:,} lines"
    )
    print(
        f"  diagnosis + reports       {diagnosis:7.2f} s   target < {target_s(bindings):.0f} s"
        f"   peak RSS {peak_rss_mb():,.0f} MB"
    )
    print(f"  conflicts: {len(conflicts)} (omitted {omitted}); pins and joins not shown: {missing or 'none'}")
    for c in conflicts:
        print(f"    {c.number}. {c.title}  [{len(c.path):,} steps, proven by {c.verified}, {len(c.fixes)} fixes]")
    return len(conflicts) == 4 and omitted == 0 and not missing and diagnosis < target_s(bindings)


def constraint_level(bindings: int) -> bool:
    """`find_conflicts` on the builder's module and on a domain-heavy class; prints times."""
    t0 = time.perf_counter()
    mod, count = planted_module(bindings)
    t1 = time.perf_counter()
    cs = extract(mod).constraints
    t2 = time.perf_counter()
    conflicts, omitted = find_conflicts(cs, limit=10)
    t3 = time.perf_counter()
    # an independent re-check of every reported conflict, outside the timed part
    minimal = 0
    for c in conflicts:
        unary = [r.constraint for r in c.pins]
        edges = [s.constraint for s in c.path]
        ok = structurally_minimal(unary, edges, len(cs.vdevices))
        if len(c.constraints) <= 2000:
            ok = ok and z3_minimal(c.constraints, len(cs.vdevices))
        minimal += ok

    print(f"constraint level: {count:,} bindings in main, {len(cs.sites):,} sites, {cs.num_constraints:,} constraints")
    print(f"  build (ir.builder)        {t1 - t0:7.2f} s   (not part of the target)")
    print(f"  extract constraints       {t2 - t1:7.2f} s")
    print(f"  find + prove + fixes      {t3 - t2:7.2f} s")
    print(f"  total (extract .. fixes)  {t3 - t1:7.2f} s   target < {target_s(bindings):.0f} s")
    print(f"  conflicts reported: {len(conflicts)} (omitted {omitted}); minimal (re-checked): {minimal}")
    for c in conflicts:
        print(f"    {c.number}. {c.title}  [{len(c.path):,} steps, proven by {c.verified}, {len(c.fixes)} fixes]")
    ok = len(conflicts) == 4 and omitted == 0 and minimal == 4 and t3 - t1 < target_s(bindings)

    cs = domain_heavy(bindings)
    t4 = time.perf_counter()
    conflicts, omitted = find_conflicts(cs, limit=10)
    t5 = time.perf_counter()
    print(
        f"  stress: one class of {len(cs.sites):,} sites, each with a domain: "
        f"{len(conflicts) + omitted:,} conflicts found, 10 explained, in {t5 - t4:.2f} s"
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bindings", type=int, default=100_000)
    parser.add_argument("--only", choices=("text", "constraints"), help="run one of the two measurements")
    args = parser.parse_args()
    ok = True
    if args.only in (None, "text"):
        ok = text_path(args.bindings) and ok
    if args.only in (None, "constraints"):
        ok = constraint_level(args.bindings) and ok
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
