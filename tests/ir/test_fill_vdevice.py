# ruff: noqa: E501  (the TVMScript text keeps TVM's printed lines)
"""A module that declares no vdevice (what TVM's frontends print) runs on the host.

`ir.fill_vdevice` puts every unplaced tensor on one vdevice; `runtime.compile`
uses it for such a module, and `place(default="host")` adds the host to it.
"""

from __future__ import annotations

import numpy as np
import pytest

from vdplace import ir, placement, runtime
from vdplace.cli import main
from vdplace.ir.fill_vdevice import HOST_VDEVICE, fill_vdevice
from vdplace.ir.struct_info import TensorStructInfo, tensor_leaves

NO_VDEVICE = """
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def helper(a: R.Tensor((2, 3), dtype="float32")) -> R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")):
        b: R.Tensor((2, 3), dtype="float32") = R.exp(a)
        t: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")) = (a, b)
        return t

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32"), c: R.Tensor((), dtype="bool")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        t = cls.helper(x)
        first = t[0]
        second = t[1]
        if c:
            r = R.add(first, second)
        else:
            r = R.multiply(first, R.const(2.0, "float32"))
        return r
"""


def tensor_sinfos(mod: ir.IRModule) -> list[TensorStructInfo]:
    """Every tensor leaf of every parameter and binding variable of `mod`."""
    out = []
    for func in mod.functions.values():
        for param in func.params:
            out += [leaf for _, leaf in tensor_leaves(param.struct_info)]
        for binding in ir.iter_bindings(func):
            out += [leaf for _, leaf in tensor_leaves(binding.var.struct_info)]
        out += [leaf for _, leaf in tensor_leaves(func.ret_struct_info)]
    return out


def test_fill_puts_every_tensor_on_the_vdevice_and_leaves_the_input_alone():
    mod = ir.parse(NO_VDEVICE)
    before = ir.script(mod)
    filled = fill_vdevice(mod, HOST_VDEVICE)
    assert ir.script(mod) == before and mod.vdevices == []
    assert filled.vdevices == [HOST_VDEVICE]
    leaves = tensor_sinfos(filled)
    assert leaves and all(leaf.vdevice == HOST_VDEVICE for leaf in leaves)
    assert all(leaf.vdevice is None for leaf in tensor_sinfos(mod))
    # The filled module is a module like any other: it prints and reads back.
    assert ir.structural_equal(ir.parse(ir.script(filled)), filled)


def test_fill_keeps_vdevices_already_there():
    mod = ir.parse(NO_VDEVICE)
    once = fill_vdevice(mod, HOST_VDEVICE)
    assert fill_vdevice(once, HOST_VDEVICE).vdevices == [HOST_VDEVICE]
    gpu = ir.VDevice(ir.Target("cuda"))
    twice = fill_vdevice(once, gpu)
    assert twice.vdevices == [HOST_VDEVICE, gpu]
    assert all(leaf.vdevice == HOST_VDEVICE for leaf in tensor_sinfos(twice))


@pytest.mark.parametrize("cond", [True, False])
def test_a_module_without_vdevices_compiles_and_runs_on_the_host(cond):
    mod = ir.parse(NO_VDEVICE)
    x = np.arange(6, dtype="float32").reshape(2, 3) / 7
    c = np.array(cond)
    want = runtime.run_reference(mod, "main", x, c)
    vm = runtime.VirtualMachine(runtime.compile(mod))
    got = vm.run("main", x, c)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    np.testing.assert_allclose(want, x + np.exp(x) if cond else 2 * x, rtol=1e-6)


def test_place_with_host_default_places_every_site_on_the_added_host():
    mod = ir.parse(NO_VDEVICE)
    placed = placement.place(mod, default="host").module
    assert mod.vdevices == [] and placed.vdevices == [HOST_VDEVICE]
    assert all(leaf.vdevice == HOST_VDEVICE for leaf in tensor_sinfos(placed))
    x = np.ones((2, 3), "float32")
    got = runtime.VirtualMachine(runtime.compile(placed)).run("main", x, np.array(True))
    np.testing.assert_allclose(np.asarray(got), x + np.exp(x), rtol=1e-6)


def test_a_module_with_vdevices_must_still_be_placed():
    text = NO_VDEVICE.replace(
        "class Module:\n", 'class Module:\n    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0)]})\n'
    )
    with pytest.raises(runtime.UnplacedError):
        runtime.compile(ir.parse(text))


def test_vdplace_run_takes_a_module_without_vdevices(tmp_path, capsys):
    path = tmp_path / "frontend.py"
    path.write_text(NO_VDEVICE)
    assert main(["run", str(path)]) == 0
    assert "shape (2, 3) float32" in capsys.readouterr().out
