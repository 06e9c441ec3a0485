"""What every function of a module is parsed against: the module's context.

`ModuleContext` holds what the file has told so far (the source and its
fast-path skeleton, the vdevices, the functions' signatures, the TIR
functions) and the services the function parser shares across functions:
op lookups, interned struct infos, cached annotations, the fast path's
caches, and reading pieces of text with `ast` where they sit in the file.
`ModuleParser` (`module`) is one; each function body is parsed against it
(`state.FunctionState.module`).
"""

from __future__ import annotations

import ast
from typing import Any, Literal, Protocol, cast, overload

from ..expr import Function
from ..fill_vdevice import HOST_VDEVICE
from ..op import Op, all_ops, get_op
from ..span import Span
from ..struct_info import FuncStructInfo, StructInfo, TensorStructInfo
from ..tir import PrimFunc
from ..vdevice import DeviceSpec, Target, VDevice, lookup_device
from .annotations import StaticReader
from .caches import FastCaches
from .fastfunctions import FastFunction
from .fastlines import FastLine, FastRun, SkeletonMismatch
from .skeleton import Skeleton
from .source import Source, quiet_parse

# Names that belong to the TVMScript namespaces; binding them would make the text ambiguous.
NAMESPACES = frozenset({"R", "I", "T", "tvm"})
# The calls that declare a symbolic dim in a function body: ``n = T.int64()``.
SYMBOL_DECLS = frozenset({"T.int64", "T.int32"})

# `assignments` parses lines in place (after blank lines) rather than moving their nodes when there are at most
# this many blank lines per line read: a blank line costs the tokenizer about 20 ns, moving a line's nodes about
# 20 us.
_PAD_PER_LINE = 1000


class _Positioned(Protocol):
    """An AST node with a position, as `ModuleContext.fragment` moves it."""

    lineno: int
    col_offset: int
    end_lineno: int | None
    end_col_offset: int | None


class Signature:
    """What callers need of a function before its body is parsed."""

    __slots__ = ("name", "node", "params", "ret", "ret_span", "attrs", "symbols", "function", "_callee")

    def __init__(self, name: str, node: ast.FunctionDef | FastFunction) -> None:
        self.name = name
        self.node = node
        self.params: list[tuple[str, StructInfo, Span]] = []
        self.ret: StructInfo | None = None
        self.ret_span: Span | None = None
        self.attrs: dict[str, Any] = {}
        self.symbols: set[str] = set()
        self.function: Function | None = None
        self._callee: FuncStructInfo | None = None


