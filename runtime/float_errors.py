"""Floating-point conditions in kernels are values, as in torch and TVM, never warnings.

``log(0)`` is ``-inf``, ``0 / 0`` is ``nan``, ``exp`` of a large float is
``inf``, and a cast of ``-inf``, ``inf``, ``nan`` or an out-of-range float to
an integer gives what NumPy's C cast gives, which is what torch's CPU kernels
give (to int32 and int64: the type's minimum, as in TVM's llvm build too; to
int8 and int16: 0 in torch and NumPy, the minimum in TVM, the C standard
leaving it undefined).  NumPy reports each of these as a `RuntimeWarning`,
an exception under ``python -W error``, where torch and TVM say nothing.

So every executor runs its kernels inside `kernels_quiet()`, once per run,
not per op: `VirtualMachine.run`, `run_reference` and each Ray actor's
script.  It changes no result; it only stops the report.
"""

from __future__ import annotations

import numpy as np


def kernels_quiet() -> np.errstate:
    """The context in which kernels run: NumPy's floating-point error reports off (thread-local)."""
    return np.errstate(all="ignore")
