"""Solving: equality classes -> a device per class (propagation, then a backend), and the independent checker.

`backend.py` is the one registry of backends and the contracts of the problems
they decide; `z3_backend.py` (``"z3"``, ``"z3-enum"``, ``"z3-bv"``) and
`plan_backends.py` (``"highs"``, ``"mincut"``) register themselves when
imported, which `backends.py` does for all of them (the driver imports it).
"""