class ModuleContext:
    """The module's state and shared services while its functions are parsed (see the module docstring)."""

    def __init__(self, src: Source, skeleton: Skeleton | None) -> None:
        self.src = src
        self.skeleton = skeleton
        self.vdevices: list[VDevice] = []
        self.class_name = "Module"
        self.signatures: dict[str, Signature] = {}
        # The statement (or fast line) being parsed: the location of an unexpected failure.
        self.where: ast.AST | FastFunction | FastLine | Span | None = None
        self._ops: dict[str, Op | None] = {}
        self._param_names: dict[str, tuple[str, ...]] = {}
        # True for a module that declares no vdevice (what TVM's frontends print): each device a
        # hint names becomes a vdevice, with the host (llvm:0) beside it (`imply_vdevice`).
        self.implies_vdevices = False
        # Symbolic dims declared at the top of the file (`n = TypeVar("n")`), usable in every function.
        self.type_vars: set[str] = set()
        # One object per distinct tensor struct info of the bindings (struct infos are immutable
        # values): bindings share them, and the fast path's caches recognise them by identity.
        self._interned: dict[StructInfo, StructInfo] = {}
        # Annotation text -> interned struct info, for functions without symbolic dims (`annotation`).
        self._annotations: dict[str, StructInfo] = {}
        # The fast path's caches shared by functions without symbolic dims (see `FastCaches`).
        self.fast_caches = FastCaches()
        # A binding name -> the one string object of that text that the fast path's variables share:
        # modules of many functions repeat names (``lv``, ``lv1``, ...) in each; bounded, so that a
        # module of a million distinct names pays no dict that size.
        self.names: dict[str, str] = {}
        self.calls_impure = False  # an impure op was looked up: the module's purity is checked (`purity`)
        self.prim_funcs: dict[str, PrimFunc] = {}  # the module's @T.prim_func functions, which R.call_tir names

    def op(self, name: str) -> Op | None:
        """The registered op `name`, or None (cached: lookups happen once per name)."""
        try:
            return self._ops[name]
        except KeyError:
            try:
                op = get_op(name)
            except KeyError:
                op = None
            self._ops[name] = op
            if op is not None and (not op.pure or name == "call_packed"):  # a packed call may be impure
                self.calls_impure = True
            return op

    def intern(self, sinfo: StructInfo) -> StructInfo:
        """The one shared tensor struct info equal to `sinfo` (`sinfo` itself the first time).

        Only tensors: their fields (int or str dims, dtype, vdevice) are equal
        only when identical in every way, while a prim value's ``-0.0`` equals ``0.0``.
        """
        if type(sinfo) is not TensorStructInfo:
            return sinfo
        return self._interned.setdefault(sinfo, sinfo)

    def annotation(self, static: StaticReader, text: str, lineno: int, col: int) -> StructInfo:
        """The interned struct info of annotation `text` at line `lineno`, 0-based column `col`, read by `static`.

        Shared by all functions while `static` knows no symbolic dim: a text
        then reads the same everywhere (vdevices are only ever appended, which
        changes no successful lookup).
        """
        shared = not static.symbols
        if shared:
            hit = self._annotations.get(text)
            if hit is not None:
                return hit
        sinfo = self.intern(static.struct_info(self.fragment(text, lineno, col, "eval").body))
        if shared:
            self._annotations[text] = sinfo
        return sinfo

    def op_names(self) -> list[str]:
        return sorted(all_ops())

    def param_names(self, op: Op) -> tuple[str, ...]:
        names = self._param_names.get(op.name)
        if names is None:
            names = tuple(p.name for p in op.params)
            self._param_names[op.name] = names
        return names

    def take_run(self, lineno: int) -> FastRun:
        assert self.skeleton is not None
        self.skeleton.consumed += 1
        return self.skeleton.runs[lineno]

    @overload
    def fragment(self, text: str, lineno: int, col: int, mode: Literal["exec"]) -> ast.Module: ...
    @overload
    def fragment(self, text: str, lineno: int, col: int, mode: Literal["eval"]) -> ast.Expression: ...
    def fragment(self, text: str, lineno: int, col: int, mode: Literal["exec", "eval"]) -> ast.Module | ast.Expression:
        """Parse `text` with `ast`, moved to where it sits in the file: its first line at line `lineno`,
        each of its lines `col` characters right of where it starts in `text`."""
        tree = quiet_parse(text, mode)
        lines = lineno - 1
        todo: list[ast.AST] = [tree]
        pop, push, extend = todo.pop, todo.append, todo.extend
        while todo:  # `ast.walk`, without its generators: this runs for every line off the fast path
            node = pop()
            if hasattr(node, "lineno"):
                located = cast(_Positioned, node)
                located.lineno += lines
                located.end_lineno = (located.end_lineno or 1) + lines
                located.col_offset += col
                located.end_col_offset = (located.end_col_offset or 0) + col
            for name in node._fields:
                value = getattr(node, name, None)
                if type(value) is list:
                    extend([item for item in value if isinstance(item, ast.AST)])
                elif isinstance(value, ast.AST):
                    push(value)
        return tree

    def assignments(self, lines: list[str], lineno: int, col: int) -> list[ast.Assign | ast.AnnAssign]:
        """The statements of candidate `lines` (whole lines, from line `lineno`, indented `col` characters), one
        assignment on each line as each reads on its own; `SkeletonMismatch` when they are not that."""
        try:
            if col and 2 <= lineno <= _PAD_PER_LINE * len(lines):
                # Blank lines above an ``if 1:`` put every node where it is in the file: no walk to move them.
                padded = "\n" * (lineno - 2) + "if 1:\n" + "\n".join(lines)
                block = quiet_parse(padded).body[0]
                assert isinstance(block, ast.If)
                body = block.body
            else:
                body = self.fragment("\n".join([line[col:] for line in lines]), lineno, col, "exec").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            raise SkeletonMismatch from None
        if len(body) != len(lines):
            raise SkeletonMismatch
        out: list[ast.Assign | ast.AnnAssign] = []
        for i, stmt in enumerate(body, lineno):
            if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or not stmt.lineno == stmt.end_lineno == i:
                raise SkeletonMismatch
            out.append(stmt)
        return out

    def callee_struct_info(self, name: str, node: ast.AST | Span | None) -> FuncStructInfo:
        """The signature a call of `name` sees (its return struct info must be known by now; else an error at
        `node`), its tensor parameters' struct infos interned."""
        sig = self.signatures[name]
        if sig._callee is not None:
            return sig._callee
        ret = sig.ret if sig.ret is not None else (sig.function.ret_struct_info if sig.function else None)
        if ret is None:
            raise self.src.error(
                f"cls.{name} is called before its return type is known (a recursive call): "
                f"annotate the return type of {name!r}",
                node,
            )
        sig._callee = FuncStructInfo([self.intern(sinfo) for _, sinfo, _ in sig.params], ret)
        return sig._callee

    def imply_vdevice(self, device: DeviceSpec, memory_scope: str) -> None:
        """Declare the vdevice a hint names in a module that declares none, and the host beside it.

        The device becomes ``VDevice(<kind>, index, scope)`` with the target
        kind TVM uses for its device type (``cuda`` for cuda, ``llvm`` for
        cpu); the host `HOST_VDEVICE` is added too when no CPU vdevice is
        declared, so that what no hint reaches has a home.  The printed module
        lists them in ``I.module_global_infos``.
        """
        try:
            lookup_device(self.vdevices, device, memory_scope)
        except LookupError:
            kind = "llvm" if device.device_type == "cpu" else device.device_type
            self.vdevices.append(VDevice(Target(kind), device.index, memory_scope))
        if not any(v.device_type == "cpu" for v in self.vdevices):
            self.vdevices.append(HOST_VDEVICE)
