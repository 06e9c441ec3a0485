"""Call-site specialization (issue 13): `place(mod, specialize=True)` clones a function per device signature.

Each test runs with the exact search and with the greedy merges (fixture `merging`).

A helper called from a CPU and a GPU context places with two clones and runs
like the unplaced module; without ``specialize`` it is the same conflict as
before; recursion and mutual recursion clone as a unit; a conflict no clone can
fix stays one; a module that places gets no clones; the input is never changed,
and placing the result again changes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.cli import main as cli_main
from vdplace.ir.expr import Call, GlobalVar
from vdplace.ir.visitor import ExprVisitor
from vdplace.placement.specialize import Clone, search
from vdplace.placement.specialize.advice import specialization_advice

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HELPER = EXAMPLES / "specialize_helper.py"
HEADER = """from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})
"""
T = 'R.Tensor((2, 3), "float32")'
N = 'R.Tensor((), "int32")'
MAIN_TWO = f"""
    @R.function
    def main(a: {T}, b: {T}, n: {N}) -> R.Tuple({T}, {T}):
        cls = Module
        a1: R.Tensor((2, 3), "float32", "llvm") = R.exp(a)
        b1: R.Tensor((2, 3), "float32", "cuda") = R.exp(b)
        p = cls.{{callee}}(a1, n)
        q = cls.{{callee}}(b1, n)
        return (p, q)
"""
COUNTDOWN = f"""
    @R.function
    def {{name}}(x: {T}, n: {N}) -> {T}:
        cls = Module
        zero = R.const(0, "int32")
        c = R.greater(n, zero)
        if c:
            one = R.const(1, "int32")
            m = R.subtract(n, one)
            y = R.add(x, x)
            r = cls.{{next}}(y, m)
        else:
            r = x
        return r
"""
PONG = f"""
    @R.function
    def pong(x: {T}, n: {N}) -> {T}:
        cls = Module
        y = R.multiply(x, x)
        r = cls.ping(y, n)
        return r
