"""The op registry: everything vdplace knows about an op, registered in one place.

An `Op` holds its parameter list (how the parser binds positional and keyword
arguments, and how the printer writes them back), its struct-info inference,
its *device rule*, the device types it runs on, a NumPy kernel for the
runtime and a cost estimate.  Adding an op is one `register_op` call.

Device rules (DESIGN.md, "ir"):
  ``same``      every tensor argument and the result share one device (default);
  ``host``      the result lives on the module's host device, arguments are free;
  ``explicit``  the op names its device itself (hint_on_device, to_vdevice).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .errors import InferenceError
from .struct_info import StructInfo, TensorStructInfo, tensor_leaves

REQUIRED = object()

# Parameter kinds: how the parser reads an argument and what the kernel receives.
TENSOR = "tensor"  # a relax expression holding a tensor
TENSORS = "tensors"  # a relax tuple of tensors, e.g. concat's input
ATTR = "attr"  # a literal attribute: int, float, str, None, tuple of ints, dtype
SHAPE = "shape"  # a shape literal (tuple/list of dims or R.shape([...])), stored as an attribute
DEVICE = "device"  # hint_on_device's device: tvm.cpu(), R.device(...)
VDEVICE = "vdevice"  # to_vdevice's destination: a vdevice name, resolved against the module

DEVICE_RULES = ("same", "host", "explicit")


class Param:
    __slots__ = ("name", "kind", "default")

    def __init__(self, name: str, kind: str = TENSOR, default: Any = REQUIRED) -> None:
        self.name = name
        self.kind = kind
        self.default = default

    @property
    def is_expr(self) -> bool:
        return self.kind in (TENSOR, TENSORS)


InferFn = Callable[[Sequence[StructInfo], dict[str, Any]], StructInfo]
CostFn = Callable[[Sequence[StructInfo], StructInfo], float]


class Op:
    """A registered operator.  Identity is the name; `Op` objects are singletons."""

    __slots__ = ("name", "params", "infer", "device_rule", "device_types", "kernel", "cost", "doc")

    def __init__(
        self,
        name: str,
        params: Sequence[Param],
        infer: InferFn,
        kernel: Callable[..., Any] | None,
        device_rule: str = "same",
        device_types: frozenset[str] | None = None,
        cost: CostFn | None = None,
        doc: str = "",
    ) -> None:
        if device_rule not in DEVICE_RULES:
            raise ValueError(f"unknown device rule {device_rule!r}")
        self.name = name
        self.params = tuple(params)
        self.infer = infer
        self.kernel = kernel
        self.device_rule = device_rule
        self.device_types = device_types
        self.cost = cost or output_elements
        self.doc = doc

    @property
    def expr_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.is_expr)

    @property
    def attr_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if not p.is_expr)

    def supports(self, device_type: str) -> bool:
        return self.device_types is None or device_type in self.device_types

    def __repr__(self) -> str:
        return f"Op({self.name})"


_REGISTRY: dict[str, Op] = {}


def register_op(
    name: str,
    params: Sequence[Param],
    infer: InferFn,
    kernel: Callable[..., Any] | None,
    *,
    device_rule: str = "same",
    device_types: Sequence[str] | None = None,
    cost: CostFn | None = None,
    doc: str = "",
) -> Op:
    """Register an op under `name` (``"add"``, ``"nn.relu"``); the parser finds it as ``R.<name>``."""
    if name in _REGISTRY:
        raise ValueError(f"op {name!r} is already registered")
    op = Op(
        name,
        params,
        infer,
        kernel,
        device_rule,
        None if device_types is None else frozenset(device_types),
        cost,
        doc,
    )
    _REGISTRY[name] = op
    return op


def get_op(name: str) -> Op:
    """The op called `name`; `KeyError` if none is registered."""
    _ensure_library()
    return _REGISTRY[name]


def has_op(name: str) -> bool:
    _ensure_library()
    return name in _REGISTRY


def all_ops() -> dict[str, Op]:
    _ensure_library()
    return dict(_REGISTRY)


def _ensure_library() -> None:
    from . import ops  # noqa: F401  (registers the built-in ops on first use)


def output_elements(args: Sequence[StructInfo], out: StructInfo) -> float:
    """Default cost: one unit of work per output element."""
    total = 0.0
    for _, leaf in tensor_leaves(out):
        n = 1.0
        for d in leaf.shape or ():
            n *= d if isinstance(d, int) else 1
        total += n
    return total


def expect_tensor(op: str, sinfos: Sequence[StructInfo], index: int) -> TensorStructInfo:
    """Argument `index` as a tensor struct info, or an `InferenceError` saying what it is."""
    sinfo = sinfos[index]
    if not isinstance(sinfo, TensorStructInfo):
        raise InferenceError(f"R.{op}: argument {index} must be a tensor, got {sinfo!r}")
    return sinfo
