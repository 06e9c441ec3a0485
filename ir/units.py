"""Sizes for people: one way to write a byte count, shared by placement's plans and the runtime's reports."""

from __future__ import annotations


def format_bytes(n: float) -> str:
    """``1.5 GiB``: `n` bytes in the largest binary unit that keeps it at least 1."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} EiB"
