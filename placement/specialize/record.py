"""`Clone`: one copy of a function that call-site specialization made, as `Placement.clones` lists it."""

from __future__ import annotations


class Clone:
    """A copy of module function `function` named `name`, called by `call_sites` calls of the placed module.

    Every call counts, a recursive or mutually recursive function's calls of
    its own copy included.

    `signature` is the device of every parameter leaf and return leaf in the
    placed module: ``(("x", "llvm:0"), ("<ret>", "llvm:0"))``, a leaf of a
    tuple as ``"t.1"``, a device as conflict reports name it, None where the
    placement left the leaf unplaced.  The copy that keeps the original name is
    listed too (``name == function``).
    """

    __slots__ = ("function", "name", "call_sites", "signature")

    def __init__(
        self, function: str, name: str, call_sites: int, signature: tuple[tuple[str, str | None], ...]
    ) -> None:
        self.function = function
        self.name = name
        self.call_sites = call_sites
        self.signature = signature

    def as_dict(self) -> dict[str, object]:
        """The JSON form: ``{"function", "name", "call_sites", "signature": {leaf: device}}``."""
        return {
            "function": self.function,
            "name": self.name,
            "call_sites": self.call_sites,
            "signature": dict(self.signature),
        }

    def describe(self) -> str:
        """``scale_cuda0: copy of scale with x on "cuda:0", <ret> on "cuda:0" (1 call site)``."""
        leaves = ", ".join(f'{leaf} on "{device}"' if device else f"{leaf} unplaced" for leaf, device in self.signature)
        what = "the original" if self.name == self.function else f"copy of {self.function}"
        sites = f"{self.call_sites} call site{'' if self.call_sites == 1 else 's'}"
        return f"{self.name}: {what} with {leaves or 'no tensors'} ({sites})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Clone) and self.as_dict() == other.as_dict()

    def __hash__(self) -> int:
        return hash((self.function, self.name, self.call_sites, self.signature))

    def __repr__(self) -> str:
        return f"Clone({self.function!r} -> {self.name!r}, {dict(self.signature)!r}, call_sites={self.call_sites})"
