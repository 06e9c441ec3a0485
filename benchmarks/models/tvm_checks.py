"""Checks with TVM itself: parse a printed text back with its metadata, compare, compile and run on llvm."""

from __future__ import annotations

import numpy as np
import tvm
from tvm import relax
from tvm.script.parser.core.entry import _default_globals

RTOL, ATOL = 1e-4, 1e-5
NON_FINITE = {"inf": np.inf, "-inf": -np.inf, "nan": np.nan}


class _RelaxWithNonFinite:
    """TVM's ``R`` namespace, but ``R.const`` also takes the strings TVM prints for non-finite floats.

    TVM 0.27 prints a 0-d -inf as ``R.const("-inf", "float32")`` and its own
    parser rejects that ("value has to be scalar or Tensor").
    """

    def __init__(self, relax_namespace) -> None:
        self._r = relax_namespace

    def __getattr__(self, name: str):
        return getattr(self._r, name)

    def const(self, value, dtype=None):
        return self._r.const(NON_FINITE.get(value, value) if isinstance(value, str) else value, dtype)


def parse_with_metadata(text: str, arrays: dict[str, np.ndarray], weights: list[np.ndarray]) -> tvm.IRModule:
    """TVM's parse of `text`, its ``metadata[kind][i]`` references resolved from `arrays` ("kind:i" keys).

    `weights` fill the ``ffi.Tensor`` kind, which only ``R.func_attr({"params": ...})`` uses.
    """
    metadata: dict[str, list] = {"ffi.Tensor": [tvm.runtime.tensor(w) for w in weights]}
    for key in sorted(k for k in arrays if ":" in k):
        kind, index = key.rsplit(":", 1)
        array = arrays[key]  # the dtype given: relax.const makes int64 arrays int32 otherwise
        metadata.setdefault(kind, []).append((int(index), relax.const(array, str(array.dtype))))
    for kind, entries in metadata.items():
        if kind != "ffi.Tensor":
            entries.sort(key=lambda entry: entry[0])
            assert [i for i, _ in entries] == list(range(len(entries))), f"{kind}: indices not 0..n-1"
            metadata[kind] = [c for _, c in entries]
    names = _default_globals()
    names["R"] = _RelaxWithNonFinite(names["R"])
    return tvm.script.from_source(text, extra_vars={**names, "metadata": metadata})


def _flatten(value) -> list[np.ndarray]:
    """A VM result as arrays, tuples flattened depth-first."""
    if isinstance(value, tvm.runtime.Tensor):
        return [value.numpy()]
    return [a for item in value for a in _flatten(item)]


def run_llvm(mod: tvm.IRModule, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """`mod`'s ``main`` compiled for llvm and run on `inputs`; the outputs flattened depth-first."""
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    return _flatten(vm["main"](*[tvm.runtime.tensor(a) for a in inputs]))


def assert_outputs_match(actual: list[np.ndarray], expected: list[np.ndarray], what: str) -> None:
    """Same count, shapes and dtypes; floats within RTOL/ATOL, everything else equal."""
    assert len(actual) == len(expected), f"{what}: {len(actual)} outputs, expected {len(expected)}"
    for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
        assert a.shape == e.shape and a.dtype == e.dtype, f"{what} output {i}: {a.dtype}{a.shape} vs {e.dtype}{e.shape}"
        if np.issubdtype(e.dtype, np.floating):
            np.testing.assert_allclose(a, e, rtol=RTOL, atol=ATOL, err_msg=f"{what} output {i}")
        else:
            np.testing.assert_array_equal(a, e, err_msg=f"{what} output {i}")
