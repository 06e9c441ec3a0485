"""Ops declared views (`Op.view_of`, `vdplace.ir.views`): their kernels return a view of a contiguous operand.

The runtime counts a view call's result as its operand's memory and the time
objective's schedule gives it no bytes of its own (docs/schedule.md, "Memory
by liveness"), so a declared view op's NumPy kernel, and its torch kernel,
must share the operand's memory for every kernel case with a C-contiguous
operand; and the ops the probe found returning views (``reshape``,
``permute_dims``, ``expand_dims``, ``squeeze``, ``flatten``, ``match_cast``)
are declared.
"""

from __future__ import annotations

import numpy as np
import pytest

from vdplace.ir.op import REQUIRED, TorchContext, all_ops

from .test_kernels import KERNEL_CASES

VIEWS = {"reshape", "permute_dims", "expand_dims", "squeeze", "flatten", "match_cast"}
CASES = [c for c in KERNEL_CASES if all_ops()[c[0]].view_of is not None]


def test_the_ops_that_return_views_are_declared() -> None:
    assert {name for name, op in all_ops().items() if op.view_of is not None} == VIEWS
    assert {c[0] for c in CASES} == VIEWS


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_a_declared_view_shares_its_contiguous_operand(case) -> None:
    name, args, attrs, _ = case
    op = all_ops()[name]
    attrs = {**{p.name: p.default for p in op.attr_params if p.default is not REQUIRED}, **attrs}
    args = tuple(np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in args)
    operand = args[op.view_of]
    assert np.shares_memory(op.kernel(*args, **attrs), operand)
    if op.torch_kernel is None:
        return
    torch = pytest.importorskip("torch")
    tensors = [torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in args]
    result = op.torch_kernel(TorchContext(torch, torch.device("cpu")), *tensors, **attrs)
    base = tensors[op.view_of]
    assert result.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    np.testing.assert_array_equal(result.numpy(), op.kernel(*args, **attrs))
