"""A copy path measured: a `Link`'s latency and bandwidth fitted to copies of two sizes.

`measure_link(copy)` calls ``copy(nbytes)`` (seconds for one copy of that
many bytes, however the caller moves them: a host-to-GPU upload, a send
between Ray actors) for a small and a large size, `repeat` times each, and
keeps the fastest of each, as kernels are timed.  The latency is the small
copy's time; the bandwidth is the extra bytes of the large copy over its
extra time, or, where the large copy was not measurably slower (noise), its
bytes over its whole time.
"""

from __future__ import annotations

from collections.abc import Callable

from .roofline import Link

SMALL_COPY = 8  # bytes: a copy that costs its latency alone
LARGE_COPY = 8 << 20  # bytes: a copy long enough for its bandwidth to show


def measure_link(
    copy: Callable[[int], float], repeat: int = 5, small: int = SMALL_COPY, large: int = LARGE_COPY
) -> Link:
    """The `Link` fitted to the fastest of `repeat` calls of ``copy(small)`` and of ``copy(large)``."""
    if repeat < 1 or not 0 < small < large:
        raise ValueError(f"want repeat >= 1 and 0 < small < large, got {repeat}, {small}, {large}")
    low = min(copy(small) for _ in range(repeat))
    high = min(copy(large) for _ in range(repeat))
    return fit_link(small, low, large, high)


def fit_link(small: int, small_seconds: float, large: int, large_seconds: float) -> Link:
    """The `Link` through two measured copies (module docstring)."""
    latency = max(small_seconds, 0.0)
    if large_seconds > small_seconds:
        return Link(latency, (large - small) / (large_seconds - small_seconds))
    return Link(latency, large / max(large_seconds, 1e-9))
