"""Issue 29, items 3 to 5: the bytes objective gives no dead copy, counts where entry inputs come from, and
weighs symbolic dims by a size it states.

* No placed module holds a copy whose result nothing reads; where bytes tie, a hinted expression runs on
  the hinted device (a lexicographic objective: bytes, hints not honoured, inputs off the host, copies).
* The runtime inputs of an entry function arrive on the host: moving one off it costs its upload; the
  weights are loaded where they are placed, and the bytes each vdevice loads are reported.
* A symbolic dim is weighed by the user's size, else the function's ``tir_var_upper_bound``, else a
  default with a warning; every figure says what it assumes.
"""

from __future__ import annotations

import logging

import pytest

from vdplace import ir
from vdplace.ir.sizes import DEFAULT_DIM, Sizes, parse_dim
from vdplace.placement import place
from vdplace.placement.cost import CostModel, describe_ops, op_info, value_bytes
from vdplace.placement.model.entry import is_entry, num_inputs

TWO = '    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})\n'


def _module(body: str) -> ir.IRModule:
    return ir.parse("@I.ir_module\nclass Module:\n" + TWO + body, "m.py")


def _binding(text: str, name: str) -> str:
    """The printed line of binding `name`."""
    return next(line.strip() for line in text.splitlines() if line.strip().startswith(f"{name}:"))


def _unread_copies(mod: ir.IRModule) -> list[str]:
    """Every ``R.to_vdevice`` binding of `mod` whose variable no expression reads (an independent reading)."""
    out = []
    for fname, func in mod.functions.items():
        copies, used = [], set()
        for b in ir.iter_bindings(func):
            if isinstance(b.value, ir.Call) and getattr(b.value.op, "name", "") == "to_vdevice":
                copies.append(b.var)
            used |= _vars(b.value)
        used |= _vars(func.body.body)
        out += [f"{fname}:{v.name}" for v in copies if v not in used]
    return out


def _vars(e) -> set:
    if isinstance(e, ir.Var):
        return {e}
    found = set()
    for child in (
        getattr(e, "args", ()) or getattr(e, "fields", ()) or ([e.tuple_value] if hasattr(e, "tuple_value") else [])
    ):
        found |= _vars(child)
    if isinstance(e, ir.If):
        found |= _vars(e.cond) | _vars(e.true_branch.body) | _vars(e.false_branch.body)
    return found


# -- item 3: no dead copy; ties go to the hinted device -------------------------------------------------

RESULT_ON_CPU = """
    @R.function
    def FUNC(a: R.Tensor((5, 7), "float32"), b: R.Tensor((5, 7), "float32"), c: R.Tensor((5, 7), "float32")):
        lv0 = R.add(a, b)
        lv1 = R.hint_on_device(lv0, R.device(2, 0))
        lv2 = R.hint_on_device(lv1, R.device(1, 0))
        gv = R.multiply(lv2, c)
        return gv
"""


def test_func_result_on_cpu_runs_the_add_on_the_gpu_and_copies_once_back():
    """TVM's test (tests/data/conformance/tvm_realize_func_result_on_cpu.*): before, the add ran on the CPU and
    its upload to the GPU was never read; `lv1` only feeds another copy, so it is read as written, and the GPU
    (one copy back, 140 bytes) beats the CPU (up and back, 280)."""
    p = place(_module(RESULT_ON_CPU.replace("FUNC", "foo")))
    text = ir.script(p.module)
    assert p.devices["foo:lv0"].kind == "cuda" and p.devices["foo:a"].kind == "cuda"
    assert _binding(text, "lv1").endswith("= lv0")
    assert 'R.to_vdevice(lv1, dst_vdevice="llvm:0:global")' in _binding(text, "lv2")
    assert [(c.var, c.nbytes) for c in p.copies] == [("lv2", 140)] and _unread_copies(p.module) == []


def test_as_main_the_inputs_arrive_on_the_host_so_the_add_stays_there_with_no_dead_copy():
    """The same body as an entry function: a and b start on the host, so the GPU would upload both (280)
    and copy back (140); the CPU copies up and back as the program says (280), and both copies are read."""
    p = place(_module(RESULT_ON_CPU.replace("FUNC", "main")))
    text = ir.script(p.module)
    assert p.devices["main:lv0"].kind == "llvm"
    assert 'R.to_vdevice(lv1, dst_vdevice="llvm:0:global")' in _binding(text, "lv2")
    assert (p.stats.bytes_copied, p.stats.bytes_uploaded) == (280, 0) and _unread_copies(p.module) == []


