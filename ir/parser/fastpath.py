"""The fast path: a whole binding line turned into a binding without building its AST.

`fastlines` finds runs of simple lines (``name: ann = R.op(a, b, k=v)`` or
``name = alias``); `FastPathParser._fast_parts` builds exactly the `Parts`
that `FunctionParser._assign_parts` would build from the line's AST, or hands
the line to that ordinary path when it is anything less simple.
"""

from __future__ import annotations

import ast
from typing import Any

from ..errors import ParseError
from ..expr import Call, Expr, Var
from ..op import REQUIRED, Op
from ..span import Span
from ..struct_info import StructInfo
from .expressions import BUILTINS, EXPR_KINDS, NOT_VALUES
from .fastlines import FastLine

# What a parsed assignment contributes: name, name span, annotation (or None),
# annotation span, value, statement span, and its (line, col) position.
Parts = tuple[str, Span, "StructInfo | None", "Span | None", Expr, Span, tuple[int, int]]


class FastPathParser:
    """The fast-path half of `FunctionParser` (which sets the attributes and methods used here).

    Keeps two caches per function: annotation text -> struct info, and
    (op, number of positional args, keyword text) -> (op, attrs), or None
    when such a call cannot take the fast path.
    """

    src: Any
    module: Any
    static: Any
    scope: dict[str, Var]
    ann_cache: dict[str, StructInfo]
    kw_cache: dict[tuple[str, int, str | None], tuple[Op, dict[str, Any]] | None]

    def _fast_parts(self, line: FastLine) -> Parts | None:
        """`_assign_parts` for a fast line, without building its AST when possible."""
        ann = None
        ann_span = None
        if line.ann is not None:
            ann = self.ann_cache.get(line.ann)
            if ann is None:
                node = self.module.fragment(line.ann, line.lineno, line.ann_col, "eval").body
                ann = self.static.struct_info(node)
                self.ann_cache[line.ann] = ann
            ann_span = self.src.span_at(line.lineno, line.ann_col, line.ann_col + len(line.ann))
        scope = self.scope
        if line.op is None:
            value: Expr | None = scope.get(line.alias)  # type: ignore[arg-type]
        else:
            value = self._fast_call(line)
        if value is None:
            return self._slow_parts(line)
        lineno = line.lineno
        src = self.src
        return (
            line.name,
            src.span_at(lineno, line.col, line.col + len(line.name)),
            ann,
            ann_span,
            value,
            src.span_at(lineno, line.col, line.value_end),
            (lineno, line.col),
        )

    def _fast_call(self, line: FastLine) -> Call | None:
        positional = line.positional
        key = (line.op, len(positional), line.keywords)
        try:
            entry = self.kw_cache[key]
        except KeyError:
            # R.const, R.shape, ... are builtins even if an op were registered under that name.
            builtin = line.op in BUILTINS or line.op in NOT_VALUES
            op = None if builtin else self.module.op(line.op)  # type: ignore[arg-type]
            attrs = None if op is None else self._fast_attrs(op, line)
            entry = None if attrs is None else (op, attrs)
            self.kw_cache[key] = entry
        if entry is None:
            return None
        op, attrs = entry
        get = self.scope.get
        args = [get(name) for name in positional]
        if None in args:
            return None  # an unknown name: the ordinary path reports it
        span = self.src.span_at(line.lineno, line.value_col, line.value_end)
        attrs = dict(attrs) if attrs else {}
        return Call(op, args, attrs, self._infer(op, args, attrs, span), span)

    def _fast_attrs(self, op: Op, line: FastLine) -> dict[str, Any] | None:
        """The attrs of a fast call whose positional args are exactly op's leading tensor params, else None."""
        params = op.params
        npos = len(line.positional)
        if npos > len(params) or any(p.kind not in EXPR_KINDS for p in params[:npos]):
            return None
        given: dict[str, ast.expr] = {}
        if line.keywords is not None:
            call = self.module.fragment(f"_f({line.keywords})", line.lineno, line.keywords_col - 3, "eval").body
            for kw in call.keywords:  # type: ignore[attr-defined]
                given[kw.arg] = kw.value
        attrs: dict[str, Any] = {}
        for i, param in enumerate(params):
            node = given.pop(param.name, None)
            if i < npos:
                if node is not None:
                    return None
                continue
            if param.kind in EXPR_KINDS:
                return None
            if node is None:
                if param.default is REQUIRED:
                    return None
                attrs[param.name] = param.default
                continue
            try:
                attrs[param.name] = self._attr(op, param.kind, param.name, node)
            except ParseError:
                return None  # the ordinary path reports it, in argument order
        return None if given else attrs

    def _slow_parts(self, line: FastLine) -> Parts | None:
        """Handle a fast line the ordinary way, from its own AST."""
        stmt = self.module.fragment(line.text[line.col :], line.lineno, line.col, "exec").body[0]
        self.module.where = stmt
        return self._assign_parts(stmt)  # type: ignore[arg-type]
