"""Reading function signatures, and the order in which function bodies are parsed.

`SignatureReader`, the module context (`context.ModuleContext`) that
`ModuleParser` extends, reads each ``@R.function``'s decorator, parameters
and return annotation into a `Signature`, from its AST or, for the plain
``def`` lines the skeleton blanks (`fastlines.FastDef`), from the line
itself, exactly as from their AST.

A function without a return annotation gets the struct info of its body,
so its body is parsed before the bodies that call it (a walk of the AST of
its original lines finds those calls, only when the name of such a function
appears in its text); a recursive call to a function whose return type is
still unknown is an error that asks for the annotation.
"""

from __future__ import annotations

import ast
from bisect import bisect_right
from typing import Any

from ..span import Span
from ..struct_info import StructInfo
from .annotations import StaticReader
from .context import NAMESPACES, SYMBOL_DECLS, ModuleContext, Signature
from .fastfunctions import FastFunction
from .literals import bind_arguments, bool_literal, describe, dotted
from .skeleton import FastDef, Skeleton
from .source import Source, quiet_parse

_FUNCTION_KEYWORDS = ("private", "pure")


class SignatureReader(ModuleContext):
    """The module context, reading signatures and the order of the bodies (see the module docstring)."""

    def __init__(self, src: Source, skeleton: Skeleton | None) -> None:
        super().__init__(src, skeleton)
        self._run_starts: list[int] | None = None  # first lines of the skeleton's runs, sorted (`_last_line`)
        self._decorators: dict[str, dict[str, Any]] = {}  # a collapsed function's decorator text -> its attributes

    def _signature(self, fdef: ast.FunctionDef | FastFunction) -> None:
        self.where = fdef
        name = fdef.name
        if name in self.prim_funcs:
            raise self.src.error(f"function {name!r} is defined twice", fdef)
        if name in self.signatures:
            first = self.signatures[name].node.lineno
            raise self.src.error(f"function {name!r} is defined twice (first at line {first})", fdef)
        sig = Signature(name, fdef)
        if isinstance(fdef, FastFunction):
            assert self.skeleton is not None  # a collapsed function is the skeleton's
            sig.attrs = self._fast_decorator(fdef)
            sig.symbols = set(self.type_vars)  # its body declares none
            static = StaticReader(self.src, self.vdevices, sig.symbols)
            self._fast_parameters(sig, self.skeleton.defs[fdef.lineno], static)
            self.signatures[name] = sig
            return
        sig.attrs = self._function_decorator(fdef)
        args = fdef.args
        extra = args.posonlyargs or args.kwonlyargs or args.vararg or args.kwarg
        if extra:
            raise self.src.error(
                f"function {name!r}: only plain positional parameters are supported", args.vararg or args.kwarg or fdef
            )
        if args.defaults:
            raise self.src.error(f"function {name!r}: parameters cannot have default values", args.defaults[0])
        sig.symbols = _declared_symbols(fdef) | self.type_vars
        static = StaticReader(self.src, self.vdevices, sig.symbols)
        fast = self.skeleton.defs.get(fdef.lineno) if self.skeleton is not None else None
        if fast is None:
            self._parameters(sig, fdef, static)
        else:
            self._fast_parameters(sig, fast, static)
        self.signatures[name] = sig

    def _parameters(self, sig: Signature, fdef: ast.FunctionDef, static: StaticReader) -> None:
        """Read the parameters and return annotation of `sig` from its AST `fdef`."""
        seen: set[str] = set()
        for arg in fdef.args.args:
            ann = arg.annotation
            self._check_parameter(sig.name, arg.arg, ann is not None, seen, arg)
            assert ann is not None  # `_check_parameter` refuses a parameter without one
            sig.params.append((arg.arg, static.struct_info(ann), self.src.span(arg)))
        if fdef.returns is not None:
            sig.ret = static.struct_info(fdef.returns)
            sig.ret_span = self.src.span(fdef.returns)

    def _fast_parameters(self, sig: Signature, fast: FastDef, static: StaticReader) -> None:
        """Read the parameters and return annotation of `sig` from its blanked ``def`` line, as `_parameters` would."""
        lineno = fast.lineno
        seen: set[str] = set()
        span_at, check, append = self.src.span_at, self._check_parameter, sig.params.append
        # `FastDef` shares equal annotation texts: one lookup per run of them (the first sets `sinfo`).
        last: str | None = None
        sinfo: StructInfo
        for name, col, ann, ann_col in fast.parameters():
            span = span_at(lineno, col, ann_col + len(ann))
            check(sig.name, name, True, seen, span)
            if ann is not last:
                last, sinfo = ann, self.annotation(static, ann, lineno, ann_col)
            append((name, sinfo, span))
        if fast.ret is not None:
            start = fast.ret_col
            sig.ret = self.annotation(static, fast.ret, lineno, start)
            sig.ret_span = self.src.span_at(lineno, start, start + len(fast.ret))

    def _check_parameter(self, fname: str, name: str, annotated: bool, seen: set[str], where: ast.AST | Span) -> None:
        """Fail unless parameter `name` of function `fname` (at `where`) is new, annotated and not reserved."""
        if name in seen:
            raise self.src.error(f"function {fname!r}: parameter {name!r} is defined twice", where)
        seen.add(name)
        if not annotated:
            raise self.src.error(f"parameter {name!r} needs a struct-info annotation such as R.Tensor(...)", where)
        if name in NAMESPACES or name == self.class_name:
            raise self.src.error(f"cannot name a parameter {name!r}", where)

    def _fast_decorator(self, fn: FastFunction) -> dict[str, Any]:
        """The attributes the decorator of a collapsed function sets, read from its text as from its AST."""
        text = fn.decorator
        if text == "@R.function":
            return {}
        cached = self._decorators.get(text)
        if cached is None:
            deco = self.fragment(text[1:], fn.lineno - 1, fn.col_offset + 1, "eval").body
            cached = self._decorators[text] = self._decorator_attrs(deco)
        return dict(cached)

    def _function_decorator(self, fdef: ast.FunctionDef) -> dict[str, Any]:
        if not fdef.decorator_list:
            raise self.src.error(f"function {fdef.name!r} must be decorated with @R.function", fdef)
        if len(fdef.decorator_list) > 1:
            raise self.src.error("a function takes exactly one decorator, @R.function", fdef.decorator_list[1])
        return self._decorator_attrs(fdef.decorator_list[0])

    def _decorator_attrs(self, deco: ast.expr) -> dict[str, Any]:
        """The attributes a function's one decorator `deco` sets (it must be ``R.function`` or a call of it)."""
        call = deco if isinstance(deco, ast.Call) else None
        name = dotted(call.func if call is not None else deco)
        if name != "R.function":
            raise self.src.error(f"the function decorator must be @R.function, got {describe(deco)}", deco)
        attrs: dict[str, Any] = {}
        if call is not None:
            bound = bind_arguments(self.src, call, _FUNCTION_KEYWORDS, "R.function")
            for key, node in zip(_FUNCTION_KEYWORDS, bound, strict=True):
                if node is None:
                    continue
                value = bool_literal(self.src, node, f"R.function({key}=...)")
                # private=False is the default and is not printed back, so it is not stored.
                if key == "private" and not value:
                    continue
                attrs[key] = value
        return attrs

    def _order(self) -> list[str]:
        """Function names in parse order: a callee with no return annotation before its callers."""
        names = list(self.signatures)
        unknown = {n for n in names if self.signatures[n].ret is None}
        if not unknown:
            return names
        deps = {n: self._callees(self.signatures[n].node, unknown) for n in names}
        order: list[str] = []
        state: dict[str, int] = {}
        for root in names:
            if root in state:
                continue
            state[root] = 1
            stack = [(root, iter(deps[root]))]
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    stack.pop()
                    state[node] = 2
                    order.append(node)
                elif nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, iter(deps[nxt])))
        return order

    def _callees(self, fdef: ast.FunctionDef | FastFunction, candidates: set[str]) -> list[str]:
        """Functions in `candidates` that `fdef` calls as ``cls.f(...)`` (in the order `ast.walk` meets them)."""
        last = self._last_line(fdef)
        text = "\n".join(self.src.lines[fdef.lineno - 1 : last])
        if not any(f".{name}" in text for name in candidates):
            return []  # no call can name them: skip walking a possibly huge body
        tree: ast.AST
        if isinstance(fdef, ast.FunctionDef) and self.skeleton is None:
            tree = fdef
        else:  # the skeleton lacks fast lines and signatures: read the original lines
            block = quiet_parse("if 1:\n" + text).body[0]
            assert isinstance(block, ast.If)
            tree = block.body[0]
        nodes = list(ast.walk(tree))
        aliases = {self.class_name}
        for node in nodes:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Name)
                and node.value.id == self.class_name
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                aliases.add(node.targets[0].id)
        out: list[str] = []
        for node in nodes:
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in aliases
                and node.func.attr in candidates
                and node.func.attr not in out
            ):
                out.append(node.func.attr)
        return out

    def _last_line(self, fdef: ast.FunctionDef | FastFunction) -> int:
        """The last line of `fdef` in the text, counting the fast lines that end it in the skeleton."""
        last = fdef.end_lineno or fdef.lineno
        if self.skeleton is None:
            return last
        block = self.skeleton.blocks.get(last)
        if block is not None:
            last = block.out_line
        if self._run_starts is None:
            self._run_starts = sorted(self.skeleton.runs)
        i = bisect_right(self._run_starts, last) - 1
        if i >= 0 and self._run_starts[i] >= fdef.lineno:
            run = self.skeleton.runs[self._run_starts[i]]
            last = max(last, run.first + run.count - 1)
        return last


def _declared_symbols(fdef: ast.FunctionDef) -> set[str]:
    """Names declared ``n = T.int64()`` at the top of a function body (usable in its signature)."""
    out = set()
    for stmt in fdef.body:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call)
            and dotted(stmt.value.func) in SYMBOL_DECLS
            and not stmt.value.args
        ):
            out.add(stmt.targets[0].id)
    return out