"""
RECURSIVE = HEADER + COUNTDOWN.format(name="down", next="down") + MAIN_TWO.format(callee="down")
MUTUAL = HEADER + COUNTDOWN.format(name="ping", next="pong") + PONG + MAIN_TWO.format(callee="ping")


@pytest.fixture(autouse=True, params=["exact", "greedy"])
def merging(request, monkeypatch) -> str:
    """Every test twice: with the exact search, and with the greedy merges it gives way to on big call trees."""
    if request.param == "greedy":
        monkeypatch.setattr(search, "MAX_EXACT", 0)
    return request.param


def parse_file(path: Path) -> ir.IRModule:
    return ir.parse(path.read_text(), filename=str(path))


class _Calls(ExprVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.calls: dict[str, list[str]] = {}

    def visit_call(self, call: Call) -> None:
        if isinstance(call.op, GlobalVar):
            self.calls.setdefault(self.global_name, []).append(call.op.name)


def calls_of(mod: ir.IRModule) -> dict[str, list[str]]:
    """Function name -> the module functions it calls, in order."""
    finder = _Calls()
    finder.visit_module(mod)
    return finder.calls


def same_outputs(mod: ir.IRModule, placed: ir.IRModule, *args: np.ndarray) -> None:
    vm = runtime.VirtualMachine(runtime.compile(placed), simulate_missing=True)
    got = vm.run("main", *args)
    want = runtime.run_reference(mod, "main", *args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def inputs(*shapes: tuple[int, ...]) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype("float32") for s in shapes]


def test_a_helper_called_from_two_devices_places_with_two_clones_and_runs_like_the_unplaced_module():
    mod = parse_file(HELPER)
    result = placement.place(mod, specialize=True, default="host")
    assert list(result.module.functions) == ["scale", "scale_cuda0", "main"]
    assert calls_of(result.module)["main"] == ["scale", "scale", "scale_cuda0"]
    assert result.clones == [
        Clone("scale", "scale", 2, (("x", "llvm:0"), ("<ret>", "llvm:0"))),
        Clone("scale", "scale_cuda0", 1, (("x", "cuda:0"), ("<ret>", "cuda:0"))),
    ]
    assert result.copies == []
    same_outputs(mod, result.module, *inputs((2, 3), (2, 3)))


def test_without_specialize_it_is_the_same_conflict_as_before():
    mod = parse_file(HELPER)
    with pytest.raises(placement.PlacementConflict) as plain:
        placement.place(mod)
    assert '`a1` must be on "llvm:0" but `b1` on "cuda:0"' in str(plain.value)
    assert {c.rule.kind.value for c in plain.value.core} >= {"annotation", "call_arg"}


@pytest.mark.parametrize("text", [RECURSIVE, MUTUAL], ids=["recursion", "mutual_recursion"])
def test_recursive_clones_call_their_own_clones_and_run(text):
    mod = ir.parse(text)
    with pytest.raises(placement.PlacementConflict):
        placement.place(mod, default="host")
    result = placement.place(mod, specialize=True, default="host")
    calls = calls_of(result.module)
    assert calls["main"][0] in mod and calls["main"][1].endswith("_cuda0")
    for name, callees in calls.items():
        if name != "main":  # a clone of the unit calls the unit's members of the same copy
            assert all(c.endswith("_cuda0") == name.endswith("_cuda0") for c in callees), (name, callees)
    members = 1 if text is RECURSIVE else 2
    assert len(result.clones) == 2 * members
    called = [c for callees in calls.values() for c in callees]
    assert all(c.call_sites == called.count(c.name) >= 1 for c in result.clones)  # recursive calls counted
    a, b = inputs((2, 3), (2, 3))
    same_outputs(mod, result.module, a, b, np.array(3, dtype="int32"))


def test_a_conflict_specialization_cannot_fix_stays_the_same_conflict():
    mod = parse_file(EXAMPLES / "conflict_add.py")
    with pytest.raises(placement.PlacementConflict) as plain:
        placement.place(mod)
    with pytest.raises(placement.PlacementConflict) as specialized:
        placement.place(mod, specialize=True)
    assert str(specialized.value) == str(plain.value)
    text = (
        HEADER
        + COUNTDOWN.format(name="down", next="down").replace(
            "y = R.add(x, x)",
            "y = R.add(x, x)\n"
            + (
                '            w: R.Tensor((2, 3), "float32", "llvm") = R.exp(y)\n'
                '            v: R.Tensor((2, 3), "float32", "cuda") = R.exp(y)'
            ),
        )
        + MAIN_TWO.format(callee="down")
    )  # inside the helper: no copy of it can help
    with pytest.raises(placement.PlacementConflict) as plain:
        placement.place(ir.parse(text))
    with pytest.raises(placement.PlacementConflict) as specialized:
        placement.place(ir.parse(text), specialize=True)
    assert str(specialized.value) == str(plain.value)


def test_a_module_that_places_gets_no_clones_and_the_same_result():
    mod = parse_file(EXAMPLES / "mlp_two_devices.py")
    plain = placement.place(mod)
    specialized = placement.place(mod, specialize=True)
    assert specialized.clones == [] and plain.clones == []
    assert ir.structural_equal(specialized.module, plain.module)


def test_the_input_is_not_changed_and_placing_the_result_again_changes_nothing():
    mod = parse_file(HELPER)
    before = ir.script(mod)
    result = placement.place(mod, specialize=True)
    assert ir.script(mod) == before
    again = placement.place(result.module, specialize=True)
    assert again.clones == []
    assert ir.structural_equal(again.module, result.module)
    assert ir.structural_equal(ir.parse(ir.script(result.module)), result.module)


def test_a_call_site_free_of_devices_joins_a_clone_instead_of_making_a_third():
    text = (
        HEADER
        + f"""
    @R.function
    def scale(x: {T}) -> {T}:
        y = R.add(x, x)
        return y

    @R.function
    def main(a: {T}, b: {T}, c: {T}) -> R.Tuple({T}, {T}, {T}):
        cls = Module
        a1: R.Tensor((2, 3), "float32", "llvm") = R.exp(a)
        b1: R.Tensor((2, 3), "float32", "cuda") = R.exp(b)
        p = cls.scale(a1)
        q = cls.scale(b1)
        r = cls.scale(c)
        return (p, q, r)
