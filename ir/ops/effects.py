"""Ops run for their effect, whose result is void (``R.Tuple()``): ``R.assert_op`` and ``R.print``.

They are impure (registered with ``pure=False``): as in TVM, only an
``@R.function(pure=False)``, or a function with the ``relax.force_pure``
attribute, may call them, and never inside a dataflow block (a `ParseError`
at the call otherwise, `parser.purity`).  TVM prints a call of one as a bare
statement, which the parser reads as a binding of a fresh variable ``_``
(`parser.standalone`).  As in TVM's Python
functions, their values are variadic and the format string is a keyword:

* ``R.assert_op(condition, *format_args, format="")``: `condition` is a bool
  scalar, a 0-d bool tensor or a bool prim value (an unknown rank or dtype is
  checked at run time).  True does nothing; False raises ``AssertionError``
  whose message is ``format.format(*format_args)``, or the arguments joined by
  ", " when `format` is empty, or "Assertion Failed" when both are empty, as
  TVM's ``relax.run.assert_op`` renders it; the VM reports it as a
  ``KernelError`` naming the instruction and the line.
* ``R.print(*values, format="")``: prints ``format.format(*values)`` to
  standard output, or the values separated by spaces when `format` is empty.

The ``same`` device rule ties the tensor arguments to one device (the result
has none); the kernel reads them there.  Work: none.  No torch kernels: a
torch device runs them on host copies of the values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InferenceError
from ..op import STRING, VARIADIC, Param, register_op
from ..struct_info import PrimStructInfo, StructInfo, TensorStructInfo, TupleStructInfo
from .common import no_work

VOID = TupleStructInfo([])


def _format(attrs: dict[str, Any], op: str) -> None:
    if not isinstance(attrs["format"], str):
        raise InferenceError(f"R.{op}: format must be a string, got {attrs['format']!r}")


def _render(value: Any) -> str:
    """A value as TVM renders it in messages: a tuple as ``(a, b)``, anything else with ``str``."""
    if isinstance(value, tuple):
        return "(" + ", ".join(_render(v) for v in value) + ")"
    return str(value)


# -- assert_op --------------------------------------------------------------------------------


def check_condition(cond: StructInfo, op: str) -> None:
    """InferenceError unless `cond` is a bool scalar (a 0-d bool tensor or a bool prim value) or may be one."""
    if isinstance(cond, TensorStructInfo):
        ok = cond.dtype in ("bool", "") and cond.ndim in (0, -1)
    else:
        ok = isinstance(cond, PrimStructInfo) and cond.dtype == "bool"
    if not ok:
        raise InferenceError(
            f"{op}: condition must be a bool scalar (a 0-d bool tensor or a bool prim value), got {cond!r}"
        )


def _infer_assert(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    check_condition(args[0], "R.assert_op")
    _format(attrs, "assert_op")
    return VOID


def run_assert(condition: Any, *format_args: Any, format: str = "") -> tuple:  # noqa: A002 - TVM's name
    """The kernel of ``R.assert_op`` (and of ``R.call_packed("relax.run.assert_op", ...)``)."""
    cond = np.asarray(condition)
    if cond.shape != () or cond.dtype != np.bool_:
        raise ValueError(f"R.assert_op: condition must be a bool scalar, got {cond.dtype} of shape {cond.shape}")
    if not cond:
        message = "Assertion Failed"
        rendered = [_render(v) for v in format_args]
        if format:
            message = format.format(*rendered)
        elif rendered:
            message = ", ".join(rendered)
        raise AssertionError(message)
    return ()


register_op(
    "assert_op",
    [Param("condition"), Param("format_args", VARIADIC), Param("format", STRING, "")],
    _infer_assert,
    run_assert,
    work=no_work,
    doc="Raise AssertionError with the formatted message when the bool scalar `condition` is false.",
    pure=False,
)


# -- print -------------------------------------------------------------------------------------


def _infer_print(args: Sequence[StructInfo], attrs: dict[str, Any]) -> StructInfo:
    _format(attrs, "print")
    return VOID


def run_print(*values: Any, format: str = "") -> tuple:  # noqa: A002 - TVM's name
    """The kernel of ``R.print`` (and of ``R.call_packed("relax.run.print", ...)``)."""
    rendered = [_render(v) for v in values]
    if format:
        print(format.format(*rendered))
    else:
        print(*rendered)
    return ()


register_op(
    "print",
    [Param("values", VARIADIC), Param("format", STRING, "")],
    _infer_print,
    run_print,
    work=no_work,
    doc="Print the values to standard output, formatted with `format` when it is not empty.",
    pure=False,
)
