"""One function as TVMScript: its decorator and signature, then its body, line by line.

The body is walked by `ExprVisitor` (no recursion, so long or deeply nested
functions print fine); the hooks here lay out the lines:

* a dataflow block opens ``with R.dataflow():`` and closes with
  ``R.output(...)`` naming its non-dataflow variables;
* a binding is one line, ``name: struct_info = value``; a call whose result
  and variable are void (``R.Tuple()``, an impure call such as
  ``R.assert_op``) is the bare call, as TVM prints it, unless the variable is
  used (it would have no name to be used by);
* an If bound to a variable opens ``if cond:`` when its true branch starts,
  writes ``else:`` when its false branch starts, and each branch ends with
  ``name: struct_info = result`` under the If's variable;
* the function body ends with ``return result``.

An If, SeqExpr or Function anywhere else (inside a call, say) has no printed
form: PrintError.
"""

from __future__ import annotations

import keyword
import re

from ..expr import Binding, BindingBlock, Call, DataflowVar, Function, If, SeqExpr, Var
from ..struct_info import StructInfo, TupleStructInfo
from ..tir import PrimFuncNames
from ..visitor import ExprVisitor
from .literals import PrintError, literal
from .sinfo import SInfoFormatter
from .sink import LineSink
from .values import CallPlan, ValuePrinter

INDENT = "    "
# Names a local variable must not take: they would shadow what the text refers to.
RESERVED = frozenset({"R", "I", "T", "tvm", "cls", "metadata"}) | frozenset(keyword.kwlist)
_RESERVED_TAKEN: dict[str, Var | None] = dict.fromkeys(RESERVED)  # copied as each function's `taken`
_NOT_IDENT_CHAR = re.compile(r"[^A-Za-z0-9_]")
# Function attributes written in the decorator; the others go to R.func_attr.
DECORATOR_ATTRS = ("private", "pure")


class _IfFrame:
    """An If being printed: its variable, the indent of its ``if`` line, and how far it got."""

    __slots__ = ("node", "var", "indent", "branches_started")

    def __init__(self, node: If, var: Var, indent: str) -> None:
        self.node = node
        self.var = var
        self.indent = indent
        self.branches_started = 0


