"""The runtime counts a view call's result as its operand's memory and every other result as a new tensor.

`vdplace.ir.views` decides which calls are views (the time objective's
schedule decides the same); the VM adopts a view call's result as sharing its
operand's buffer, and copies the result of any other call that shares memory
with a live array (NumPy's ``split`` returns views), that is part of a larger
buffer or that is not C-contiguous, so that it holds its own bytes, as the
schedule counts them.  A reshape of a transposed value is a new tensor.
"""

from __future__ import annotations

import numpy as np

from vdplace import ir, placement, runtime
from vdplace.runtime import CPU, VirtualMachine
from vdplace.runtime.instructions import Call

HEAD = """from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, 16), "float32")) -> R.Tensor((16, 16), "float32"):
"""
TENSOR = 16 * 16 * 4


def run(body: str) -> tuple[dict[str, bool], int, np.ndarray]:
    """Which calls are views, the peak on the host, and the result of `body` run on x = arange."""
    placed = placement.place(ir.parse(HEAD + body, filename="views.py"), default="host").module
    exe = runtime.compile(placed)
    views = {i.origin.variable: i.view for i in exe["main"].instructions if isinstance(i, Call)}
    machine = VirtualMachine(exe, devices={"llvm": CPU(memory_limit=None)})
    x = np.arange(256, dtype="float32").reshape(16, 16)
    out = machine.run("main", x, profile=True)
    return views, machine.profile.memory["cpu"].peak, out


def test_views_hold_no_bytes_and_a_reshape_of_a_transposed_value_is_a_copy() -> None:
    body = """        t = R.permute_dims(x, axes=[1, 0])
        e = R.expand_dims(t, axis=[0])
        s = R.squeeze(e, axis=[0])
        f = R.reshape(s, R.shape([256]))
        g = R.reshape(f, R.shape([16, 16]))
        y = R.add(g, t)
        return y
"""
    views, peak, out = run(body)
    assert views == {"t": True, "e": True, "s": True, "f": False, "g": True, "y": False}
    assert peak == 3 * TENSOR  # x (with t, e, s), f (with g), y
    x = np.arange(256, dtype="float32").reshape(16, 16)
    np.testing.assert_array_equal(out, 2 * x.T)


def test_a_result_that_shares_an_operands_memory_is_copied() -> None:
    body = """        p = R.split(x, 2, axis=1)
        a = p[0]
        b = p[1]
        c = R.concat((a, b), axis=1)
        y = R.add(c, x)
        return y
"""
    views, peak, out = run(body)
    assert views == {"p": False, "c": False, "y": False}
    assert peak == 3 * TENSOR  # x, both halves (each its own buffer, not x's), c
    np.testing.assert_array_equal(out, 2 * np.arange(256, dtype="float32").reshape(16, 16))
