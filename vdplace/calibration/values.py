"""The values a program passes each op call: what calibration times kernels on.

`program_values` runs the module's entry function with the reference
interpreter (`runtime.run_reference`, plain NumPy, devices ignored) on the
given inputs and records, for each distinct op call (`op_key`), the
arguments and attributes of its first call in that run: the inputs as given
or drawn, every activation as the program computes it.  A call whose
arguments take more than `max_bytes` is not recorded (calibration skips it
anyway), nor one the run does not reach (an If branch not taken, a function
not called): calibration times those on made-up inputs and says so.

Each call is recorded under the key it has in `mod` as given, the module a
placement looks the table up with: where `params` bind metadata constants,
the run is of the bound module, and its calls are matched to `mod`'s in
program order (binding constants changes their struct infos, not the
program).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vdplace.ir.bind_constants import ConstantValues, bind_constants
from vdplace.ir.expr import Call, GlobalVar
from vdplace.ir.module import IRModule
from vdplace.ir.visitor import ExprVisitor
from vdplace.placement.cost.calibrate import MAX_BYTES
from vdplace.placement.cost.describe import op_info
from vdplace.placement.cost.table import op_key


def program_values(
    mod: IRModule,
    inputs: Sequence[Any],
    *,
    entry: str = "main",
    params: ConstantValues | None = None,
    max_bytes: int = MAX_BYTES,
) -> dict[str, tuple[list[Any], dict[str, Any]]]:
    """op key -> (arguments, attributes) of its first call in a reference run of `entry` on `inputs`.

    `params`: the values of the constants the text only references, as for
    `runtime.run_reference`.  A run that fails (a missing constant, inputs
    that do not fit, a kernel that raises) is a `ValueError` saying so, with
    the line of the op call it failed in where there is one.
    """
    from vdplace.runtime import VMError, run_reference

    found: dict[str, tuple[list[Any], dict[str, Any]]] = {}
    keys: dict[int, str] = {}  # id of a Call of the run -> its key in `mod`
    last: list[Call] = []  # the call whose kernel runs now

    def observe(call: Call, args: list[Any], attrs: dict[str, Any]) -> None:
        last[:] = [call]
        key = keys.get(id(call))
        if key is None:
            key = keys[id(call)] = _key(call)
        if key not in found and sum(int(getattr(a, "nbytes", 0)) for a in args) <= max_bytes:
            found[key] = (list(args), dict(attrs))

    try:
        run = mod if params is None else bind_constants(mod, params)
        if run is not mod:
            given, bound = op_calls(mod), op_calls(run)
            if len(given) == len(bound) and all(a.op is b.op for a, b in zip(given, bound, strict=True)):
                keys.update((id(b), _key(a)) for a, b in zip(given, bound, strict=True))
        run_reference(run, entry, *inputs, observe=observe)
    except Exception as err:  # noqa: BLE001  (any failure of the run means: no program values)
        where = ""
        if last and last[0].span is not None and not isinstance(err, VMError):  # a kernel raised
            where = f" at {last[0].span.location()} (R.{last[0].op.name})"
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise ValueError(f"the reference run of {entry} for the program's values failed{where}: {message}") from None
    return found


def _key(call: Call) -> str:
    return op_key(op_info("", "<reference run>", call))


def op_calls(mod: IRModule) -> list[Call]:
    """Every call of an op in `mod`, in the visitor's order (program order, depth first)."""

    class _Collect(ExprVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.calls: list[Call] = []

        def visit_call(self, call: Call) -> None:
            if not isinstance(call.op, GlobalVar):
                self.calls.append(call)

    collect = _Collect()
    collect.visit_module(mod)
    return collect.calls
