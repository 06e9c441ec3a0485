"""The child side of `z3_child`: an SMT-LIB2 optimization on standard input (JSON), Z3's answer on standard output.

Run as a script (``python z3_worker.py``), so it imports Z3 alone, not vdplace; the parent kills it at
the deadline.  The request: ``text`` (SMT-LIB2: declarations, assertions, soft assertions), ``names``
(the Booleans whose values to report), ``deadline`` (`time.time()` seconds), ``hint`` (initial values by
name).  The answer: ``status``, ``values`` (None without a model), ``lower`` (the first objective's proved
lower bound as ``[numerator, denominator]``, or None).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import z3


def answer(request: dict[str, Any]) -> dict[str, Any]:
    ctx = z3.Context()
    opt = z3.Optimize(ctx=ctx)
    opt.from_string(request["text"])
    left = max(0.001, float(request["deadline"]) - time.time())
    opt.set("timeout", int(left * 1000))
    for name, value in request["hint"].items():
        opt.set_initial_value(z3.Bool(name, ctx), bool(value))
    status = opt.check()
    if status == z3.unsat:  # no model to read (Z3 < 4.14 hands one back anyway)
        return {"status": "unsat", "values": None, "lower": None}
    lower: list[int] | None = None
    values: dict[str, bool] | None = None
    try:
        if opt.objectives():
            bound = z3.OptimizeObjective(opt, 0, False).lower()
            if z3.is_int_value(bound):
                lower = [bound.as_long(), 1]
            elif z3.is_rational_value(bound):
                f = bound.as_fraction()
                lower = [f.numerator, f.denominator]
        model = opt.model()
        values = {n: z3.is_true(model.eval(z3.Bool(n, ctx), model_completion=True)) for n in request["names"]}
    except z3.Z3Exception:  # no model (stopped before the first one)
        values = None
    return {"status": str(status), "values": values, "lower": lower}


if __name__ == "__main__":
    sys.stdout.write(json.dumps(answer(json.loads(sys.stdin.read()))))
