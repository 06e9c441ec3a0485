"""Parsing the file and the ``@I.ir_module`` class: global infos, attributes, signatures.

Functions may call each other in any order, so every signature is read
before any body.  A function without a return annotation gets the struct
info of its body, so its body is parsed before the bodies that call it
(a cheap scan of the skeleton AST finds those calls); a recursive call to a
function whose return type is still unknown is an error that asks for the
annotation.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from ..errors import ParseError
from ..expr import Function
from ..fill_vdevice import HOST_VDEVICE
from ..module import IRModule
from ..op import Op, all_ops, get_op
from ..span import Span
from ..struct_info import FuncStructInfo, StructInfo
from ..vdevice import DeviceSpec, Target, VDevice, lookup_device
from .annotations import StaticReader
from .fastlines import FastLine, Skeleton
from .function import SYMBOL_DECLS, FunctionParser, statement_words
from .literals import bind_arguments, bool_literal, describe, dotted, literal
from .source import Source, quiet_parse

_MODULE_DECORATORS = frozenset({"I.ir_module", "tvm.script.ir_module", "tvm.script.ir.ir_module"})
_FUNCTION_KEYWORDS = ("private", "pure")


class Signature:
    """What callers need of a function before its body is parsed."""

    __slots__ = ("name", "node", "params", "ret", "ret_span", "attrs", "symbols", "function", "_callee")

    def __init__(self, name: str, node: ast.FunctionDef) -> None:
        self.name = name
        self.node = node
        self.params: list[tuple[str, StructInfo, Span]] = []
        self.ret: StructInfo | None = None
        self.ret_span: Span | None = None
        self.attrs: dict[str, Any] = {}
        self.symbols: set[str] = set()
        self.function: Function | None = None
        self._callee: FuncStructInfo | None = None


class ModuleParser:
    """Turns the AST of a whole file into an `IRModule`."""

    def __init__(self, src: Source, tree: ast.Module, skeleton: Skeleton | None) -> None:
        self.src = src
        self.tree = tree
        self.skeleton = skeleton
        self.vdevices: list[VDevice] = []
        self.class_name = "Module"
        self.signatures: dict[str, Signature] = {}
        # The statement (or fast line) being parsed: the location of an unexpected failure.
        self.where: ast.AST | FastLine | None = None
        self._ops: dict[str, Op | None] = {}
        self._param_names: dict[str, tuple[str, ...]] = {}
        # True for a module that declares no vdevice (what TVM's frontends print): each device a
        # hint names becomes a vdevice, with the host (llvm:0) beside it (`imply_vdevice`).
        self.implies_vdevices = False
        # Symbolic dims declared at the top of the file (`n = TypeVar("n")`), usable in every function.
        self.type_vars: set[str] = set()

    # -- helpers shared with the function parser --------------------------------
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
            return op

    def op_names(self) -> list[str]:
        return sorted(all_ops())

    def param_names(self, op: Op) -> tuple[str, ...]:
        names = self._param_names.get(op.name)
        if names is None:
            names = tuple(p.name for p in op.params)
            self._param_names[op.name] = names
        return names

    def take_run(self, lineno: int) -> list[FastLine]:
        assert self.skeleton is not None
        self.skeleton.consumed += 1
        return self.skeleton.runs[lineno]

    def fragment(self, text: str, lineno: int, col: int, mode: str) -> Any:
        """Parse a piece of one line with `ast`, moved to where it sits in the file."""
        tree = quiet_parse(text, mode)
        for node in ast.walk(tree):
            if hasattr(node, "lineno"):
                node.lineno += lineno - 1  # type: ignore[attr-defined]
                node.end_lineno = (node.end_lineno or 1) + lineno - 1  # type: ignore[attr-defined]
                node.col_offset += col  # type: ignore[attr-defined]
                node.end_col_offset = (node.end_col_offset or 0) + col  # type: ignore[attr-defined]
        return tree

    def statements(self, body: list[ast.stmt]) -> Iterator[ast.stmt]:
        """`body` with fast runs turned back into their real statements (outside functions)."""
        runs = self.skeleton.runs if self.skeleton is not None else {}
        for stmt in body:
            if type(stmt) is ast.Pass and stmt.lineno in runs:
                for line in self.take_run(stmt.lineno):
                    yield from self.fragment(line.text[line.col :], line.lineno, line.col, "exec").body
            else:
                yield stmt

    def callee_struct_info(self, name: str, node: ast.AST) -> FuncStructInfo:
        """The signature a call of `name` sees (its return struct info must be known by now)."""
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
        sig._callee = FuncStructInfo([sinfo for _, sinfo, _ in sig.params], ret)
        return sig._callee

    # -- the file ----------------------------------------------------------------
    def run(self) -> IRModule:
        cls = self._find_class()
        self.class_name = cls.name
        attrs_call, infos_call, defs = self._class_body(cls)
        infos: dict[str, list[Any]] = {}
        if infos_call is not None:
            infos = self._global_infos(infos_call)
        module_attrs: dict[str, Any] = {}
        if attrs_call is not None:
            module_attrs = self._module_attrs(attrs_call)
        self.implies_vdevices = not self.vdevices
        for fdef in defs:
            self._signature(fdef)
        for name in self._order():
            sig = self.signatures[name]
            sig.function = FunctionParser(self, sig).run()
        if self.skeleton is not None and self.skeleton.consumed != len(self.skeleton.runs):
            raise ParseError("internal parser error: a fast-path line was not parsed", self.src.start())
        functions = {name: sig.function for name, sig in self.signatures.items()}
        return IRModule(
            functions,  # type: ignore[arg-type]
            self.vdevices,
            module_attrs,
            name=cls.name,
            source=self.src.text,
            filename=self.src.filename,
            global_infos=infos,
        )

    def _find_class(self, complete: bool = True) -> ast.ClassDef | None:
        """The module class; `complete` is False when the tree holds only the first lines of the text."""
        found: ast.ClassDef | None = None
        for stmt in self.statements(self.tree.body):
            self.where = stmt
            if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass)):
                continue
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)
            ):
                continue  # docstring
            if _is_type_var(stmt):
                self.type_vars.add(stmt.targets[0].id)  # type: ignore[attr-defined]
                continue  # `n = TypeVar("n")`: how TVM declares the symbolic dims it prints bare
            if isinstance(stmt, ast.ClassDef):
                self._check_module_decorator(stmt)
                if found is not None:
                    raise self.src.error(
                        f"a second @I.ir_module class {stmt.name!r}: a file holds one module "
                        f"(the first is {found.name!r} at line {found.lineno})",
                        stmt,
                    )
                found = stmt
                continue
            raise self.src.error(
                f"the top level of a file holds imports and one @I.ir_module class, got {_describe_statement(stmt)}",
                stmt,
            )
        if found is None and complete:
            raise self.src.error("no @I.ir_module class in the text: nothing to parse", self.src.start())
        return found

    def probe(self) -> None:
        """Check the kinds of statements of a tree made of the text's first lines only.

        Used on big texts before the whole text goes to `ast.parse` (which costs
        seconds per megabyte): a file of anything but a module fails here in
        milliseconds.  Only statements that end before the cut are judged.
        """
        cls = self._find_class(complete=False)
        if cls is not None and cls is self.tree.body[-1]:
            self._class_body(cls, complete=False)

    def _check_module_decorator(self, cls: ast.ClassDef) -> None:
        if cls.bases or cls.keywords:
            raise self.src.error(f"module class {cls.name!r} must not have base classes", cls)
        if not cls.decorator_list:
            raise self.src.error(f"class {cls.name!r} is not decorated with @I.ir_module", cls)
        if len(cls.decorator_list) > 1:
            raise self.src.error("a module class takes exactly one decorator, @I.ir_module", cls.decorator_list[1])
        deco = cls.decorator_list[0]
        if isinstance(deco, ast.Call) and not deco.args and not deco.keywords:
            deco = deco.func
        if dotted(deco) not in _MODULE_DECORATORS:
            raise self.src.error(f"the module class decorator must be @I.ir_module, got {describe(deco)}", deco)

    def _class_body(
        self, cls: ast.ClassDef, complete: bool = True
    ) -> tuple[ast.Call | None, ast.Call | None, list[ast.FunctionDef]]:
        attrs_call: ast.Call | None = None
        infos_call: ast.Call | None = None
        defs: list[ast.FunctionDef] = []
        body = cls.body if complete else cls.body[:-1]
        for i, stmt in enumerate(self.statements(body)):
            self.where = stmt
            if isinstance(stmt, ast.FunctionDef):
                defs.append(stmt)
                continue
            if isinstance(stmt, ast.Pass):
                continue
            if isinstance(stmt, ast.Expr):
                value = stmt.value
                if i == 0 and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    continue  # docstring
                name = dotted(value.func) if isinstance(value, ast.Call) else None
                if name == "I.module_attrs":
                    if attrs_call is not None:
                        raise self.src.error("I.module_attrs appears twice", stmt)
                    attrs_call = value  # type: ignore[assignment]
                    continue
                if name == "I.module_global_infos":
                    if infos_call is not None:
                        raise self.src.error("I.module_global_infos appears twice", stmt)
                    infos_call = value  # type: ignore[assignment]
                    continue
            raise self.src.error(
                "a module class holds I.module_attrs, I.module_global_infos and @R.function definitions, "
                f"got {_describe_statement(stmt)}",
                stmt,
            )
        return attrs_call, infos_call, defs

    def _global_infos(self, call: ast.Call) -> dict[str, list[Any]]:
        (arg,) = bind_arguments(self.src, call, ("infos",), "I.module_global_infos")
        if not isinstance(arg, ast.Dict):
            raise self.src.error('I.module_global_infos takes a dict such as {"vdevice": [...]}', call)
        static = StaticReader(self.src, [])
        infos: dict[str, list[Any]] = {}
        for key_node, value_node in zip(arg.keys, arg.values, strict=True):
            if key_node is None or not (isinstance(key_node, ast.Constant) and isinstance(key_node.value, str)):
                raise self.src.error("global info names must be string literals", key_node or value_node)
            key = key_node.value
            if key in infos:
                raise self.src.error(f"global info {key!r} appears twice", key_node)
            if not isinstance(value_node, (ast.List, ast.Tuple)):
                raise self.src.error(f"global info {key!r} must be a list", value_node)
            if key == "vdevice":
                self.vdevices = [static.vdevice_decl(e) for e in value_node.elts]
                continue
            infos[key] = literal(self.src, value_node, seq=list)
        return infos

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

    def _module_attrs(self, call: ast.Call) -> dict[str, Any]:
        (arg,) = bind_arguments(self.src, call, ("attrs",), "I.module_attrs")
        value = None if arg is None else literal(self.src, arg, seq=list)
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise self.src.error("I.module_attrs takes a dict with string keys", arg or call)
        return value

    # -- functions ----------------------------------------------------------------
    def _signature(self, fdef: ast.FunctionDef) -> None:
        self.where = fdef
        name = fdef.name
        if name in self.signatures:
            first = self.signatures[name].node.lineno
            raise self.src.error(f"function {name!r} is defined twice (first at line {first})", fdef)
        sig = Signature(name, fdef)
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
        seen: set[str] = set()
        for arg in args.args:
            if arg.arg in seen:
                raise self.src.error(f"function {name!r}: parameter {arg.arg!r} is defined twice", arg)
            seen.add(arg.arg)
            if arg.annotation is None:
                raise self.src.error(f"parameter {arg.arg!r} needs a struct-info annotation such as R.Tensor(...)", arg)
            if arg.arg in ("R", "I", "T", "tvm") or arg.arg == self.class_name:
                raise self.src.error(f"cannot name a parameter {arg.arg!r}", arg)
            sig.params.append((arg.arg, static.struct_info(arg.annotation), self.src.span(arg)))
        if fdef.returns is not None:
            sig.ret = static.struct_info(fdef.returns)
            sig.ret_span = self.src.span(fdef.returns)
        self.signatures[name] = sig

    def _function_decorator(self, fdef: ast.FunctionDef) -> dict[str, Any]:
        if not fdef.decorator_list:
            raise self.src.error(f"function {fdef.name!r} must be decorated with @R.function", fdef)
        if len(fdef.decorator_list) > 1:
            raise self.src.error("a function takes exactly one decorator, @R.function", fdef.decorator_list[1])
        deco = fdef.decorator_list[0]
        call = deco if isinstance(deco, ast.Call) else None
        name = dotted(call.func if call is not None else deco)
        if name == "T.prim_func":
            raise self.src.error("TIR functions (@T.prim_func) are not supported; only @R.function", deco)
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

    def _callees(self, fdef: ast.FunctionDef, candidates: set[str]) -> list[str]:
        """Functions in `candidates` that `fdef` calls as ``cls.f(...)`` (in order of appearance)."""
        text = "\n".join(self.src.lines[fdef.lineno - 1 : fdef.end_lineno])
        if not any(f".{name}" in text for name in candidates):
            return []  # no call can name them: skip walking a possibly huge body
        nodes = list(ast.walk(fdef))
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
        if self.skeleton is not None:  # ``cls = Module`` is a fast line, absent from the skeleton
            last = fdef.end_lineno or fdef.lineno
            for first, run in self.skeleton.runs.items():
                if fdef.lineno <= first <= last:
                    aliases.update(line.name for line in run if line.alias == self.class_name)
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


def _describe_statement(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.Expr):
        return f"the expression statement {describe(stmt.value)}"
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return "an assignment"
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"the function definition {stmt.name!r}"
    return statement_words(stmt)


def _is_type_var(stmt: ast.stmt) -> bool:
    """``name = TypeVar("name")``, the declaration TVM prints above a module using the dim ``name``."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return False
    call = stmt.value
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "TypeVar"
        and len(call.args) == 1
        and not call.keywords
        and isinstance(call.args[0], ast.Constant)
        and call.args[0].value == stmt.targets[0].id
    )