class FunctionPrinter(ValuePrinter):
    """Prints one function, its body into `lines`; owns the function's table of unique variable names."""

    def __init__(
        self,
        lines: LineSink,
        sinfo: SInfoFormatter,
        plans: dict[str, CallPlan],
        class_name: str,
        gname: str,
        tir: PrimFuncNames | None = None,
        signature: SInfoFormatter | None = None,
    ) -> None:
        super().__init__(sinfo, plans, f"function {gname!r}", tir)
        # Parameters and the return annotation quote their symbolic dims, which declares them in TVM;
        # `sinfo` writes the body's bare (see `SInfoFormatter.bare`).
        self.signature = signature if signature is not None else sinfo
        self.lines = lines
        self.class_name = class_name
        self.gname = gname
        self.taken = _RESERVED_TAKEN.copy()
        self.taken[class_name] = None
        self.suffixes: dict[str, int] = {}
        self.indent = INDENT * 2
        self.body: SeqExpr | None = None
        self.ifs: list[_IfFrame] = []
        self._if_binding: Binding | None = None
        self._used: set[Var] | None = None  # the variables the body uses, found at its first void binding

    # -- names ----------------------------------------------------------------
    def define(self, var: Var) -> str:
        """Give `var` a name unique in the function: its own if free, else TVM's ``name_1``, ``name_2``..."""
        base = var.name
        taken = self.taken
        if taken.get(base) is var:  # defined again: the new name is the one its uses print from now on
            taken[base] = None
        if base not in taken and base.isidentifier():
            taken[base] = var
            return base
        if not base.isidentifier():
            base = _NOT_IDENT_CHAR.sub("_", base) or "v"
            if base[0].isdigit():
                base = "v" + base
        name = base
        if name in taken:
            # Remember the next suffix per stem so thousands of equal names stay linear.
            k = self.suffixes.get(base, 1)
            name = f"{base}_{k}"
            while name in taken:
                k += 1
                name = f"{base}_{k}"
            self.suffixes[base] = k + 1
        taken[name] = None
        self.renamed[var] = name
        return name

    def fmt_sinfo(self, sinfo: StructInfo, var: Var | None, signature: bool = False) -> str:
        """The struct info of `var` (None: the function's return) as text, as the `signature` or the body
        writes it; PrintError names which."""
        try:
            return self.signature.format(sinfo) if signature else self.body_sinfo(sinfo)
        except PrintError as err:
            raise self._located(err, var) from None

    def _located(self, err: PrintError, var: Var | None) -> PrintError:
        what = f"variable {var.name!r}" if var is not None else "the return struct info"
        return PrintError(f"{self.where}, {what}: {err}")

    # -- the function -----------------------------------------------------------
    def print(self, func: Function) -> list[str]:
        """Append the lines of the function's body to `lines`; return the lines that go before them.

        Those are the decorator, the ``def`` line, ``R.func_attr`` and the
        declarations that must open the body (``cls = Module`` when the body
        uses it, ``n = T.int64()`` per symbolic dim), known only once the
        body has been printed.
        """
        out: list[str] = []
        deco_kwargs = [f"{k}={literal(func.attrs[k])}" for k in DECORATOR_ATTRS if k in func.attrs]
        # @R.function(private=False) is the default; print the bare decorator for it.
        if deco_kwargs == ["private=False"]:
            deco_kwargs = []
        out.append(f"{INDENT}@R.function({', '.join(deco_kwargs)})" if deco_kwargs else f"{INDENT}@R.function")
        params = ", ".join([f"{self.define(p)}: {self.fmt_sinfo(p.struct_info, p, True)}" for p in func.params])
        ret = self.fmt_sinfo(func.ret_struct_info, None, True)
        out.append(f"{INDENT}def {self.gname}({params}) -> {ret}:")
        del params  # the def line of a function of 400k parameters is tens of MB: one copy is enough
        other_attrs = {k: v for k, v in func.attrs.items() if k not in DECORATOR_ATTRS}
        if other_attrs:
            out.append(f"{self.indent}R.func_attr({literal(other_attrs)})")
        self.body = func.body
        self.walk(func.body)
        if self.uses_cls:
            out.append(f"{INDENT * 2}cls = {self.class_name}")
        out.extend(f"{INDENT * 2}{name} = T.int64()" for name in sorted(self.symbols))
        return out

    # -- blocks and bindings ----------------------------------------------------------
    def enter_block(self, block: BindingBlock) -> None:
        if block.is_dataflow:
            self.lines.append(f"{self.indent}with R.dataflow():")
            self.indent += INDENT

    def visit_block(self, block: BindingBlock) -> None:
        if block.is_dataflow:
            outputs = ", ".join(self.name_of(b.var) for b in block.bindings if not isinstance(b.var, DataflowVar))
            self.lines.append(f"{self.indent}R.output({outputs})")
            self.indent = self.indent[: -len(INDENT)]

    def enter_binding(self, binding: Binding) -> None:
        if type(binding.value) is If:
            self._if_binding = binding

    def visit_binding(self, binding: Binding) -> None:
        if type(binding.value) is If:
            return  # each branch wrote the variable's line
        value = self.texts.pop()
        var = binding.var
        if type(var.struct_info) is TupleStructInfo and self._bare(binding):
            self.lines.append(f"{self.indent}{value}")
            return
        name = var.name
        if name in self.taken or not name.isidentifier():  # `define` inlined for the usual, free name
            name = self.define(var)
        else:
            self.taken[name] = var
        try:  # `fmt_sinfo` inlined: this runs once per binding
            sinfo = self.sinfo.format(var.struct_info)
        except PrintError as err:
            raise self._located(err, var) from None
        if self.sinfo.symbols:
            names = self.sinfo.symbols.get(sinfo)
            if names:
                self.symbols |= names
        self.lines.append(f"{self.indent}{name}: {sinfo} = {value}")

    def _bare(self, binding: Binding) -> bool:
        """Whether `binding` is written as its bare call: a call, void like its variable, which nothing uses."""
        var, value = binding.var, binding.value
        var_sinfo = var.struct_info
        if not isinstance(var_sinfo, TupleStructInfo) or var_sinfo.fields or not isinstance(value, Call):
            return False
        sinfo = value.struct_info
        if not isinstance(sinfo, TupleStructInfo) or sinfo.fields:
            return False
        if self._used is None:
            finder = _UsedVars()
            assert self.body is not None, "bindings are printed while a function is, its body set before the walk"
            finder.walk(self.body)
            self._used = finder.used
        return var not in self._used

    # -- If and its branches -----------------------------------------------------------
    def enter_if(self, node: If) -> None:
        binding = self._if_binding
        self._if_binding = None
        if binding is None or binding.value is not node:
            raise self.not_a_value(node)
        self.ifs.append(_IfFrame(node, binding.var, self.indent))

    def visit_if(self, node: If) -> None:
        self.indent = self.ifs.pop().indent

    def enter_seq_expr(self, seq: SeqExpr) -> None:
        if seq is self.body and not self.ifs:
            return
        frame = self.ifs[-1] if self.ifs else None
        if frame is not None and frame.branches_started == 0 and seq is frame.node.true_branch:
            # The condition was walked just now; the If's variable is named before the branches'.
            cond = self.texts.pop()
            self.define(frame.var)
            self.lines.append(f"{frame.indent}if {cond}:")
        elif frame is not None and frame.branches_started == 1 and seq is frame.node.false_branch:
            self.lines.append(f"{frame.indent}else:")
        else:
            raise self.not_a_value(seq)
        frame.branches_started += 1
        self.indent = frame.indent + INDENT

    def visit_seq_expr(self, seq: SeqExpr) -> None:
        value = self.texts.pop()
        if not self.ifs:
            self.lines.append(f"{self.indent}return {value}")
            return
        var = self.ifs[-1].var
        self.lines.append(f"{self.indent}{self.name_of(var)}: {self.fmt_sinfo(var.struct_info, var)} = {value}")

    def enter_function(self, func: Function) -> None:
        raise self.not_a_value(func)


class _UsedVars(ExprVisitor):
    """The variables an expression uses (not the ones it only defines)."""

    def __init__(self) -> None:
        super().__init__()
        self.used: set[Var] = set()

    def visit_var(self, var: Var) -> None:
        self.used.add(var)
