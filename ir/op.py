"""The op registry: every part of an op is registered by one `register_op` call in the op's own file.

The built-in ops live in `vdplace.ir.ops`, one module per family (elementwise,
linalg, reduce, nn, manipulate, create, device).  The call that registers an op
carries all of it; nothing about an op is kept anywhere else:

``params``        `Param` list: how the parser binds positional and keyword
                  arguments, how the printer writes them back, and the keyword
                  names the kernels receive for attributes.
``infer``         ``(arg struct infos, attrs) -> result struct info``; raises
                  `InferenceError` starting with ``R.<op>:`` on any mismatch.
``kernel``        the NumPy kernel, ``(*values, **attrs) -> result``, with TVM's
                  semantics.  It defines what the op computes: the reference
                  interpreter runs it and every other kernel is tested against it.
                  An op whose computation is an executor of the runtime's
                  (``call_tir``: the TIR interpreter) registers None, and the
                  runtime gives it its kernel when imported (`provide_kernel`).
``device_rule``   how the result's device relates to the arguments' (below).
``device_types``  the device types the op runs on (``"cpu"``, ``"cuda"``, ...);
                  None means every type.  Placement never puts the op elsewhere.
``work``          ``(arg struct infos, result struct info[, attrs]) -> Work``:
                  the estimated FLOPs and bytes of one call (default
                  `elementwise_work`); a formula that needs the call's
                  attributes (a window, an axis, subscripts) takes them as a
                  third parameter.  `Op.work` always accepts them.  The runtime
                  profile reports it per device.
``torch_kernel``  optional, ``(TorchContext, *tensors, **attrs) -> result``.  It
                  must match ``kernel`` exactly (dtype of the result included)
                  and raises `Fallback` for inputs where it cannot; the torch
                  device then runs ``kernel`` on a host copy.  An op without one
                  always runs that way on torch devices.
``doc``           one line for listings.
``view_of``       the index of the operand whose memory the result may share
                  (a view: ``reshape``, ``permute_dims``, ...), None for an op
                  whose result is a new tensor; ``view_rule`` says when it is a
                  view (`vdplace.ir.views`, the rule the runtime and the
                  schedule's memory model share).
``pure``          False for an op run for its effect (``R.print``, ``R.assert_op``):
                  as in TVM, only an ``@R.function(pure=False)`` (or one with the
                  ``relax.force_pure`` attribute) calls it, never in a dataflow block.

This module imports neither torch nor `runtime` / `placement`: a torch kernel
gets the torch module from its `TorchContext` argument, which the runtime makes.
`docs/adding-an-op.md` walks through adding an op end to end.

Device rules:
  ``same``      every tensor argument and the result share one device (default);
  ``host``      the result lives on the module's host device, arguments are free;
  ``explicit``  the op names its device itself (hint_on_device, to_vdevice).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from .errors import InferenceError
from .struct_info import PrimStructInfo, StructInfo, TensorStructInfo, nbytes, tensor_leaves
from .views import ViewRule, keeps_layout

REQUIRED = object()

# Parameter kinds: how the parser reads an argument and what the kernel receives.
TENSOR = "tensor"  # a relax expression holding a tensor
TENSORS = "tensors"  # a relax tuple of tensors, e.g. concat's input
ATTR = "attr"  # a literal attribute: int, float, str, None, tuple of ints, dtype
SHAPE = "shape"  # a shape value: a ShapeExpr (a dims list or R.shape([...])) or a shape variable (R.shape_of)
DEVICE = "device"  # hint_on_device's device: tvm.cpu(), R.device(...)
VDEVICE = "vdevice"  # to_vdevice's destination: a vdevice name, resolved against the module
VARIADIC = "variadic"  # any number of expressions, positional only: R.print's values, R.assert_op's format_args
STRING = "string"  # a string attribute, written "..." or R.str("..."), printed R.str("..."): a format
INDICES = "indices"  # a tuple of positions, each an int or a symbolic dim's text (strided_slice's begin, end)
PRIM_FUNC = "prim_func"  # a module's @T.prim_func, written cls.f: call_tir's function (a `tir.PrimFunc`)
OUT_TY = "out_ty"  # a struct-info annotation, or a list of them for a tuple: call_tir's outputs

DEVICE_RULES = ("same", "host", "explicit")


class Param:
    """One parameter of an op: its name (as TVM names it), kind (above) and default (`REQUIRED`: none)."""

    __slots__ = ("name", "kind", "default")

    def __init__(self, name: str, kind: str = TENSOR, default: Any = REQUIRED) -> None:
        self.name = name
        self.kind = kind
        self.default = default

    @property
    def is_expr(self) -> bool:
        return self.kind in (TENSOR, TENSORS, SHAPE, VARIADIC)


class Work(NamedTuple):
    """The estimated work of op calls: arithmetic operations and bytes of tensor data read and written.

    Estimated from struct infos, so a symbolic or unknown dim counts as 1 (as
    `struct_info.nbytes` counts it): resolve symbolic dims first for real sizes.
    Views (reshape, split, permute_dims) read and write nothing; a copy is not
    an op's work.  An immutable value: ``+`` adds two works field by field and
    ``*`` scales one by a number of calls (not tuple concatenation or repetition).
    """

    flops: float = 0.0
    bytes_read: float = 0.0
    bytes_written: float = 0.0

    def __add__(self, other: object) -> Work:
        if not isinstance(other, Work):
            return NotImplemented
        return _new_tuple(Work, (self[0] + other[0], self[1] + other[1], self[2] + other[2]))

    # Not tuple repetition (an int): scaling by a float is the point, so these override tuple's on purpose.
    def __mul__(self, calls: float) -> Work:  # type: ignore[override]
        # Runs once per op call in every profile: built without NamedTuple's Python-level __new__.
        return _new_tuple(Work, (self[0] * calls, self[1] * calls, self[2] * calls))

    def __rmul__(self, calls: float) -> Work:  # type: ignore[override]
        return _new_tuple(Work, (self[0] * calls, self[1] * calls, self[2] * calls))

    @property
    def bytes(self) -> float:
        """Bytes moved to and from memory."""
        return self.bytes_read + self.bytes_written


_new_tuple = tuple.__new__
NO_WORK = Work()

InferFn = Callable[[Sequence[StructInfo], dict[str, Any]], StructInfo]
WorkFn = Callable[..., Work]  # (arg struct infos, result struct info) or (..., attrs)


def elements(sinfo: StructInfo) -> float:
    """Elements of every tensor in `sinfo`; a symbolic or unknown dim counts as 1."""
    total = 0.0
    for _, leaf in tensor_leaves(sinfo):
        n = 1.0
        for d in leaf.shape or ():
            n *= d if isinstance(d, int) else 1
        total += n
    return total


def data_bytes(sinfos: Sequence[StructInfo]) -> float:
    """Bytes of every tensor in `sinfos` (tuples included), counted as `struct_info.nbytes` does."""
    return float(sum(nbytes(leaf) for s in sinfos for _, leaf in tensor_leaves(s)))


def elementwise_work(flops_per_element: float = 1.0) -> WorkFn:
    """`flops_per_element` per result element; every tensor argument read once, the result written once.

    The default work of an op registered without one (``flops_per_element=1``).
    """

    def work(args: Sequence[StructInfo], out: StructInfo) -> Work:
        return Work(flops_per_element * elements(out), data_bytes(args), data_bytes((out,)))

    return work


class Fallback(Exception):
    """Raised by a torch kernel for inputs it cannot handle exactly like the op's NumPy kernel."""


