"""Solving: equality classes -> a device per class (propagation, then a backend), and the independent checker.

`backend.py` is the contract a decision procedure implements; `z3_backend.py`
the Z3 MaxSMT one, registered here as ``"z3"``, ``"z3-enum"`` and ``"z3-bv"``
(importing this package registers it).
"""

from vdplace.placement.solve import z3_backend  # noqa: F401 - registers the Z3 backend's names
