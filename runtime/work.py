"""The estimated work of each op call a profiled run executes.

The compiler records, on every `Call`, the struct infos of its arguments and
result; `CallWork` evaluates the op's registered work estimate (`Op.work`) on
them.  When every dim is static the estimate is one value, multiplied by the
number of executions when the profile is made.  When some dims are symbolic,
each timed execution evaluates it with the frame's symbolic dims bound, so the
profile reports the work of the shapes that really ran.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vdplace.ir.op import NO_WORK, Op, Work
from vdplace.ir.struct_info import StructInfo, TensorStructInfo, TupleStructInfo

from . import shapes
from .errors import InputError


def _is_symbolic(sinfo: StructInfo) -> bool:
    if isinstance(sinfo, TensorStructInfo):
        return any(isinstance(d, str) for d in sinfo.shape or ())
    if isinstance(sinfo, TupleStructInfo):
        return any(_is_symbolic(f) for f in sinfo.fields)
    return False


def _bind(sinfo: StructInfo, env: Mapping[str, int]) -> StructInfo:
    """`sinfo` with the symbolic dims that `env` determines replaced by their sizes."""
    if isinstance(sinfo, TupleStructInfo):
        return TupleStructInfo([_bind(f, env) for f in sinfo.fields])
    if not isinstance(sinfo, TensorStructInfo) or sinfo.shape is None:
        return sinfo
    dims: list[int | str] = []
    for d in sinfo.shape:
        try:
            dims.append(shapes.evaluate(d, env))
        except InputError:
            dims.append(d)  # a dim no input binds: counted as 1, as the estimate always does
    return TensorStructInfo(dims, sinfo.dtype, sinfo.ndim, sinfo.vdevice)


class CallWork:
    """The work of one `Call` instruction, summed over the executions of a run."""

    __slots__ = ("op", "args", "out", "attrs", "symbolic", "dynamic", "_static")

    def __init__(
        self, op: Op, args: Sequence[StructInfo], out: StructInfo, attrs: Mapping[str, Any] | None = None
    ) -> None:
        self.op = op
        self.args = tuple(args)
        self.out = out
        self.attrs = dict(attrs or {})
        self.symbolic = _is_symbolic(out) or any(_is_symbolic(a) for a in self.args)
        self.dynamic = NO_WORK  # the sum over executions, when `symbolic`
        self._static: Work | None = None  # one execution's work, when not `symbolic`; evaluated once

    def add(self, env: Mapping[str, int] | None) -> None:
        """Count one execution of a symbolic call, with the frame's symbolic dims `env`."""
        env = env or {}
        self.dynamic = self.dynamic + self.op.work([_bind(a, env) for a in self.args], _bind(self.out, env), self.attrs)

    def reset(self) -> None:
        self.dynamic = NO_WORK

    def total(self, executions: int) -> Work:
        """The work of `executions` executions in the run just finished."""
        if self.symbolic:
            return self.dynamic
        if self._static is None:
            self._static = self.op.work(self.args, self.out, self.attrs)
        return self._static * executions
