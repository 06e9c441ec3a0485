"""Torch implementations of the common ops, for `TorchDevice` / `CUDA`.

Each implementation matches the op's NumPy kernel (dtype of the result
included: integer division truncates, reductions keep the input dtype).
Where torch cannot match it (integer matmul and mean, axis=() reductions,
bool abs) the implementation raises `Fallback` and the device runs the NumPy
kernel on a host copy instead, counted in `TorchDevice.fallbacks`.
Ops absent from the table (take, layer_norm, conv2d, ...) always run that way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from vdplace.ir.dtype import to_numpy


class Fallback(Exception):
    """Raised by a torch implementation for inputs it cannot handle exactly like NumPy."""


def torch_dtype(torch: Any, dtype: str) -> Any:
    if dtype == "bfloat16":
        return torch.bfloat16
    return getattr(torch, str(to_numpy(dtype)))


def _axes(axis: Any, ndim: int) -> tuple[int, ...] | None:
    if axis is None:
        return None
    axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    if not axes:
        raise Fallback  # NumPy reduces nothing over axis=(); torch would reduce everything
    return tuple(int(a) % max(ndim, 1) for a in axes)


def _table(torch: Any, device: Any) -> dict[str, Callable[..., Any]]:
    F = torch.nn.functional

    def same_dtype(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        def kernel(a: Any, b: Any) -> Any:
            return fn(a, b).to(torch.result_type(a, b))

        return kernel

    def divide(a: Any, b: Any) -> Any:
        if a.is_floating_point() or b.is_floating_point():
            return torch.div(a, b)
        return torch.div(a, b, rounding_mode="trunc")

    def float_only(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def kernel(x: Any) -> Any:
            if not x.is_floating_point():
                raise Fallback
            return fn(x)

        return kernel

    def abs_(x: Any) -> Any:
        if x.dtype == torch.bool:
            raise Fallback
        return torch.abs(x)

    def matmul(x1: Any, x2: Any, out_dtype: str | None) -> Any:
        result = torch_dtype(torch, out_dtype) if out_dtype not in (None, "", "void") else torch.result_type(x1, x2)
        if not result.is_floating_point:
            raise Fallback  # CUDA has no integer matmul
        work = torch.float32 if result == torch.float16 and x1.device.type == "cpu" else result
        return torch.matmul(x1.to(work), x2.to(work)).to(result)

    def reduce(fn: Callable[..., Any], floats_only: bool) -> Callable[..., Any]:
        def kernel(x: Any, axis: Any, keepdims: bool) -> Any:
            if floats_only and not x.is_floating_point():
                raise Fallback
            axes = _axes(axis, x.dim())
            out = fn(x) if axes is None else fn(x, dim=axes)
            if keepdims:
                if axes is None:
                    out = out.reshape((1,) * x.dim())
                else:
                    for a in sorted(axes):
                        out = out.unsqueeze(a)
            return out.to(x.dtype)

        return kernel

    def permute_dims(x: Any, axes: Sequence[int] | None) -> Any:
        return x.permute(tuple(axes) if axes is not None else tuple(reversed(range(x.dim()))))

    def reshape(x: Any, shape: Sequence[Any]) -> Any:
        return x.reshape(tuple(-1 if isinstance(d, str) else int(d) for d in shape))

    def concat(tensors: Sequence[Any], axis: int | None) -> Any:
        if axis is None:
            return torch.cat([t.reshape(-1) for t in tensors])
        return torch.cat(list(tensors), dim=axis)

    def split(x: Any, indices_or_sections: Any, axis: int) -> tuple[Any, ...]:
        spec = list(indices_or_sections) if isinstance(indices_or_sections, (list, tuple)) else int(indices_or_sections)
        return tuple(torch.tensor_split(x, spec, dim=axis))

    def softmax(data: Any, axis: int) -> Any:
        if not data.is_floating_point():
            raise Fallback
        return torch.softmax(data, dim=axis)

    def broadcast_to(x: Any, shape: Sequence[Any]) -> Any:
        if any(isinstance(d, str) for d in shape):
            raise Fallback
        return torch.broadcast_to(x, tuple(int(d) for d in shape)).contiguous()

    def creation(fill: int) -> Callable[..., Any]:
        def kernel(shape: Sequence[int], dtype: str) -> Any:
            return torch.full(tuple(int(d) for d in shape), fill, dtype=torch_dtype(torch, dtype), device=device)

        return kernel

    return {
        "add": same_dtype(torch.add),
        "subtract": same_dtype(torch.sub),
        "multiply": same_dtype(torch.mul),
        "divide": divide,
        "floor_divide": same_dtype(torch.floor_divide),
        "power": same_dtype(torch.pow),
        "maximum": torch.maximum,
        "minimum": torch.minimum,
        "equal": torch.eq,
        "not_equal": torch.ne,
        "less": torch.lt,
        "less_equal": torch.le,
        "greater": torch.gt,
        "greater_equal": torch.ge,
        "negative": torch.neg,
        "abs": abs_,
        "exp": float_only(torch.exp),
        "log": float_only(torch.log),
        "sqrt": float_only(torch.sqrt),
        "tanh": float_only(torch.tanh),
        "sigmoid": float_only(torch.sigmoid),
        "nn.relu": torch.relu,
        "nn.gelu": float_only(F.gelu),
        "nn.silu": float_only(F.silu),
        "nn.softmax": softmax,
        "matmul": matmul,
        "sum": reduce(torch.sum, False),
        "mean": reduce(torch.mean, True),
        "max": reduce(torch.amax, False),
        "permute_dims": permute_dims,
        "reshape": reshape,
        "concat": concat,
        "split": split,
        "broadcast_to": broadcast_to,
        "astype": lambda x, dtype: x.to(torch_dtype(torch, dtype)),
        "zeros": creation(0),
        "ones": creation(1),
        "shape_of": lambda expr: tuple(int(d) for d in expr.shape),
    }


def torch_kernel(torch: Any, device: Any, name: str) -> Callable[..., Any] | None:
    """The torch implementation of op `name` on `device`, or None when there is none."""
    return _table(torch, device).get(name)