def test_a_replica_only_a_copy_reads_is_read_by_it_when_its_source_is_pinned():
    """`a` pinned to the CPU: TVM copies up and back; bypassing `lv1` (an alias of `lv0` for `lv2`) would
    leave its upload unread."""
    free, pinned = 'a: R.Tensor((5, 7), "float32")', 'a: R.Tensor((5, 7), "float32", "llvm:0")'
    p = place(_module(RESULT_ON_CPU.replace("FUNC", "foo").replace(free, pinned)))
    text = ir.script(p.module)
    assert 'R.to_vdevice(lv0, dst_vdevice="cuda:0:global")' in _binding(text, "lv1")
    assert 'R.to_vdevice(lv1, dst_vdevice="llvm:0:global")' in _binding(text, "lv2")
    assert p.bytes_copied == 280 and _unread_copies(p.module) == []


def test_a_copy_nothing_reads_is_left_out_with_its_aliases():
    p = place(
        _module("""
    @R.function
    def f(x: R.Tensor((8,), "float32", "llvm:0")):
        y = R.to_vdevice(x, "cuda:0")
        z = y
        w = R.hint_on_device(z, R.device(1, 0))
        return x
""")
    )
    text = ir.script(p.module)
    assert "to_vdevice" not in text and " y" not in text and " z" not in text and " w" not in text
    assert p.copies == [] and p.bytes_copied == 0


def test_a_copy_read_through_another_copy_that_something_reads_stays():
    p = place(
        _module("""
    @R.function
    def f(x: R.Tensor((8,), "float32", "llvm:0")):
        y = R.to_vdevice(x, "cuda:0")
        z = R.to_vdevice(y, "llvm:0")
        return z
""")
    )
    assert [c.var for c in p.copies] == ["y", "z"] and _unread_copies(p.module) == []


def test_where_bytes_tie_the_hinted_expression_runs_on_the_hinted_device():
    """`a` is hinted to the GPU and copied to the CPU: either device moves 32 bytes.  The hint decides (the
    lowest vdevice index did before): the exp runs on the GPU, the copy to the CPU stays a copy."""
    p = place(
        _module("""
    @R.function
    def f(x: R.Tensor((8,), "float32")):
        a = R.exp(x)
        h = R.hint_on_device(a, R.device(2, 0))
        t = R.to_vdevice(a, "llvm:0")
        return (R.negative(h), R.negative(t))
""")
    )
    assert p.devices["f:a"].kind == "cuda" and [c.var for c in p.copies] == ["t"] and p.bytes_copied == 32


def test_the_backend_breaks_the_tie_as_propagation_does():
    src = _module("""
    @R.function
    def f(x: R.Tensor((8,), "float32")):
        a = R.exp(x)
        h = R.hint_on_device(a, R.device(2, 0))
        t = R.to_vdevice(a, "llvm:0")
        return (R.negative(h), R.negative(t))
""")
    fast, slow = place(src), place(src, propagate=False)
    assert slow.stats.variables > 0
    assert ir.structural_equal(fast.module, slow.module)


# -- item 4: entry functions, runtime inputs and weights -------------------------------------------------

ISSUE_INPUT = """
    @R.function
    def FUNC(x: R.Tensor((16,), "float32")):
        a = R.exp(x)
        b = R.to_vdevice(a, "cuda:0")
        return b
"""


def test_an_entry_input_stays_on_the_host_and_the_users_copy_stays_a_copy():
    """Issue 29's module: before, x went to the GPU, the copy became an alias and the upload vanished."""
    p = place(_module(ISSUE_INPUT.replace("FUNC", "main")))
    assert p.devices["main:x"].kind == "llvm" and [c.var for c in p.copies] == ["b"]
    assert (p.stats.bytes_copied, p.stats.bytes_uploaded, p.stats.starts) == (64, 0, 1)