"""
    )
    result = placement.place(ir.parse(text), specialize=True)
    assert [(c.name, c.call_sites) for c in result.clones] == [("scale", 2), ("scale_cuda0", 1)]
    assert calls_of(result.module)["main"] == ["scale", "scale_cuda0", "scale"]


def test_a_taken_name_gets_a_numeric_suffix():
    text = HELPER.read_text().replace(
        "    @R.function\n    def main(",
        f"    @R.function\n    def scale_cuda0(x: {T}) -> {T}:\n        return x\n\n    @R.function\n    def main(",
    )
    result = placement.place(ir.parse(text), specialize=True)
    assert [c.name for c in result.clones] == ["scale", "scale_cuda0_2"]
    assert "scale_cuda0" in result.module


def test_too_many_clones_is_the_original_conflict_with_a_note(monkeypatch):
    monkeypatch.setattr(search, "MAX_CLONES", 2)
    with pytest.raises(placement.PlacementConflict) as err:
        placement.place(parse_file(HELPER), specialize=True)
    assert any("more than 2 functions" in note for note in err.value.__notes__)


def test_the_advice_names_the_function_its_argument_and_both_calls():
    mod = parse_file(HELPER)
    with pytest.raises(placement.PlacementConflict) as err:
        placement.place(mod)
    (text,) = specialization_advice(mod, err.value.cores, placement.place)
    assert text == (
        "place with specialize=True (`vdplace place --specialize`): `scale` is called with its argument `x` "
        'on "llvm:0" at line 26 and on "cuda:0" at line 28'
    )
    conflict = parse_file(EXAMPLES / "conflict_add.py")
    with pytest.raises(placement.PlacementConflict) as err:
        placement.place(conflict)
    assert specialization_advice(conflict, err.value.cores, placement.place) == [None]


def test_the_cli_places_the_example_with_specialize(capsys):
    assert cli_main(["place", str(HELPER)]) == 1
    capsys.readouterr()
    assert cli_main(["place", "--specialize", str(HELPER)]) == 0
    out, err = capsys.readouterr()
    assert "def scale_cuda0(" in out and "cls.scale_cuda0(b1)" in out
    assert '# clone: scale_cuda0: copy of scale with x on "cuda:0", <ret> on "cuda:0" (1 call site)' in err
    assert cli_main(["place", "--specialize", "--json", str(HELPER)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in doc["clones"]] == ["scale", "scale_cuda0"]
    assert cli_main(["run", "--specialize", "--simulate", str(HELPER)]) == 0


def test_the_conflict_report_offers_specialization_and_the_json_validates():
    from vdplace.placement.report import SCHEMA_PATH, render_json, render_text

    mod = ir.parse(HELPER.read_text(), filename=str(HELPER))
    with pytest.raises(placement.PlacementConflict) as info:
        placement.place(mod)
    (conflict,) = info.value.conflicts
    (fix,) = [f for f in conflict.fixes if f.kind == "specialize"]
    assert fix.resolves == [1] and "specialize=True" in fix.message and "`scale`" in fix.message
    assert "= help: place with specialize=True" in render_text(info.value, source=mod.source, filename=mod.filename)
    doc = render_json(info.value, source=mod.source, filename=mod.filename)
    assert any(f["kind"] == "specialize" for c in doc["conflicts"] for f in c["fixes"])
    schema = json.loads(SCHEMA_PATH.read_text())
    assert "specialize" in schema["$defs"]["fix"]["properties"]["kind"]["enum"]


def test_the_copy_keeping_its_name_keeps_its_nodes_and_a_clone_shares_none():
    from vdplace.ir.module import iter_bindings
    from vdplace.placement.specialize.clone import call_sites, clone_function, retarget_function

    main = ir.parse_file(EXAMPLES / "specialize_helper.py")["main"]
    rename = lambda k, name: "scale_cuda0" if k == 2 else name  # noqa: E731  (the third call: q = cls.scale(b1))
    kept, fresh = retarget_function(main, rename), clone_function(main, rename)
    for out in (kept, fresh):
        assert [s.callee for s in call_sites("main", out)] == ["scale", "scale", "scale_cuda0"]
    old, new, cloned = (list(iter_bindings(f)) for f in (main, kept, fresh))
    assert kept.params == main.params and all(a.var is b.var for a, b in zip(old, new, strict=True))
    assert [a is b for a, b in zip(old, new, strict=True)][:5] == [
        True,
        True,
        True,
        True,
        False,
    ]  # only q's call is new
    assert not {id(b.var) for b in old} & {id(b.var) for b in cloned}
    assert not {id(b.value) for b in old} & {id(b.value) for b in cloned}
