"""Runtime inputs and weights, and a batch split into micro-batches.

An entry function's *runtime inputs* are its first ``num_input`` parameters,
as TVM's frontends mark them (``R.func_attr({"num_input": N})``); the other
parameters are weights (and flags), loaded once.  `declared_num_input` reads
the attribute.

Micro-batching (`split_batch`, for ``RayExecutor.run_pipelined`` and
``vdplace run --ray --microbatches K``) runs a batch as K runs and
concatenates their results along axis 0 (`concat_results`).  It splits only
the runtime inputs, along axis 0, into K equal parts; every other argument
goes whole, the very same object, to every micro-batch, so weights and flags
are identical in each.  Which arguments are split:

- with ``num_input``: each runtime input, which must be a tensor whose
  leading axis holds K times the parameter's (a static dim d: exactly K x d
  rows; a symbolic dim: a number of rows K divides);
- without it: each argument whose leading axis holds K times the parameter's
  static one, or any number of rows K divides where the parameter's leading
  dim is symbolic; the others (the parameter's own size, a scalar) go whole,
  and at least one must be split.

Anything else (a runtime input with nothing to split, a batch K does not
divide, no argument to split) is a `BatchError` (a `ValueError`) in one
line naming the parameter.  With K = 1 the arguments are used as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from vdplace.ir.struct_info import StructInfo, TensorStructInfo

from .errors import BatchError, CompileError


def declared_num_input(attrs: Mapping[str, Any], num_params: int, function: str) -> int | None:
    """The function's ``num_input`` attribute (None without one); a value that is no parameter count is an error."""
    value = attrs.get("num_input")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= int(value) <= num_params:
        raise CompileError(
            f"{function}: R.func_attr num_input = {value!r}, but {function} has {num_params} parameter(s): "
            "want the number of runtime inputs, 0 to the parameter count"
        )
    return int(value)


def drawn_batched(num_params: int, num_input: int | None) -> range:
    """The parameters a random batch draws K times over: the runtime inputs, or, without ``num_input``, the first.

    A random draw has no leading axis to look at, so without ``num_input``
    the first parameter is taken for the batch (`random_inputs`).
    """
    return range(min(1, num_params)) if num_input is None else range(num_input)


def _leading(sinfo: StructInfo) -> int | str | None:
    """The parameter's declared leading dim: an int, a symbolic name or expression, or None (no axis to split)."""
    if not isinstance(sinfo, TensorStructInfo) or sinfo.ndim == 0:
        return None
    return sinfo.shape[0] if sinfo.shape else "?"  # "?": dims not declared, like a symbolic one


def _rows(value: Any) -> int | None:
    shape = np.shape(value) if not isinstance(value, tuple) else ()
    return shape[0] if shape else None


def _split_or_whole(name: str, sinfo: StructInfo, value: Any, k: int, runtime_input: bool) -> bool:
    """Whether argument `name` is split into `k` parts (True) or goes whole (False); `BatchError` if neither."""
    declared, rows = _leading(sinfo), _rows(value)
    if declared is None or rows is None:
        if runtime_input:
            raise BatchError(f"input {name} has no leading axis (shape {np.shape(value)}): nothing to split into {k}")
        return False
    if not isinstance(declared, int):  # a symbolic leading dim: any batch K divides
        if rows % k:
            raise BatchError(f"input {name} has {rows} rows along axis 0, which {k} micro-batches do not divide")
        return True
    if rows == k * declared:
        return True
    if rows == declared and not runtime_input:
        return False
    if rows == declared:
        raise BatchError(
            f"input {name} has {rows} rows along axis 0, its parameter's own: nothing to split into {k} "
            f"micro-batches; give it {k * declared} ({k} x {declared})"
        )
    whole = "" if runtime_input else f", or {declared} to pass it whole"
    divide = f"{k} micro-batches do not divide them" if rows % k else "not a batch of the parameter's"
    raise BatchError(
        f"input {name} has {rows} rows along axis 0 ({divide}): want {k} x {declared} = {k * declared}{whole}"
    )


def split_batch(
    params: Sequence[str], param_sinfo: Sequence[StructInfo], num_input: int | None, inputs: Sequence[Any], k: int
) -> list[tuple[Any, ...]]:
    """`inputs` (one per parameter) as `k` argument tuples, one per micro-batch (module docstring)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise BatchError(f"microbatches must be a positive int, got {k!r}")
    if len(inputs) != len(params):
        raise BatchError(f"{len(params)} argument(s) ({', '.join(params)}) wanted, got {len(inputs)}")
    if k == 1:
        return [tuple(inputs)]
    columns: list[list[Any]] = []
    split_any = False
    for i, (name, sinfo, value) in enumerate(zip(params, param_sinfo, inputs, strict=True)):
        weight = num_input is not None and i >= num_input
        if not weight and _split_or_whole(name, sinfo, value, k, runtime_input=num_input is not None):
            columns.append(np.split(np.asarray(value), k, axis=0))
            split_any = True
        else:
            columns.append([value] * k)
    if not split_any:
        first = next((n for n, s in zip(params, param_sinfo, strict=True) if _leading(s) is not None), None)
        if num_input == 0 or first is None:
            raise BatchError(f"no runtime input to split into {k} micro-batches (num_input = {num_input})")
        raise BatchError(
            f"input {first} is not a batch of {k} (no input has {k} times its parameter's rows along axis 0): "
            f'nothing to split; mark the runtime inputs with R.func_attr({{"num_input": N}}) or give them {k} '
            "times the rows"
        )
    return [tuple(col[j] for col in columns) for j in range(k)]


def concat_results(results: Sequence[Any]) -> Any:
    """The results of micro-batches as one: arrays concatenated along axis 0 (scalars stacked), tuples by field."""
    if isinstance(results[0], tuple):
        return tuple(concat_results([r[i] for r in results]) for i in range(len(results[0])))
    return np.concatenate([np.atleast_1d(r) for r in results], axis=0)
