"""Parsing the file and the ``@I.ir_module`` class: global infos, attributes, then each function.

Functions may call each other in any order, so every signature is read
before any body (`signatures`), in an order where a function without a
return annotation comes before those that call it.  Functions are then
parsed one by one, and the AST under each is dropped once it is parsed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from ..errors import ParseError
from ..expr import Function
from ..module import IRModule
from ..tir import is_prim_func, parse_prim_func
from .annotations import StaticReader
from .fastfunctions import FastFunction
from .literals import bind_arguments, describe, dotted, literal
from .purity import check_purity
from .signatures import SignatureReader
from .skeleton import FastBlock, Skeleton
from .source import Source
from .statements import StatementParser, statement_words

_MODULE_DECORATORS = frozenset({"I.ir_module", "tvm.script.ir_module", "tvm.script.ir.ir_module"})


class ModuleParser(SignatureReader):
    """Turns the AST of a whole file into an `IRModule`: the module context its functions are parsed against."""

    def __init__(self, src: Source, tree: ast.Module, skeleton: Skeleton | None) -> None:
        super().__init__(src, skeleton)
        self.tree = tree

    def statements(self, body: list[ast.stmt]) -> Iterator[ast.stmt | FastFunction]:
        """`body` with collapsed pieces turned back into their statements (outside functions).

        A group of collapsed functions yields its `FastFunction`s, which stand for their ``ast.FunctionDef``.
        """
        skeleton = self.skeleton
        runs = skeleton.runs if skeleton is not None else {}
        blocks = skeleton.blocks if skeleton is not None else {}
        functions = skeleton.functions if skeleton is not None else {}
        for stmt in body:
            if type(stmt) is not ast.Pass:
                yield stmt
            elif stmt.lineno in functions:
                yield from functions[stmt.lineno]
            elif stmt.lineno in runs:
                run = self.take_run(stmt.lineno)
                yield from self.assignments(run.text[run.start : run.end].split("\n"), run.first, stmt.col_offset)
            elif stmt.lineno in blocks:
                yield self._block_statement(blocks[stmt.lineno])
            else:
                yield stmt

    def _block_statement(self, block: FastBlock) -> ast.stmt:
        """The ``with`` statement of a collapsed dataflow block, from its own lines (outside functions)."""
        self.take_run(block.run.first)
        lines = self.src.lines[block.lineno - 1 : block.out_line]
        return self.fragment("\n".join(line[block.col :] for line in lines), block.lineno, block.col, "exec").body[0]

    # -- the file ----------------------------------------------------------------
    def run(self) -> IRModule:
        cls = self._find_class()
        assert cls is not None  # `_find_class` of a whole text raises when there is none
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
            if type(fdef) is ast.FunctionDef and is_prim_func(fdef):
                self._prim_func(fdef)
            else:
                self._signature(fdef)
        parsed: dict[str, Function] = {}
        for name in self._order():
            sig = self.signatures[name]
            sig.function = parsed[name] = StatementParser(self, sig).run()
            _release(sig.node)
        if self.skeleton is not None and self.skeleton.consumed != len(self.skeleton.runs):
            raise ParseError("internal parser error: a fast-path line was not parsed", self.src.start())
        functions = {name: parsed[name] for name in self.signatures}
        if self.calls_impure:
            check_purity(functions)
        return IRModule(
            functions,
            self.vdevices,
            module_attrs,
            name=cls.name,
            source=self.src.text,
            filename=self.src.filename,
            global_infos=infos,
        )

    def _prim_func(self, fdef: ast.FunctionDef) -> None:
        """Read a ``@T.prim_func`` into `prim_funcs` (before any relax function, which may name it)."""
        self.where = fdef
        name = fdef.name
        if name in self.prim_funcs or name in self.signatures:
            raise self.src.error(f"function {name!r} is defined twice", fdef)
        self.prim_funcs[name] = parse_prim_func(self.src, fdef, self._tir_statements, self.type_vars)
        _release(fdef)

    def _tir_statements(self, body: list[ast.stmt]) -> Iterator[ast.stmt]:
        """`statements` of a ``@T.prim_func`` body, which holds no function: a collapsed one is refused as the
        TIR parser refuses a ``def`` it reads from the AST."""
        for stmt in self.statements(body):
            if isinstance(stmt, FastFunction):
                raise self.src.error("TIR: this statement is not read (a functiondef statement)", stmt)
            yield stmt

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
            type_var = _type_var(stmt)
            if type_var is not None:
                self.type_vars.add(type_var)
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
    ) -> tuple[ast.Call | None, ast.Call | None, list[ast.FunctionDef | FastFunction]]:
        attrs_call: ast.Call | None = None
        infos_call: ast.Call | None = None
        defs: list[ast.FunctionDef | FastFunction] = []
        body = cls.body if complete else cls.body[:-1]
        for i, stmt in enumerate(self.statements(body)):
            self.where = stmt
            if isinstance(stmt, (ast.FunctionDef, FastFunction)):
                defs.append(stmt)
                continue
            if isinstance(stmt, ast.Pass):
                continue
            if isinstance(stmt, ast.Expr):
                value = stmt.value
                if i == 0 and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    continue  # docstring
                name = dotted(value.func) if isinstance(value, ast.Call) else None
                if name == "I.module_attrs" and isinstance(value, ast.Call):
                    if attrs_call is not None:
                        raise self.src.error("I.module_attrs appears twice", stmt)
                    attrs_call = value
                    continue
                if name == "I.module_global_infos" and isinstance(value, ast.Call):
                    if infos_call is not None:
                        raise self.src.error("I.module_global_infos appears twice", stmt)
                    infos_call = value
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

    def _module_attrs(self, call: ast.Call) -> dict[str, Any]:
        (arg,) = bind_arguments(self.src, call, ("attrs",), "I.module_attrs")
        value = None if arg is None else literal(self.src, arg, seq=list)
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise self.src.error("I.module_attrs takes a dict with string keys", arg or call)
        return value


def _release(fdef: ast.FunctionDef | FastFunction) -> None:
    """Drop the AST under a parsed function, which nothing reads again: a module of many functions
    would otherwise keep all of it alive while their IR is built (a `FastFunction` holds none)."""
    if isinstance(fdef, FastFunction):
        return
    fdef.body = []
    fdef.decorator_list = []
    fdef.returns = None


def _describe_statement(stmt: ast.stmt | FastFunction) -> str:
    if isinstance(stmt, FastFunction):
        return f"the function definition {stmt.name!r}"
    if isinstance(stmt, ast.Expr):
        return f"the expression statement {describe(stmt.value)}"
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return "an assignment"
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"the function definition {stmt.name!r}"
    return statement_words(stmt)


def _type_var(stmt: ast.stmt | FastFunction) -> str | None:
    """``name`` of ``name = TypeVar("name")``, the declaration TVM prints above a module using the dim
    ``name``; None for any other statement."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    name = stmt.targets[0].id
    call = stmt.value
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "TypeVar"
        and len(call.args) == 1
        and not call.keywords
        and isinstance(call.args[0], ast.Constant)
        and call.args[0].value == name
    ):
        return name
    return None
