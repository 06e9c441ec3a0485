"""Pausing CPython's cyclic garbage collector while a pass builds or walks millions of objects.

The IR, the parser's trees and placement's tables hold no reference cycles,
but the collector, counting allocations, would walk every live object again
every few thousand new ones: on a module of a million bindings that costs
more than the pass itself.  Reference counting still frees whatever is
dropped.  Every pass that builds a module (parse, place) or walks one at
scale (conflict diagnosis, a VM run) runs inside `collector_paused`.

With ``promote=True``, on the way out (error or not) everything the
collector tracks goes straight to its oldest generation (``gc.freeze()`` then
``gc.unfreeze()``, two list splices) instead of being scanned as young by
the next collections: a parsed or placed module is long-lived, and the first
young collections after the pass would otherwise walk all of it (a second at
a million bindings).  Unreachable cycles that were young then are freed by
the next full collection.  Promotion is skipped when the process keeps
frozen objects of its own, which ``gc.unfreeze`` would release.

Nesting is free: an inner pause finds the collector already off and leaves
it alone.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused(*, promote: bool = True) -> Iterator[None]:
    """The cyclic collector off for the block and on again after it (when it was on); see the module docstring."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if promote and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        gc.enable()