class TorchContext:
    """The first argument of every torch kernel: the torch module and the ``torch.device`` it runs on."""

    __slots__ = ("torch", "device")

    def __init__(self, torch: Any, device: Any) -> None:
        self.torch = torch
        self.device = device


class Op:
    """A registered operator (see the module docstring for each part).  Identity is the name; singletons."""

    __slots__ = (
        "name",
        "params",
        "infer",
        "kernel",
        "torch_kernel",
        "device_rule",
        "device_types",
        "work_fn",
        "_work_attrs",
        "doc",
        "pure",
        "view_of",
        "view_rule",
    )

    def __init__(
        self,
        name: str,
        params: Sequence[Param],
        infer: InferFn,
        kernel: Callable[..., Any] | None,
        *,
        torch_kernel: Callable[..., Any] | None = None,
        device_rule: str = "same",
        device_types: frozenset[str] | None = None,
        work: WorkFn | None = None,
        doc: str = "",
        pure: bool = True,
        view_of: int | None = None,
        view_rule: ViewRule | None = None,
    ) -> None:
        if device_rule not in DEVICE_RULES:
            raise ValueError(f"unknown device rule {device_rule!r}")
        self.name = name
        self.params = tuple(params)
        self.infer = infer
        self.kernel = kernel
        self.torch_kernel = torch_kernel
        self.device_rule = device_rule
        self.device_types = device_types
        self.work_fn: WorkFn = work or _DEFAULT_WORK
        self._work_attrs = _takes_attrs(self.work_fn)
        self.doc = doc
        self.pure = pure
        self.view_of = view_of
        self.view_rule: ViewRule | None = view_rule if view_rule is not None or view_of is None else keeps_layout

    def work(self, args: Sequence[StructInfo], out: StructInfo, attrs: Mapping[str, Any] | None = None) -> Work:
        """The estimated work of one call with these argument and result struct infos and attributes.

        Attributes the call leaves out take their defaults.
        """
        if not self._work_attrs:
            return self.work_fn(args, out)
        full = {p.name: p.default for p in self.attr_params if p.default is not REQUIRED}
        full.update(attrs or {})
        return self.work_fn(args, out, full)

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