def test_outside_an_entry_function_the_parameter_goes_where_tvm_puts_it():
    p = place(_module(ISSUE_INPUT.replace("FUNC", "foo")))
    assert p.devices["foo:x"].kind == "cuda" and p.copies == [] and p.stats.starts == 0


def test_an_input_the_placement_moves_counts_its_upload_and_weights_count_as_loaded():
    """num_input = 1: x is a runtime input, w a weight.  The hint puts the matmul on the GPU: x's upload (32)
    is part of the objective (cheaper than copying the 64-byte result), w is loaded there (reported)."""
    p = place(
        _module("""
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), w: R.Tensor((4, 8), "float32")):
        R.func_attr({"num_input": 1})
        y = R.matmul(x, w)
        g = R.hint_on_device(y, R.device(2, 0))
        return g
""")
    )
    assert p.devices["main:x"].kind == "cuda" and p.copies == []
    assert (p.stats.bytes_copied, p.stats.bytes_uploaded) == (0, 32)
    assert p.stats.bytes_loaded == {"cuda:0:global": 128}


def test_an_annotated_input_is_the_callers_choice_not_an_upload_the_placement_made():
    p = place(
        _module("""
    @R.function
    def main(x: R.Tensor((16,), "float32", "cuda:0")):
        a = R.exp(x)
        return a
""")
    )
    assert p.stats.starts == 0 and p.stats.bytes_uploaded == 0


def test_entry_functions_are_main_and_every_function_declaring_num_input():
    mod = _module("""
    @R.function
    def prefill(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")):
        R.func_attr({"num_input": 1})
        return R.add(x, w)

    @R.function
    def helper(x: R.Tensor((4,), "float32")):
        return x

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        return R.add(x, y)
""")
    assert [name for name, f in mod.functions.items() if is_entry(name, f)] == ["prefill", "main"]
    assert num_inputs(mod["prefill"]) == 1 and num_inputs(mod["main"]) == 2


# -- item 5: symbolic dims ------------------------------------------------------------------------------

DYNAMIC = """
    @R.function
    def f(x: R.Tensor(("n", 256), "float32"), w: R.Tensor((64, 64), "float32")):
        n = T.int64()
        ATTRS
        u = R.add(R.sum(x), R.sum(w))
        a = R.hint_on_device(x, R.device(2, 0))
        b = R.hint_on_device(w, R.device(1, 0))
        return (R.exp(a), R.exp(b), u)
"""


def _dynamic(attrs: str = "") -> ir.IRModule:
    return _module(DYNAMIC.replace("        ATTRS\n", f"        {attrs}\n" if attrs else ""))


def test_the_issue_module_moves_the_small_tensor_when_n_is_large():
    """One free group holding x: (n, 256) and w: (64, 64), hinted to different devices: at n = 1000 moving w
    (16,384 bytes) beats moving x (1,024,000); counting n as 1, the report said 1,024 bytes."""
    p = place(_dynamic(), dims={"n": 1000})
    assert [(c.var, c.nbytes) for c in p.copies] == [("b", 16384)]
    assert p.stats.dims == {"n": 1000}


def test_a_dim_with_no_size_takes_the_default_with_one_warning_naming_it(caplog):
    with caplog.at_level(logging.WARNING, logger="vdplace"):
        p = place(_dynamic())
    warnings = [r.getMessage() for r in caplog.records if "symbolic dimension" in r.getMessage()]
    assert len(warnings) == 1 and "'n'" in warnings[0]
    assert p.stats.dims == {"n": DEFAULT_DIM}
    assert [(c.var, c.nbytes) for c in p.copies] == [("a", DEFAULT_DIM * 1024)]


def test_the_functions_upper_bound_sizes_a_dim_and_the_users_size_wins(caplog):
    attrs = 'R.func_attr({"tir_var_lower_bound": {"n": 2}, "tir_var_upper_bound": {"n": 64}})'
    with caplog.at_level(logging.WARNING, logger="vdplace"):
        p = place(_dynamic(attrs))
    assert not caplog.records and p.stats.dims == {"n": 64}
    assert [(c.var, c.nbytes) for c in p.copies] == [("b", 16384)]  # 64 * 1024 > 16384
    assert place(_dynamic(attrs), dims={"n": 2}).stats.dims == {"n": 2}


