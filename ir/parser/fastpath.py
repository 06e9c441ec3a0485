"""The fast path: whole binding lines turned into bindings without building their AST.

`fastlines` finds runs of simple lines (``name: ann = R.op(a, b, k=v)``,
``name: ann = cls.f(a, b)`` or ``name = alias``); `FastPath.run` builds, line
by line, exactly the binding that the statement parser
(`statements.assign_parts`, then `FunctionState.bind`) would
build from the line's AST (its span given as `JOINED_SPAN`, which is the
same span), or hands the line to that ordinary path when it is anything less
simple.  It caches what it reads (`caches.FastCaches`), so that a line costs
a regular-expression match and a few dictionary lookups.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from ..errors import ParseError
from ..expr import (
    JOINED_SPAN,
    Binding,
    Call,
    Constant,
    Expr,
    GlobalVar,
    PrimValue,
    ShapeExpr,
    StringImm,
    TupleGetItem,
    Var,
)
from ..normalize import global_call_struct_info, merge_annotation
from ..op import REQUIRED, SHAPE, Op
from ..span import MAX_PACKED_COL, MAX_PACKED_LINE, Span, name_span, packed_file, packed_line, value_span
from ..struct_info import StructInfo, TupleStructInfo
from .caches import Constant_, Entry
from .expressions import BUILTINS, EXPR_KINDS, NOT_VALUES, ExprParser
from .fastlines import FastLine, FastRun, _parses_alone, _parses_as_arguments, value_end
from .state import FunctionState, Parts, branch_tail

# The names a constant argument may mention: the heads of ``R.const``, ``T.float64`` and ``metadata[...]``.
_CONSTANT_NAMES = frozenset({"R", "T", "metadata"})
# How many distinct binding names a module's variables share one string of (`ModuleContext.names`).
MAX_SHARED_NAMES = 4096


class FastPath:
    """Reads the runs of fast lines of one function body into bindings, against its `FunctionState`.

    Values go through `exprs` where a line needs them read as the ordinary path reads them (a constant
    argument, an attribute); a line the fast path does not read whole goes to `assign`, the statement parser's
    reading of one assignment statement (None for a declaration such as ``n = T.int64()``).
    """

    __slots__ = ("state", "src", "module", "exprs", "assign")

    def __init__(
        self,
        state: FunctionState,
        exprs: ExprParser,
        assign: Callable[[ast.Assign | ast.AnnAssign], Parts | None],
    ) -> None:
        self.state = state
        self.src = state.src
        self.module = state.module
        self.exprs = exprs
        self.assign = assign

    def run(self, run: FastRun, out: list[Binding], ends_branch: bool) -> Parts | None:
        """Append the bindings of `run`'s lines to `out`; with `ends_branch`, return the last line's `Parts` unbound.

        The hot loop of parsing a big module, so its common case is inlined: a cached annotation, a call of a
        cached shape whose struct info is cached, no dataflow block, one packed position (`ir.span`) for the
        line's variable and call where it fits.  Anything else goes through the methods below.

        Long because: the common case is one inlined loop body; a method call per line would cost a tenth
        of the parse.
        """
        append = out.append
        last = run.first + run.count - 1 if ends_branch else -1
        file = self.src.filename
        fbase = packed_file(file) if run.first + run.count <= MAX_PACKED_LINE else None
        state = self.state
        caches, scope = state.caches, state.scope
        ann_cache, shape_cache, infer_cache = caches.ann, caches.shape, caches.infer
        args: list[Expr]
        var_pos: Span | int  # a packed position (`ir.span`) where the line has one
        value_pos: Span | int
        plain = state.df is None  # outside a dataflow block every binding makes a Var
        reserved = state.reserved
        shared_names = self.module.names
        room = MAX_SHARED_NAMES - len(shared_names)
        nxt, expected = run.first, run.start  # the number and offset of the next line to read
        lineno, m = run.first, None
        try:
            for m in run.matches():
                pos = m.start()
                if pos != expected:  # candidate lines that `LINE` skipped
                    nxt = self._other_lines(run, expected, pos, nxt, out, -1)[0]
                lineno = nxt
                nxt += 1
                expected = m.end() + 1
                if lineno == last:
                    return self._other_lines(run, pos, expected, lineno, out, last)[1]
                name, ann_text, op_name, args_text, rest = m.group(2, 3, 5, 7, 8)
                shared = shared_names.get(name)
                if shared is not None:
                    name = shared
                elif room > 0:
                    shared_names[name] = name
                    room -= 1
                ann = None
                if ann_text is not None:
                    ann = ann_cache.get(ann_text)
                    if ann is None:
                        ann = self._fast_annotation(ann_text, lineno, m.start(3) - pos)
                        if ann is None:  # not an annotation on its own
                            self._other_lines(run, pos, expected, lineno, out, -1)
                            continue
                if op_name is None:
                    value: Expr | None = None
                else:
                    if not args_text:
                        names = []
                    elif "\t" in args_text:
                        names = [p.strip() for p in args_text.split(",")]
                    else:
                        names = args_text.replace(" ", "").split(",")
                    key = (op_name, len(names), rest)
                    try:
                        entry = shape_cache[key]
                    except KeyError:
                        entry = self._fast_entry(key, lineno, m.start(8) - pos)
                    try:
                        args = [scope[name] for name in names]
                    except KeyError:
                        entry = None  # an unknown name
                    if entry is None:
                        value = None  # not a call the fast path reads, or an unknown name
                    else:
                        if entry[3]:
                            args += self._fast_constants(entry[3], file, lineno, m.start(8) - pos)
                        start, end = m.span(4)
                        col, vcol, vend = m.end(1) - pos + 1, start - pos + 1, end - pos + 1
                        if fbase is not None and vend <= MAX_PACKED_COL:
                            var_pos = value_pos = fbase | packed_line(lineno, col, vcol, vend)
                        else:
                            value_pos = Span(file, lineno, vcol, lineno, vend)
                            var_pos = Span(file, lineno, col, lineno, col + len(name))
                        hit = infer_cache.get((id(entry), *[id(a.struct_info) for a in args]))
                        sinfo = hit[0] if hit is not None else self._fast_infer(entry, args, value_pos)
                        value = Call(entry[0], args, entry[1], sinfo, value_pos)
                if value is None:
                    binding = self._fast_other(m, lineno)
                    if binding is not None:
                        append(binding)
                    continue
                if name in reserved:  # before the annotation is merged, as `FunctionState.bind` checks
                    raise state.reserved_error(name, var_pos if isinstance(var_pos, Span) else name_span(var_pos, name))
                sinfo = value.struct_info
                if ann is not None and ann is not sinfo:
                    sinfo = self._fast_merge(ann, sinfo, name, lineno, m.start(3) - pos, len(ann_text))
                if plain:
                    var = scope[name] = Var(name, sinfo, var_pos)
                else:
                    var = state.new_var(name, sinfo, var_pos, lineno, col - 1)
                append(Binding(var, value, ann, JOINED_SPAN))
            if expected <= run.end:
                m = None  # `_slow_parts` locates the lines after the last match
                return self._other_lines(run, expected, run.end + 1, nxt, out, last)[1]
        except Exception:
            if m is not None and expected == m.end() + 1:  # failed on the line of `m`, not on one before it
                self.module.where = FastLine(lineno, m.group())
            raise
        return None

    def _other_lines(
        self, run: FastRun, start: int, stop: int, lineno: int, out: list[Binding], last: int
    ) -> tuple[int, Parts | None]:
        """Bind the lines of `run` from offset `start` to `stop` (line `lineno` on) the ordinary way, into `out`.

        The lines are read together (`ModuleContext.assignments`), exactly as
        reading each apart would read them.  Returns the next line's number, and
        for line `last` (the end of a branch) its `Parts`, unbound.
        """
        texts = run.text[start:stop].split("\n")
        if not texts[-1]:
            texts.pop()  # the line break before `stop`
        col = len(texts[0]) - len(texts[0].lstrip(" \t"))  # the run's indentation
        for stmt in self.module.assignments(texts, lineno, col):
            self.module.where = stmt
            parts = self.assign(stmt)
            if lineno == last:
                return lineno + 1, branch_tail(self.src, parts, stmt)
            if parts is not None:
                out.append(self.state.bind(parts))
            lineno += 1
        return lineno, None

    def _fast_other(self, m: re.Match[str], lineno: int) -> Binding | None:
        """A fast line the hot loop leaves: ``y = x``, ``y = t[i]``, ``y = cls.f(a)``, or one for the ordinary path."""
        pos = m.start()
        _, name, ann_text, _, op_name, callee, _, _, alias, index = m.groups()
        end = value_end(m)
        file = self.src.filename
        col = m.end(1) - pos + 1
        packed = None  # a function call's line packs its position as the hot loop's lines do
        if op_name is not None:
            value: Expr | None = None
        elif callee is not None:
            fbase = packed_file(file) if lineno <= MAX_PACKED_LINE else None
            if fbase is not None and end - pos + 1 <= MAX_PACKED_COL:
                packed = fbase | packed_line(lineno, col, m.start(4) - pos + 1, end - pos + 1)
            value = self._fast_function_call(m, lineno, packed)
        else:
            value = self.state.scope.get(alias)
            if value is not None and index is not None:
                value = self._fast_get_item(value, int(index), lineno, m.start(9) - pos, end - pos)
        if value is None:
            parts = self._slow_parts(FastLine(lineno, m.group()))
            return None if parts is None else self.state.bind(parts)
        if name in self.state.reserved:
            raise self.state.reserved_error(name, Span(file, lineno, col, lineno, col + len(name)))
        sinfo = value.struct_info
        ann = None
        if ann_text is not None:
            ann = self.state.caches.ann[ann_text]  # read by the hot loop already
            if ann is not sinfo:
                sinfo = self._fast_merge(ann, sinfo, name, lineno, m.start(3) - pos, len(ann_text))
        if packed is not None:
            return Binding(self.state.new_var(name, sinfo, packed, lineno, col - 1), value, ann, JOINED_SPAN)
        var = self.state.new_var(name, sinfo, Span(file, lineno, col, lineno, col + len(name)), lineno, col - 1)
        return Binding(var, value, ann, Span(file, lineno, col, lineno, end - pos + 1))

    def _fast_get_item(self, value: Expr, index: int, lineno: int, col: int, end: int) -> TupleGetItem | None:
        """``value[index]`` at 0-based columns `col` to `end`, as `ExprParser._get_item` reads it; None when that
        would raise (not a tuple, out of range): the ordinary path then reports it."""
        sinfo = value.struct_info
        if type(sinfo) is not TupleStructInfo or index >= len(sinfo.fields):
            return None
        return TupleGetItem(value, index, sinfo.fields[index], self.src.span_at(lineno, col, end))

    def _fast_function_call(self, m: re.Match[str], lineno: int, packed: int | None) -> Call | None:
        """The value of a fast line ``y = cls.f(a, b)``, as `ExprParser._call` reads it; None for the ordinary path.

        Only a call of a module function through a module alias, with known
        variables as its only arguments, is read here.  The call's span is the
        line's `packed` position where it has one.
        """
        head, _, name = m.group(6).partition(".")
        args_text, rest = m.group(7, 8)
        signatures = self.module.signatures
        if rest is not None or head not in self.state.aliases or name not in signatures:
            return None
        names = [p.strip() for p in args_text.split(",")] if args_text else []
        scope = self.state.scope
        try:
            args: list[Expr] = [scope[n] for n in names]
        except KeyError:
            return None  # an unknown name
        pos, file = m.start(), self.src.filename
        span: Span | int = (
            Span(file, lineno, m.start(4) - pos + 1, lineno, m.end(4) - pos + 1) if packed is None else packed
        )
        sig = signatures[name]
        name = sig.name  # the function's own string, not one per call
        callee = sig._callee
        if callee is None and (sig.ret is not None or sig.function is not None):
            callee = self.module.callee_struct_info(name, None)  # its return is known: no error to locate
        if (
            callee is None
            or len(args) != len(callee.params)
            or any(a.struct_info is not p for a, p in zip(args, callee.params, strict=False))
        ):  # not the common case of arguments that share the parameters' struct infos: checked where it is
            if isinstance(span, int):
                span = value_span(span)
            callee = self.module.callee_struct_info(name, span)
            sinfo = global_call_struct_info(name, callee, args, span)
        else:
            sinfo = callee.ret
        func = GlobalVar(name, Span(file, lineno, m.start(6) - pos + 1, lineno, m.end(6) - pos + 1))
        return Call(func, args, None, sinfo, span)

    def _fast_infer(self, entry: Entry, args: list[Expr], span: Span | int) -> StructInfo:
        """A fast call's struct info when the hot loop's cache missed; stored there when it may be reused.

        The cache key is the entry and the arguments' struct infos by identity;
        the value keeps those struct infos alive, so no identity is reused while it stands.
        `span` is the call's, or its packed position (`ir.span`).
        """
        op, attrs, cacheable, _ = entry
        if isinstance(span, int):
            span = value_span(span)
        if not cacheable:
            return self.exprs.infer(op, args, attrs, span)
        sinfos = [a.struct_info for a in args]
        sinfo = self.module.intern(self.exprs.infer(op, args, attrs, span))
        self.state.caches.infer[(id(entry), *map(id, sinfos))] = (sinfo, sinfos)
        return sinfo

    def _fast_annotation(self, text: str, lineno: int, col: int) -> StructInfo | None:
        """The struct info of annotation `text` (at `lineno`, 0-based `col`), stored in the hot loop's cache;
        None when `text` is not one expression on its own (the line is then read the ordinary way)."""
        caches = self.state.caches
        if text in caches.rejected or not _parses_alone(text):
            caches.rejected.add(text)
            return None
        ann = caches.ann[text] = self.module.annotation(self.state.static, text, lineno, col)
        return ann

    def _fast_merge(
        self, ann: StructInfo, sinfo: StructInfo, name: str, lineno: int, col: int, size: int
    ) -> StructInfo:
        """`merge_annotation(ann, sinfo)`, cached by identity (`sinfo` itself when they are equal)."""
        key = (id(ann), id(sinfo))
        merge_cache = self.state.caches.merge
        hit = merge_cache.get(key)
        if hit is not None:
            return hit[0]
        if ann == sinfo:
            merged = sinfo
        else:
            span = self.src.span_at(lineno, col, col + size)
            merged = self.module.intern(merge_annotation(ann, sinfo, span, repr(name)))
        merge_cache[key] = (merged, sinfo)
        return merged

    def _fast_entry(self, key: tuple[str, int, str | None], lineno: int, rest_col: int) -> Entry | None:
        """The call-shape cache entry for `key`: None when such calls cannot take the fast path."""
        op_name, npos, rest = key
        entry = None
        shape_cache = self.state.caches.shape
        if rest is not None and not _parses_as_arguments(rest):
            shape_cache[key] = None
            return None
        # R.const, R.shape, ... are builtins even if an op were registered under that name.
        if op_name not in BUILTINS and op_name not in NOT_VALUES:
            op = self.module.op(op_name)
            read = None if op is None else self._fast_attrs(op, npos, rest, lineno, rest_col)
            if op is not None and read is not None:
                # Inference reads only the arguments' struct infos (a constant argument's is the same
                # object on every line) and the attrs, except where hints add vdevices to the module as
                # it is parsed.
                cacheable = op.device_rule == "same" or not self.module.implies_vdevices
                entry = (op, read[0], cacheable, read[1])
        shape_cache[key] = entry
        return entry

    def _fast_attrs(
        self, op: Op, npos: int, rest: str | None, lineno: int, rest_col: int
    ) -> tuple[dict[str, Any], tuple[Constant_, ...]] | None:
        """The attrs and constant arguments of a fast call, or None when it is not one.

        A fast call's leading variable args are exactly op's leading tensor
        params; its other args (`rest`, the text after them) fill the
        following params in order, then by keyword, and each is an
        attribute that reads without error or an expression param given a
        constant (`_fast_constant`).  Anything else is for the ordinary
        path, which reports problems in argument order.
        """
        params = op.params
        if npos > len(params) or any(p.kind not in EXPR_KINDS for p in params[:npos]):
            return None
        extra: list[ast.expr] = []
        given: dict[str, ast.expr] = {}
        if rest is not None:
            call = self.module.fragment(f"_f({rest})", lineno, rest_col - 3, "eval").body
            assert isinstance(call, ast.Call)  # `fastlines.LINE` matches only such a `rest`
            extra = call.args
            for kw in call.keywords:
                if kw.arg is None:
                    return None  # ``**kwargs`` (which `fastlines` does not let through)
                given[kw.arg] = kw.value
        if npos + len(extra) > len(params):
            return None
        attrs: dict[str, Any] = {}
        constants: list[Constant_] = []
        for i, param in enumerate(params):
            node = given.pop(param.name, None)
            if i < npos + len(extra):
                if node is not None:
                    return None  # a keyword repeats a positional argument
                if i < npos:
                    continue
                node = extra[i - npos]
            if param.kind in EXPR_KINDS:
                constant = None if node is None else self._fast_constant(op, param.kind, param.name, node, rest_col)
                if constant is None:
                    return None
                constants.append(constant)
                continue
            if node is None:
                if param.default is REQUIRED:
                    return None
                attrs[param.name] = param.default
                continue
            try:
                attrs[param.name] = self.exprs.attr(op, param.kind, param.name, node)
            except ParseError:
                return None
        return None if given else (attrs, tuple(constants))

    def _fast_constant(self, op: Op, kind: str, name: str, node: ast.expr, rest_col: int) -> Constant_ | None:
        """`node`, the argument of expression param `name`, as a constant made anew per line, or None when it is
        not one: it names no variable or dim, and reads (as `ExprParser._op_call` reads it) to a node with no
        operands.  `rest_col`: the 0-based column where the call's other arguments start on `node`'s line."""
        for sub in ast.walk(node):
            if type(sub) is ast.Name and sub.id not in _CONSTANT_NAMES:
                return None
        try:
            value = self.exprs.shape_arg(op, name, node, 1) if kind == SHAPE else self.exprs.expr(node, 1)
        except ParseError:
            return None
        span = value.span
        if span is None or span.line != span.end_line:
            return None
        make: Callable[[Span], Expr]
        if type(value) is ShapeExpr:
            make = partial(ShapeExpr, value.values, value.struct_info)
        elif type(value) is Constant:
            data, ref, sinfo = value.data, value.ref, value.struct_info

            def make(span: Span) -> Expr:
                return Constant(None if data is None else data.copy(), sinfo, span, ref)

        elif type(value) is PrimValue:
            make = partial(PrimValue, value.value, value.dtype, value.struct_info)
        elif type(value) is StringImm:
            make = partial(StringImm, value.value)
        else:
            return None
        return make, span.col - rest_col, span.end_col - rest_col

    @staticmethod
    def _fast_constants(constants: tuple[Constant_, ...], file: str | None, lineno: int, rest_col: int) -> list[Expr]:
        """The constant arguments of a fast call on line `lineno` whose other arguments start at `rest_col`."""
        return [make(Span(file, lineno, rest_col + col, lineno, rest_col + end)) for make, col, end in constants]

    def _slow_parts(self, line: FastLine) -> Parts | None:
        """Handle a candidate line the ordinary way, from its own AST.

        Raises `SkeletonMismatch` unless the line is one assignment on its own.
        """
        (stmt,) = self.module.assignments([line.text], line.lineno, line.col)
        self.module.where = stmt
        return self.assign(stmt)