def _takes_attrs(fn: WorkFn) -> bool:
    """Whether a work formula takes the call's attributes (a third positional parameter)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3 or any(p.kind is p.VAR_POSITIONAL for p in params)


_DEFAULT_WORK = elementwise_work()
_REGISTRY: dict[str, Op] = {}


def register_op(
    name: str,
    params: Sequence[Param],
    infer: InferFn,
    kernel: Callable[..., Any] | None,
    *,
    torch_kernel: Callable[..., Any] | None = None,
    device_rule: str = "same",
    device_types: Sequence[str] | None = None,
    work: WorkFn | None = None,
    doc: str = "",
    pure: bool = True,
    view_of: int | None = None,
    view_rule: ViewRule | None = None,
) -> Op:
    """Register an op under `name` (``"add"``, ``"nn.relu"``); the parser finds it as ``R.<name>``.

    Each part is described in the module docstring; `docs/adding-an-op.md` shows a full example.
    """
    if name in _REGISTRY:
        raise ValueError(f"op {name!r} is already registered")
    op = Op(
        name,
        params,
        infer,
        kernel,
        torch_kernel=torch_kernel,
        device_rule=device_rule,
        device_types=None if device_types is None else frozenset(device_types),
        work=work,
        doc=doc,
        pure=pure,
        view_of=view_of,
        view_rule=view_rule,
    )
    _REGISTRY[name] = op
    return op


def provide_kernel(name: str, kernel: Callable[..., Any]) -> Op:
    """Give op `name`, registered without a NumPy kernel, `kernel` (see ``kernel`` in the module docstring).

    The runtime calls it as it is imported, for the ops whose execution is its own (``call_tir``,
    `vdplace.runtime.tir`): the op registry names no runtime module.  Giving an op another kernel
    than the one it has is a `ValueError`.
    """
    op = get_op(name)
    if op.kernel is not None and op.kernel is not kernel:
        raise ValueError(f"op {name!r} already has a kernel")
    op.kernel = kernel
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


def expect_tensor(op: str, sinfos: Sequence[StructInfo], index: int) -> TensorStructInfo:
    """Argument `index` as a tensor struct info, or an `InferenceError` saying what it is."""
    sinfo = sinfos[index]
    if not isinstance(sinfo, TensorStructInfo):
        hint = ""
        if isinstance(sinfo, PrimStructInfo) and sinfo.value is not None:
            hint = f" (a bare number is a prim value; write R.const({sinfo.value!r}, dtype) for a tensor)"
        raise InferenceError(f"R.{op}: argument {index} must be a tensor, got {sinfo!r}{hint}")
    return sinfo
