"""The fast path's caches (`fastpath`): what a line costs once its texts have been read.

So that a fast line costs a regular-expression match and a few dictionary
lookups, `FastCaches` keeps:

* annotation text -> struct info;
* call shape: (op, number of leading variable args, text of the other
  args) -> `Entry` (op, attrs, cacheable, constants), or None when such a
  call cannot take the fast path.  Calls made from one entry share its attrs
  dict (nodes are never mutated);
* (entry, argument struct infos by identity) -> the call's inferred struct
  info, for ops whose inference depends on nothing else;
* (annotation, inferred struct info) by identity -> the merged struct info.

A module shares one set among its functions that declare no symbolic dim (a
module of many small functions fills them once); any other function has its own.
Struct infos the fast path builds are interned per module
(`ModuleContext.intern`), so bindings share them and the identity-keyed
caches hit from the second line of a chain on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..expr import Expr
from ..op import Op
from ..span import Span
from ..struct_info import StructInfo

# A constant argument of a fast call (``R.shape([1, 16])``, ``R.const(0.5, "float32")``, ``metadata[...][i]``, a
# number), made anew for each line by `make` from its span: its columns are `col` to `end` past the start of the
# call's other arguments (1-based start, end exclusive).
Constant_ = tuple[Callable[[Span], Expr], int, int]
# A call-shape cache entry: the op, the attrs every call from it shares, whether its inference can be cached, and
# its constant arguments (after the leading variables, in parameter order).
Entry = tuple[Op, dict[str, Any], bool, tuple[Constant_, ...]]


class FastCaches:
    """The fast path's caches (see the module docstring)."""

    __slots__ = ("ann", "shape", "infer", "merge", "rejected")

    def __init__(self, other: FastCaches | None = None) -> None:
        """Empty caches, or copies of `other`'s."""
        self.ann: dict[str, StructInfo] = {} if other is None else dict(other.ann)
        self.shape: dict[tuple[str, int, str | None], Entry | None] = {} if other is None else dict(other.shape)
        self.infer: dict[tuple[int, ...], tuple[StructInfo, list[StructInfo]]] = (
            {} if other is None else dict(other.infer)
        )
        self.merge: dict[tuple[int, int], tuple[StructInfo, StructInfo]] = {} if other is None else dict(other.merge)
        # Annotation texts that are not one expression on their own.
        self.rejected: set[str] = set() if other is None else set(other.rejected)
