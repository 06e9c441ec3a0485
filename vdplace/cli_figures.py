"""What the `vdplace` command says besides its results: the sizes of symbolic dims and the bytes a placement moves.

``--dim NAME=SIZE`` (`dims`), the sizes `run` runs at (`run_dims`), the
``# bytes:`` line of `place` (`summary`) and the ``(assuming n=1024)`` the
figures carry (`assuming`), and the library's warnings (the ``vdplace``
logger) shown on stderr (`warnings_to_stderr`).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vdplace.ir import IRModule
    from vdplace.placement import Placement


def dims(args: argparse.Namespace) -> dict[str, int]:
    """``--dim NAME=SIZE`` (repeatable) as a dict; a malformed one is bad input (`ir.ParseError`)."""
    from vdplace import ir
    from vdplace.ir.sizes import parse_dim

    out: dict[str, int] = {}
    for spec in args.dim:
        try:
            name, size = parse_dim(spec)
        except ValueError as err:
            raise ir.ParseError(str(err)) from None
        out[name] = size
    return out


def run_dims(args: argparse.Namespace, mod: IRModule, load_inputs: Callable[[str, IRModule, str], list[Any]]) -> dict:
    """The sizes `run` runs at: the input arrays' where ``--inputs`` names a file, else those its random inputs
    are made at (``--dim``, else the entry's ``tir_var_upper_bound``, else 4 with a warning: `ir.sizes.Sizes`,
    as `place` weighs them).  The placement's figures and the run then size every symbol alike;
    `load_inputs(spec, mod, entry)` reads a file."""
    from vdplace.ir.sizes import Sizes
    from vdplace.runtime import input_dims

    given = dims(args)
    if args.inputs != "random":
        return input_dims(mod, args.entry, load_inputs(args.inputs, mod, args.entry), given)
    sizes = Sizes(mod, given)
    named = input_dims(mod, args.entry)  # every symbol that names a whole dim of a tensor parameter
    return {**given, **{name: sizes.size(name, args.entry) for name in named if name not in given}}


def summary(result: Placement) -> str:
    """The ``# bytes:`` line: bytes copied, runtime inputs uploaded, weights loaded per vdevice, and the sizes
    of the symbolic dims those figures assume."""
    stats = result.stats
    parts = [f"{stats.bytes_copied} bytes copied", f"{stats.bytes_uploaded} bytes of runtime inputs uploaded"]
    if stats.bytes_loaded:
        loaded = ", ".join(f"{name} {nbytes}" for name, nbytes in stats.bytes_loaded.items())
        parts.append(f"weights loaded: {loaded}")
    return "# bytes: " + "; ".join(parts) + assuming(result)


def assuming(result: Placement) -> str:
    """`` (assuming n=1024)`` when the placement's figures size a symbolic dim, else empty."""
    sizes = result.stats.dims
    return f" (assuming {', '.join(f'{k}={v}' for k, v in sizes.items())})" if sizes else ""


def warnings_to_stderr() -> None:
    """Show the library's warnings (the ``vdplace`` logger: a symbolic dim weighed by the default) on stderr."""
    logger = logging.getLogger("vdplace")
    if not any(type(h) is _StderrHandler for h in logger.handlers):
        logger.addHandler(_StderrHandler(logging.WARNING))


class _StderrHandler(logging.Handler):
    """``warning: MESSAGE`` on `sys.stderr` as it is when the record comes (not when the handler was made)."""

    def emit(self, record: logging.LogRecord) -> None:
        print(f"warning: {record.getMessage()}", file=sys.stderr)
