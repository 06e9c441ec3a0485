"""Expression statements of a function body: a docstring, ``R.func_attr({...})``, or a call whose result is void.

TVM prints a binding whose value is void (an empty tuple, ``R.Tuple()``: an
impure call such as ``R.assert_op(...)`` or ``R.print(...)``) as the bare
call, and its parser reads a bare call back as such a binding to a fresh
variable named ``_``, which no later statement can refer to.  Here too: the
variable is not put in scope (a variable the function calls ``_`` stays
visible), and the printer writes the binding back as the bare call
(`printer.function`).  A bare value that is not void must be bound to a name.
"""

from __future__ import annotations

import ast

from ..expr import Binding, DataflowVar, Var
from ..struct_info import TupleStructInfo
from .expressions import ExprParser
from .literals import bind_arguments, describe, dotted, literal
from .state import FunctionState

# The name TVM's parser gives the variable of a bare statement.
BARE_NAME = "_"


def expr_statement(state: FunctionState, exprs: ExprParser, stmt: ast.Expr, first: bool) -> Binding | None:
    """Read a statement that is an expression (`first`: the body's first statement, where a string is its
    docstring): None for a docstring or R.func_attr (its attributes go to `state.attrs`), else the void binding."""
    src = state.src
    value = stmt.value
    if first and isinstance(value, ast.Constant) and isinstance(value.value, str):
        return None  # docstring
    if isinstance(value, ast.Call):
        name = dotted(value.func)
        if name == "R.func_attr":
            (attrs,) = bind_arguments(src, value, ("attrs",), "R.func_attr")
            parsed = None if attrs is None else literal(src, attrs, seq=list, metadata=True)
            if not isinstance(parsed, dict) or not all(isinstance(k, str) for k in parsed):
                raise src.error("R.func_attr takes a dict with string keys", value)
            state.attrs.update(parsed)
            return None
        if name == "R.output":
            raise src.error("R.output(...) must be the last statement of a 'with R.dataflow():' block", stmt)
        if name is not None:  # R.<op>(...) or cls.<function>(...)
            return _bare_call(state, exprs, stmt, value)
    raise src.error(f"unsupported statement: {describe(value)} (a value must be bound to a name: x = ...)", stmt)


def _bare_call(state: FunctionState, exprs: ExprParser, stmt: ast.Expr, node: ast.Call) -> Binding:
    src = state.src
    expr = exprs.expr(node, 0)
    sinfo = expr.struct_info
    if not (isinstance(sinfo, TupleStructInfo) and not sinfo.fields):
        raise src.error(
            f"unsupported statement: {describe(node)} returns {sinfo!r}, not void: a value must be bound to "
            "a name (x = ...); only a call whose result is void (R.Tuple()), such as R.assert_op or R.print, "
            "stands alone",
            stmt,
        )
    span = src.span(stmt)
    var = (DataflowVar if state.df is not None else Var)(BARE_NAME, sinfo, span)
    return Binding(var, expr, None, span)
