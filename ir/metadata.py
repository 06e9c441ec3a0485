"""`metadata["kind"][index]`: a reference to an object of a module's metadata section.

TVM's printer writes objects it cannot spell inline (the parameters named in
``R.func_attr({"params": [...]})``, large constants) as references into a
metadata section that it usually omits.  vdplace keeps such a reference as a
value: it reads back, compares by (kind, index) and prints as it was written.
Its payload is not in the text.
"""

from __future__ import annotations

import json


class MetadataRef:
    """``metadata[kind][index]``, e.g. ``metadata["ffi.Tensor"][0]``; an immutable value."""

    __slots__ = ("kind", "index")

    def __init__(self, kind: str, index: int) -> None:
        self.kind = kind
        self.index = index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MetadataRef) and (self.kind, self.index) == (other.kind, other.index)

    def __hash__(self) -> int:
        return hash((MetadataRef, self.kind, self.index))

    def __repr__(self) -> str:
        return f"metadata[{json.dumps(self.kind)}][{self.index}]"