def test_a_lower_bound_alone_raises_the_default():
    sizes = Sizes(_dynamic('R.func_attr({"tir_var_lower_bound": {"n": 100}})'))
    assert sizes.size("n", "f") == 100 and sizes.defaulted == ["n"]


def test_sizes_evaluate_expressions_and_report_per_function_where_names_differ():
    mod = _module("""
    @R.function
    def f(x: R.Tensor(("n", 3), "float32")):
        n = T.int64()
        R.func_attr({"tir_var_upper_bound": {"n": 8}})
        return x

    @R.function
    def g(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        R.func_attr({"tir_var_upper_bound": {"n": 5}})
        return x
""")
    sizes = Sizes(mod)
    assert sizes.dim("n * 3 + 1", "f") == 25 and sizes.dim("T.max(n, 10)", "g") == 10
    assert sizes.nbytes(ir.TensorStructInfo(("n", 3), "float32"), "f") == 96
    assert sizes.assumed == {"n": 8, "g:n": 5}


def test_bad_sizes_are_clear_errors():
    with pytest.raises(ValueError, match="n=0"):
        Sizes(dims={"n": 0})
    with pytest.raises(ValueError, match="NAME=SIZE"):
        parse_dim("n")
    assert parse_dim(" n = 7") == ("n", 7)


def test_the_cost_models_bytes_and_flops_use_the_same_sizes():
    mod = _module("""
    @R.function
    def f(x: R.Tensor(("n", 4), "float32"), w: R.Tensor((4, 4), "float32")):
        n = T.int64()
        R.func_attr({"tir_var_upper_bound": {"n": 16}})
        y = R.matmul(x, w)
        return y
""")
    (op,) = describe_ops(mod)
    assert op.result_bytes == 16 * 4 * 4 == value_bytes(op.result, Sizes(mod), "f")
    assert op.work.flops == 2 * 16 * 4 * 4
    call = next(ir.iter_bindings(mod["f"])).value
    assert op_info("f", "y", call, sizes=Sizes(mod, {"n": 2})).work.flops == 2 * 2 * 4 * 4


def test_cost_aware_placement_weighs_transfers_at_the_given_dims():
    mod = _module("""
    @R.function
    def f(x: R.Tensor(("n", 4), "float32", "llvm:0")):
        n = T.int64()
        y = R.exp(x)
        z = R.hint_on_device(y, R.device(2, 0))
        return z
""")
    model = CostModel(lambda op, vdevice: 1.0, copy_time=lambda nbytes, src, dst: nbytes * 1e-9)
    p = place(mod, cost=model, dims={"n": 1000})
    assert [t.nbytes for t in p.cost.transfers] == [16000] and p.stats.dims == {"n": 1000}


# -- the command line -----------------------------------------------------------------------------------


def _write(tmp_path, body: str) -> str:
    path = tmp_path / "m.py"
    path.write_text("@I.ir_module\nclass Module:\n" + TWO + body)
    return str(path)


def test_place_prints_what_moves_and_the_dims_it_assumes(tmp_path, capsys):
    from vdplace.cli import main

    path = _write(tmp_path, DYNAMIC.replace("        ATTRS\n", ""))
    assert main(["place", path, "-o", str(tmp_path / "out.py")]) == 0
    err = capsys.readouterr().err
    assert f"warning: symbolic dimension 'n' has no size: weighed as {DEFAULT_DIM}" in err
    assert f"# bytes: {DEFAULT_DIM * 1024} bytes copied; 0 bytes of runtime inputs uploaded (assuming n=4)" in err
    assert main(["place", path, "--dim", "n=1000", "-o", str(tmp_path / "out.py")]) == 0
    err = capsys.readouterr().err
    assert "warning" not in err and "16384 bytes, from a hint (assuming n=1000)" in err
    assert main(["place", path, "--dim", "n=big"]) == 2
    assert "--dim 'n=big': write NAME=SIZE" in capsys.readouterr().err


