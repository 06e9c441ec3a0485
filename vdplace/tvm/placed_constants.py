"""Constants bound to a placed variable keep their vdevice through TVM's parser.

TVM's parser checks a binding's annotation against its value but keeps the
value's own struct info: ``c: R.Tensor((), vdevice="cuda:0") = R.const(-1.0)``
comes out with ``c`` on no device, as ``R.const`` makes a constant without
one.  A placed module then reads an unplaced ``c`` next to tensors on
``cuda:0`` (a causal mask's ``R.where(mask, c, scores)``).

`to_tvm` therefore hands TVM each such constant through its ``metadata``
table under the kind `KIND`: `BoundConstants` rewrites the binding's value
into a ``metadata["vdplace.PlacedConst"][i]`` reference, and `Table` builds
entry ``i`` when TVM's parser reads it, as a ``tvm.ir.GenericConst`` whose
type carries the vdevice.  The vdevice is resolved then, inside the module
being parsed, with TVM's own ``lookup_vdevice(kind, ordinal)`` -- the lookup
TVM's parser does for the ``vdevice="kind:ordinal"`` of an annotation -- so
the constant's vdevice is the very object the module's annotations use.
TVM prints such a constant as it prints any other (inline, or as an
``ir.GenericConst`` reference), with its vdevice in the binding's annotation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vdplace.ir.expr import Binding, Constant, Expr, Var
from vdplace.ir.metadata import MetadataRef
from vdplace.ir.struct_info import TensorStructInfo
from vdplace.ir.vdevice import VDevice, index_of, kind_ordinal
from vdplace.ir.visitor import ExprMutator

KIND = "vdplace.PlacedConst"


class BoundConstants(ExprMutator):
    """Replaces each constant bound to a variable with a vdevice by a reference into `entries`.

    After `mutate_module`, ``entries[i]`` is the value of
    ``metadata["vdplace.PlacedConst"][i]``, its dtype (bfloat16 values are
    kept in float32) and the (target kind, ordinal among that kind) of its
    vdevice.  Every constant must have its value.
    """

    def __init__(self, vdevices: Sequence[VDevice]) -> None:
        super().__init__()
        self.vdevices = list(vdevices)
        self.entries: list[tuple[np.ndarray, str, str, int]] = []

    def visit_binding(self, binding: Binding, var: Var, value: Expr) -> Binding | Sequence[Binding]:
        sinfo = var.struct_info
        if type(value) is not Constant or not isinstance(sinfo, TensorStructInfo) or sinfo.vdevice is None:
            return super().visit_binding(binding, var, value)
        if value.data is None:
            raise ValueError(f"constant {value.ref!r} has no value: bind it first (ir.bind_constants)")
        index = index_of(self.vdevices, sinfo.vdevice)
        if index is None:
            raise ValueError(f"{var.name}: vdevice {sinfo.vdevice!r} is not in the module's vdevice list")
        ref = MetadataRef(KIND, len(self.entries))
        data = np.asarray(value.data)
        own = value.struct_info
        dtype = own.dtype if isinstance(own, TensorStructInfo) and own.dtype else str(data.dtype)
        self.entries.append((data, dtype, sinfo.vdevice.kind, kind_ordinal(self.vdevices, index)))
        return Binding(var, Constant(value.data, value.struct_info, value.span, ref), binding.annotation, binding.span)


class Table:
    """TVM's ``metadata["vdplace.PlacedConst"]``: entry ``i`` is made when TVM's parser reads it (see the module)."""

    def __init__(self, entries: Sequence[tuple[np.ndarray, str, str, int]]) -> None:
        self.entries = list(entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, index: int) -> Any:
        import tvm
        from tvm import relax
        from tvm.script.ir_builder.ir import lookup_vdevice

        value, dtype, kind, ordinal = self.entries[index]
        tensor = relax.const(value, dtype).value  # TVM's own conversion (bfloat16 included)
        return tvm.ir.GenericConst(tensor, relax.TensorType(list(value.shape), dtype, lookup_vdevice(kind, ordinal)))