def test_place_reports_the_weights_each_vdevice_loads(tmp_path, capsys):
    from vdplace.cli import main

    path = _write(
        tmp_path,
        """
    @R.function
    def main(x: R.Tensor((2, 4), "float32"), w: R.Tensor((4, 8), "float32")):
        R.func_attr({"num_input": 1})
        y = R.matmul(x, w)
        g = R.hint_on_device(y, R.device(2, 0))
        return g
""",
    )
    assert main(["place", path, "-o", str(tmp_path / "out.py")]) == 0
    err = capsys.readouterr().err
    assert "# bytes: 0 bytes copied; 32 bytes of runtime inputs uploaded; weights loaded: cuda:0:global 128" in err


def test_run_places_at_the_sizes_it_runs(tmp_path, capsys, monkeypatch):
    """`vdplace run` weighs the placement at the sizes it runs: --dim, else its input arrays', else the random
    inputs' default, so its figures are the bytes the run moves."""
    import numpy as np

    from vdplace import placement
    from vdplace.cli import main

    path = _write(
        tmp_path,
        """
    @R.function
    def main(x: R.Tensor(("n", 4), "float32", "llvm:0")):
        n = T.int64()
        y = R.hint_on_device(x, R.device(2, 0))
        z = R.exp(y)
        return z
""",
    )
    seen = []
    real = placement.api.bind
    monkeypatch.setattr(placement.api, "bind", lambda **kw: seen.append(kw["dims"]) or real(**kw))
    assert main(["run", path, "--simulate", "--dim", "n=6", "--profile"]) == 0
    out = capsys.readouterr().out
    assert "out: shape (6, 4) float32" in out and "cpu -> sim:cuda:0       1   96 B" in out
    np.savez(tmp_path / "in.npz", x=np.ones((3, 4), "float32"))
    assert main(["run", path, "--simulate", "--inputs", str(tmp_path / "in.npz")]) == 0
    assert main(["run", path, "--simulate"]) == 0
    assert seen == [{"n": 6}, {"n": 3}, {"n": DEFAULT_DIM}]


def test_run_makes_random_inputs_at_the_functions_upper_bound(tmp_path, capsys, monkeypatch):
    """Without --dim, `vdplace run`'s random inputs take the entry's tir_var_upper_bound, as the placement weighs
    it; a symbol without a bound takes the default, with the placement's warning, once."""
    from vdplace import placement
    from vdplace.cli import main

    source = """
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32", "llvm:0")):
        n = T.int64()
        m = T.int64()
        R.func_attr({"tir_var_upper_bound": {"n": 7}})
        y = R.hint_on_device(x, R.device(2, 0))
        z = R.exp(y)
        return z
"""
    path = _write(tmp_path, source)
    seen = []
    real = placement.api.bind
    monkeypatch.setattr(placement.api, "bind", lambda **kw: seen.append(kw["dims"]) or real(**kw))
    assert main(["run", path, "--simulate", "--profile"]) == 0
    captured = capsys.readouterr()
    assert f"out: shape (7, {DEFAULT_DIM}) float32" in captured.out
    assert f"cpu -> sim:cuda:0       1  {7 * DEFAULT_DIM * 4} B" in captured.out
    assert captured.err.count("symbolic dimension 'm' has no size") == 1 and "'n'" not in captured.err
    assert main(["run", path, "--simulate", "--dim", "n=2"]) == 0
    assert f"out: shape (2, {DEFAULT_DIM}) float32" in capsys.readouterr().out
    assert seen == [{"n": 7, "m": DEFAULT_DIM}, {"n": 2, "m": DEFAULT_DIM}]


def test_random_inputs_too_big_at_the_bound_name_the_sizes_to_give(tmp_path, capsys):
    """A tir_var_upper_bound past what the host can hold: `vdplace run` says which sizes its random inputs took
    and that --dim gives smaller ones (exit status 1, as for any run that does not fit); with --dim it runs."""
    from vdplace.cli import main

    source = """
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")):
        n = T.int64()
        R.func_attr({"num_input": 1, "tir_var_upper_bound": {"n": 1000000000000}})
        y = R.exp(x)
        return y
"""
    path = _write(tmp_path, source)
    assert main(["run", path, "--simulate"]) == 1
    err = capsys.readouterr().err
    assert "the random inputs took n=1000000000000" in err and "--dim NAME=SIZE" in err
    assert main(["run", path, "--simulate", "--dim", "n=3"]) == 0
    assert "out: shape (3, 4) float32" in capsys.readouterr().out
