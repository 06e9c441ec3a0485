"""Bad input to `ir.parse`: every failure is a located, one-line `ir.ParseError`, and nothing executes."""

from __future__ import annotations

import builtins
import random
import re
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vdplace.ir.parser as parser_pkg
from vdplace import ir
from vdplace.ir import InferenceError, ParseError, VDeviceLookupError
from vdplace.ir.module import iter_bindings

HEADER = """import tvm
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})

    @R.function
    def f(x: R.Tensor((2, 3), "float32"), y: R.Tensor((3, 4), "float32"), c: R.Tensor((), "bool")):
"""
# The first body line of `f` is line 11.
LOCATION = re.compile(r"^bad\.py:(\d+):(\d+): [^\n]+$")


def parse_error(text: str, filename: str = "bad.py") -> ParseError:
    with pytest.raises(ParseError) as info:
        ir.parse(text, filename)
    err = info.value
    message = str(err)
    assert "\n" not in message and "\r" not in message
    assert message.startswith(f"{filename}:{err.span.line}:{err.span.col}: ")
    assert err.span.file == filename
    return err


def body_error(body: str) -> ParseError:
    return parse_error(HEADER + "".join(f"        {line}\n" for line in body.splitlines()))


def check(err: ParseError, cls: type, line: int, col: int, message: str) -> None:
    assert type(err) is cls, f"{type(err).__name__}: {err}"
    assert (err.span.line, err.span.col) == (line, col), str(err)
    assert re.search(message, err.reason), err.reason


# -- function bodies ------------------------------------------------------------------

BODY_ERRORS = [
    # statements outside the subset
    ("while", "while c:\n    y = x\nreturn x", ParseError, 11, 9, r"a while loop is not supported"),
    ("for", "for i in x:\n    y = x\nreturn x", ParseError, 11, 9, r"a for loop is not supported"),
    ("augmented", "x += 1\nreturn x", ParseError, 11, 9, r"augmented assignment \(such as \+=\)"),
    ("lambda", "z = lambda: x\nreturn z", ParseError, 11, 13, r"unsupported expression: a lambda"),
    ("nested def", "def g():\n    return x\nreturn x", ParseError, 11, 9, r"a nested function definition"),
    ("import", "import os\nreturn x", ParseError, 11, 9, r"an import is not supported"),
    ("binop", "z = x + x\nreturn z", ParseError, 11, 13, r"unsupported expression: an arithmetic expression"),
    ("bare call", "R.add(x, x)\nreturn x", ParseError, 11, 9, r"a value must be bound to a name"),
    ("chained", "a = b = x\nreturn a", ParseError, 11, 9, r"chained assignment"),
    ("unpacking", "a, b = (x, x)\nreturn a", ParseError, 11, 9, r"tuple unpacking is not supported"),
    ("attribute target", "x.y = x\nreturn x", ParseError, 11, 9, r"can only assign to a plain name"),
    ("no value", 'z: R.Tensor((2, 3), "float32")\nreturn x', ParseError, 11, 9, r"annotated but not assigned"),
    ("no return", "z = R.add(x, x)", ParseError, 11, 9, r"does not end with a return statement"),
    ("return not last", "return x\nz = x", ParseError, 12, 9, r"return must be the last statement"),
    ("empty return", "return", ParseError, 11, 9, r"return needs a value"),
    (
        "literal arg",
        "z = R.add(x, 1)\nreturn z",
        InferenceError,
        11,
        13,
        r"a bare number is a prim value; write R.const\(1, dtype\)",
    ),
    ("bind namespace", "R = x\nreturn x", ParseError, 11, 9, r"cannot bind 'R': it names a TVMScript namespace"),
    ("bind module", "Module = R.add(x, x)\nreturn x", ParseError, 11, 9, r"cannot bind 'Module': it names the module"),
    # ops
    ("unknown op", "z = R.frobnicate(x)\nreturn z", ParseError, 11, 13, r"^unknown op R\.frobnicate$"),
    ("typo op", "z = R.ad(x, x)\nreturn z", ParseError, 11, 13, r"unknown op R\.ad \(did you mean R\.add\?\)"),
    ("unknown nn op", "z = R.nn.frob(x)\nreturn z", ParseError, 11, 13, r"unknown op R\.nn\.frob"),
    ("not a callee", "z = foo(x)\nreturn z", ParseError, 11, 13, r"unknown function foo"),
    ("statement as value", "z = R.output(x)\nreturn z", ParseError, 11, 13, r"R\.output\(\.\.\.\) is a statement"),
    ("annotation as value", "z = R.Tensor((2,))\nreturn z", ParseError, 11, 13, r"R\.Tensor is an annotation"),
    ("too few args", "z = R.add(x)\nreturn z", ParseError, 11, 13, r"R\.add is missing its argument 'x2'"),
    (
        "too many args",
        "z = R.add(x, x, x)\nreturn z",
        ParseError,
        11,
        25,
        r"R\.add takes at most 2 argument\(s\) \(x1, x2\), got 3",
    ),
    ("unknown keyword", "z = R.add(x, x, alpha=1)\nreturn z", ParseError, 11, 25, r"unknown keyword argument 'alpha'"),
    ("duplicate keyword", "z = R.add(x, x1=x)\nreturn z", ParseError, 11, 22, r"multiple values for argument 'x1'"),
    ("star args", "t = (x, x)\nz = R.add(*t)\nreturn z", ParseError, 12, 19, r"'\*' arguments are not supported"),
    (
        "attr not literal",
        "z = R.permute_dims(x, axes=x)\nreturn z",
        ParseError,
        11,
        36,
        r"expected a literal value .* got the name 'x'",
    ),
    (
        "shape mismatch",
        "z = R.add(x, y)\nreturn z",
        InferenceError,
        11,
        13,
        r"R\.add: shapes \(2, 3\) and \(3, 4\) do not broadcast",
    ),
    ("matmul mismatch", "z = R.matmul(x, x)\nreturn z", InferenceError, 11, 13, r"R\.matmul"),
    (
        "dtype mismatch",
        'k = R.const(1, "int32")\nz = R.add(x, k)\nreturn z',
        InferenceError,
        12,
        13,
        r"dtypes float32 and int32 differ",
    ),
    (
        "annotated shape",
        'z: R.Tensor((3, 3), "float32") = R.add(x, x)\nreturn z',
        InferenceError,
        11,
        12,
        r"'z' is annotated with shape \(3, 3\) but its value has shape \(2, 3\)",
    ),
    (
        "annotated dtype",
        'z: R.Tensor((2, 3), "int32") = R.add(x, x)\nreturn z',
        InferenceError,
        11,
        12,
        r"'z' is annotated with dtype int32 but its value has dtype float32",
    ),
    ("annotated kind", "z: R.Shape([2, 3]) = R.add(x, x)\nreturn z", InferenceError, 11, 12, r"annotated as R\.Shape"),
    ("tuple index range", "t = (x, y)\nz = t[2]\nreturn z", InferenceError, 12, 13, r"tuple index 2 is out of range"),
    ("index a tensor", "z = x[0]\nreturn z", InferenceError, 11, 13, r"cannot index a value .* not a tuple"),
    (
        "index not literal",
        "t = (x, y)\nz = t[c]\nreturn z",
        ParseError,
        12,
        15,
        r"tuple index must be an integer literal",
    ),
    # devices
    (
        "unknown vdevice kind",
        'z: R.Tensor((2, 3), "float32", "metal") = R.add(x, x)\nreturn z',
        VDeviceLookupError,
        11,
        40,
        r"no vdevice of kind 'metal' in the module; it declares llvm:0:global \(cpu\(0\)\), cuda:0:global",
    ),
    (
        "unknown vdevice index",
        'z: R.Tensor((2, 3), "float32", "cuda:1") = R.add(x, x)\nreturn z',
        VDeviceLookupError,
        11,
        40,
        r"vdevice 'cuda:1': the module declares 1 vdevice\(s\) of kind 'cuda', so the index must be 0\.\.0",
    ),
    (
        "unknown vdevice scope",
        'z: R.Tensor((2, 3), dtype="float32", vdevice="cuda:0:shared") = R.add(x, x)\nreturn z',
        VDeviceLookupError,
        11,
        54,
        r"memory scope 'global', not 'shared'",
    ),
    (
        "vdevice:j out of range",
        'z = R.to_vdevice(x, "vdevice:2")\nreturn z',
        VDeviceLookupError,
        11,
        29,
        r"the module declares 2 vdevice\(s\), indices 0\.\.1",
    ),
    (
        "hint on a device not declared",
        "z = R.hint_on_device(x, tvm.cuda(1))\nreturn z",
        VDeviceLookupError,
        11,
        13,
        r"no vdevice on device cuda\(1\)",
    ),
    (
        "hint scope not declared",
        'z = R.hint_on_device(x, tvm.cpu(), "shared")\nreturn z',
        VDeviceLookupError,
        11,
        13,
        r"with memory scope 'shared'",
    ),
    (
        "to_vdevice not declared",
        'z = R.to_vdevice(x, I.vdevice("metal"))\nreturn z',
        VDeviceLookupError,
        11,
        13,
        r"is not in the module's vdevice list",
    ),
    (
        "unknown device function",
        "z = R.hint_on_device(x, tvm.tpu(0))\nreturn z",
        ParseError,
        11,
        33,
        r"unknown device tvm\.tpu",
    ),
    (
        "unknown device code",
        "z = R.hint_on_device(x, R.device(99, 0))\nreturn z",
        ParseError,
        11,
        42,
        r"unknown device type code 99",
    ),
    (
        "negative device index",
        "z = R.hint_on_device(x, tvm.cuda(-1))\nreturn z",
        ParseError,
        11,
        42,
        r"must not be negative",
    ),
    (
        "device not a call",
        'z = R.hint_on_device(x, "cuda")\nreturn z',
        ParseError,
        11,
        33,
        r"expected a device such as tvm\.cuda\(0\)",
    ),
    # names
    ("undefined", "z = R.add(x, q)\nreturn z", ParseError, 11, 22, r"^undefined variable 'q'$"),
    ("undefined return", "return q", ParseError, 11, 16, r"^undefined variable 'q'$"),
    (
        "symbol as tensor",
        "n = T.int64()\nz = R.add(x, n)\nreturn z",
        InferenceError,
        12,
        13,
        r"R\.add: argument 1 must be a tensor, got R\.Prim\('int64', value='n'\)",
    ),
    (
        "symbol redeclared",
        "n = T.int64()\nn = R.add(x, x)\nreturn x",
        ParseError,
        12,
        9,
        r"cannot bind 'n': it is declared as a symbolic dim",
    ),
    (
        "undeclared symbol",
        'z: R.Tensor((n, 3), "float32") = R.add(x, x)\nreturn z',
        ParseError,
        11,
        22,
        r"undefined symbolic dim 'n'",
    ),
    (
        "dataflow var after block",
        "with R.dataflow():\n    a = R.add(x, x)\n    b = R.add(a, a)\n    R.output(b)\nreturn a",
        ParseError,
        15,
        16,
        r"'a' is local to the dataflow block at line 11: list it in that block's R\.output",
    ),
    (
        "output not bound in block",
        "with R.dataflow():\n    a = R.add(x, x)\n    R.output(x)\nreturn a",
        ParseError,
        13,
        22,
        r"R\.output\(x\): 'x' is not bound in this dataflow block",
    ),
    (
        "output twice",
        "with R.dataflow():\n    a = R.add(x, x)\n    R.output(a, a)\nreturn a",
        ParseError,
        13,
        25,
        r"listed twice",
    ),
    (
        "output not last",
        "with R.dataflow():\n    R.output()\n    a = R.add(x, x)\nreturn x",
        ParseError,
        12,
        13,
        r"must be the last statement of the dataflow block",
    ),
    (
        "output outside",
        "R.output(x)\nreturn x",
        ParseError,
        11,
        9,
        r"must be the last statement of a 'with R\.dataflow\(\):' block",
    ),
    (
        "other with",
        "with open(x):\n    a = x\nreturn x",
        ParseError,
        11,
        9,
        r"the only 'with' block is 'with R\.dataflow\(\):'",
    ),
    (
        "nested dataflow",
        "with R.dataflow():\n    with R.dataflow():\n        a = x\nreturn x",
        ParseError,
        12,
        13,
        r"cannot be nested",
    ),
    (
        "if in dataflow",
        "with R.dataflow():\n    if c:\n        a = x\n    else:\n        a = x\nreturn x",
        ParseError,
        12,
        13,
        r"if is not allowed inside a dataflow block",
    ),
    (
        "return in dataflow",
        "with R.dataflow():\n    return x",
        ParseError,
        12,
        13,
        r"return is not allowed inside a dataflow block",
    ),
    # if / else
    ("if without else", "if c:\n    r = x\nreturn r", ParseError, 11, 9, r"if needs an else branch"),
    (
        "branches differ",
        "if c:\n    r = x\nelse:\n    s = x\nreturn x",
        ParseError,
        14,
        13,
        r"the same name \('r' vs 's'\)",
    ),
    (
        "branch ends oddly",
        "if c:\n    r = x\n    R.output(r)\nelse:\n    r = x\nreturn r",
        ParseError,
        13,
        13,
        r"R\.output",
    ),
    (
        "return in branch",
        "if c:\n    return x\nelse:\n    r = x\nreturn r",
        ParseError,
        12,
        13,
        r"return is not allowed inside an if branch",
    ),
    (
        "branch local",
        "if c:\n    a = R.add(x, x)\n    r = a\nelse:\n    r = x\nreturn a",
        ParseError,
        16,
        16,
        r"undefined variable 'a'",
    ),
    (
        "annotations differ",
        'if c:\n    r: R.Tensor("float32") = x\nelse:\n    r: R.Tensor(ndim=2) = x\nreturn r',
        ParseError,
        14,
        16,
        r"the branches annotate 'r' differently",
    ),
    (
        "condition type",
        "if x:\n    r = x\nelse:\n    r = x\nreturn r",
        InferenceError,
        11,
        12,
        r"an if condition must be a boolean scalar",
    ),
    # function calls
    (
        "undefined function",
        "cls = Module\nz = cls.nope(x)\nreturn z",
        ParseError,
        12,
        13,
        r"call to undefined function 'nope' \(the module defines: f, g\)",
    ),
    (
        "function arity",
        "cls = Module\nz = cls.g(x, x)\nreturn z",
        InferenceError,
        12,
        13,
        r"cls\.g takes 1 argument\(s\) but 2 were given",
    ),
    (
        "function arg type",
        "cls = Module\nz = cls.g(y)\nreturn z",
        InferenceError,
        12,
        13,
        r"argument 0 of cls\.g is annotated with shape",
    ),
    ("function keywords", "cls = Module\nz = cls.g(x=x)\nreturn z", ParseError, 12, 19, r"positional arguments only"),
    (
        "recursion without annotation",
        "cls = Module\nz = cls.f(x, y, c)\nreturn z",
        ParseError,
        12,
        13,
        r"cls\.f is called before its return type is known \(a recursive call\): annotate the return type of 'f'",
    ),
    # constants and builtins
    ("const string", 'z = R.const("a")\nreturn z', ParseError, 11, 21, r"R\.const takes a number"),
    ("const ragged", "z = R.const([[1], [2, 3]])\nreturn z", ParseError, 11, 21, r"R\.const: cannot make"),
    ("const overflow", 'z = R.const(300, "int8")\nreturn z', ParseError, 11, 21, r"R\.const: cannot make a int8 array"),
    # the default int32 of a Python int: NumPy wraps 3e9 around, silently
    ("const overflow int32", "z = R.const(3000000000)\nreturn z", ParseError, 11, 21, r"cannot make a int32 array"),
    ("const dtype", 'z = R.const(1, "float13")\nreturn z', ParseError, 11, 24, r"unknown dtype 'float13'"),
    ("prim_value type", "z = R.prim_value(T.int32(1.5))\nreturn z", ParseError, 11, 34, r"T\.int32 takes an integer"),
    ("negative dim", "z = R.shape([-1])\nreturn z", ParseError, 11, 22, r"must not be negative"),
    (
        "bad symbolic dim string",
        'z = R.shape(["n +"])\nreturn z',
        ParseError,
        11,
        22,
        r"cannot read symbolic dim 'n \+'",
    ),
    (
        "symbolic dim power",
        'z = R.shape(["n ** 2"])\nreturn z',
        ParseError,
        11,
        22,
        r"only ints, names, \+ - \* // % and T.min/T.max",
    ),
]


FUNC_TAIL = """
    @R.function
    def g(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        return x
"""


@pytest.mark.parametrize(
    ("name", "body", "cls", "line", "col", "message"), BODY_ERRORS, ids=[c[0] for c in BODY_ERRORS]
)
def test_bad_function_bodies(name, body, cls, line, col, message):
    text = HEADER + "".join(f"        {b}\n" for b in body.splitlines()) + FUNC_TAIL
    check(parse_error(text), cls, line, col, message)


@pytest.mark.parametrize(
    ("name", "body", "cls", "line", "col", "message"), BODY_ERRORS, ids=[c[0] for c in BODY_ERRORS]
)
def test_bad_function_bodies_report_the_same_without_the_fast_path(name, body, cls, line, col, message, monkeypatch):
    monkeypatch.setattr(parser_pkg, "build_skeleton", lambda src: None)
    text = HEADER + "".join(f"        {b}\n" for b in body.splitlines()) + FUNC_TAIL
    check(parse_error(text), cls, line, col, message)


# -- files, modules, signatures -----------------------------------------------------------

MODULE = "@I.ir_module\nclass M:\n"
FN = '    @R.function\n    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):\n        return x\n'

FILE_ERRORS = [
    ("empty", "", ParseError, 1, 1, r"no @I\.ir_module class in the text"),
    ("comments only", "# nothing\nimport tvm\n", ParseError, 1, 1, r"no @I\.ir_module class in the text"),
    (
        "top-level code",
        "import tvm\nx = 1\n" + MODULE + FN,
        ParseError,
        2,
        1,
        r"holds imports and one @I\.ir_module class, got an assignment",
    ),
    (
        "top-level def",
        "def f():\n    pass\n",
        ParseError,
        1,
        1,
        r"holds imports and one @I\.ir_module class, got the function definition 'f'",
    ),
    ("plain class", "class A:\n    pass\n", ParseError, 1, 1, r"class 'A' is not decorated with @I\.ir_module"),
    ("base class", "@I.ir_module\nclass A(object):\n    pass\n", ParseError, 2, 1, r"must not have base classes"),
    (
        "two modules",
        MODULE + FN + "@I.ir_module\nclass B:\n    pass\n",
        ParseError,
        7,
        1,
        r"a second @I\.ir_module class 'B': a file holds one module \(the first is 'M' at line 2\)",
    ),
    (
        "malformed",
        MODULE + "    @R.function\n    def f(x:\n",
        ParseError,
        4,
        10,
        r"invalid syntax: '\(' was never closed",
    ),
    (
        "indentation",
        MODULE + "  @R.function\n    def f(x): return x\n",
        ParseError,
        4,
        4,
        r"invalid syntax: unexpected indent",
    ),
    ("nul byte", MODULE + "    pass\0\n", ParseError, 3, 9, r"the text contains a NUL byte"),
    ("class statement", MODULE + "    x = 1\n", ParseError, 3, 5, r"a module class holds .* got an assignment"),
    (
        "module attrs twice",
        MODULE + "    I.module_attrs({})\n    I.module_attrs({})\n",
        ParseError,
        4,
        5,
        r"I\.module_attrs appears twice",
    ),
    (
        "module attrs not a dict",
        MODULE + "    I.module_attrs([1])\n",
        ParseError,
        3,
        20,
        r"takes a dict with string keys",
    ),
    ("global infos not a dict", MODULE + "    I.module_global_infos([])\n", ParseError, 3, 5, r"takes a dict"),
    (
        "bad target",
        MODULE + '    I.module_global_infos({"vdevice": [I.vdevice("cuda arch")]})\n',
        ParseError,
        3,
        50,
        r"bad target: cannot read target option 'arch'",
    ),
    (
        "bad vdevice id",
        MODULE + '    I.module_global_infos({"vdevice": [I.vdevice("cuda", -1)]})\n',
        ParseError,
        3,
        40,
        r"bad vdevice: vdevice_id must be a non-negative int",
    ),
    (
        "vdevice needs target",
        MODULE + '    I.module_global_infos({"vdevice": [I.vdevice()]})\n',
        ParseError,
        3,
        40,
        r"I\.vdevice needs a target",
    ),
    (
        "not a vdevice",
        MODULE + '    I.module_global_infos({"vdevice": ["cuda"]})\n',
        ParseError,
        3,
        40,
        r"expected I\.vdevice\(\.\.\.\)",
    ),
    (
        "no decorator",
        MODULE + "    def f(x: R.Tensor):\n        return x\n",
        ParseError,
        3,
        5,
        r"must be decorated with @R\.function",
    ),
    (
        "prim func",
        MODULE + "    @T.prim_func\n    def f(x: T.handle):\n        T.evaluate(0)\n",
        ParseError,
        5,
        9,
        r"TIR: this statement is not read \(the expression a call to T\.evaluate\)",
    ),
    (
        # The skeleton collapses the inner function (a `FastFunction`): refused as its AST would be.
        "function in a prim func",
        MODULE + "    @T.prim_func\n    def f(x: T.handle):\n        @R.function\n"
        '        def g(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):\n            return y\n',
        ParseError,
        6,
        9,
        r"TIR: this statement is not read \(a functiondef statement\)",
    ),
    (
        "decorator keyword",
        MODULE + "    @R.function(inline=True)\n    def f(x: R.Tensor):\n        return x\n",
        ParseError,
        3,
        17,
        r"unknown keyword argument 'inline'",
    ),
    (
        "decorator value",
        MODULE + "    @R.function(private=1)\n    def f(x: R.Tensor):\n        return x\n",
        ParseError,
        3,
        25,
        r"must be True or False",
    ),
    ("duplicate function", MODULE + FN + FN, ParseError, 7, 5, r"function 'f' is defined twice \(first at line 4\)"),
    (
        "duplicate parameter",
        MODULE + "    @R.function\n    def f(x: R.Tensor, x: R.Tensor):\n        return x\n",
        ParseError,
        4,
        24,
        r"parameter 'x' is defined twice",
    ),
    (
        "missing annotation",
        MODULE + "    @R.function\n    def f(x):\n        return x\n",
        ParseError,
        4,
        11,
        r"parameter 'x' needs a struct-info annotation",
    ),
    (
        "varargs",
        MODULE + "    @R.function\n    def f(*x):\n        return x\n",
        ParseError,
        4,
        12,
        r"only plain positional parameters",
    ),
    (
        "bad annotation",
        MODULE + "    @R.function\n    def f(x: int):\n        return x\n",
        ParseError,
        4,
        14,
        r"unsupported annotation: expected R\.Tensor, .* got the name 'int'",
    ),
    (
        "annotation rank",
        MODULE + "    @R.function\n    def f(x: R.Tensor((2,), ndim=2)):\n        return x\n",
        ParseError,
        4,
        34,
        r"shape of rank 1 but ndim=2",
    ),
    (
        "unknown dtype",
        MODULE + '    @R.function\n    def f(x: R.Tensor((2,), "float3")):\n        return x\n',
        ParseError,
        4,
        29,
        r"unknown dtype 'float3'",
    ),
    (
        "vdevice without list",
        MODULE + '    @R.function\n    def f(x: R.Tensor((2,), "float32", "cuda")):\n        return x\n',
        VDeviceLookupError,
        4,
        40,
        r"no vdevice of kind 'cuda' in the module; it declares no vdevices",
    ),
    (
        "return mismatch",
        MODULE
        + '    @R.function\n    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((3,), "float32"):\n        return x\n',
        InferenceError,
        4,
        44,
        r"the return value of 'f' is annotated with shape \(3,\)",
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "cls", "line", "col", "message"), FILE_ERRORS, ids=[c[0] for c in FILE_ERRORS]
)
def test_bad_files(name, text, cls, line, col, message):
    check(parse_error(text), cls, line, col, message)


def test_a_file_name_of_none_reads_as_string():
    with pytest.raises(ParseError, match=r"^<string>:1:1: no @I\.ir_module class"):
        ir.parse("")


def test_bytes_that_are_not_utf8():
    err = parse_error(b"\xff\xfe@I.ir_module")
    assert "not UTF-8" in err.reason


def test_parse_vdevice_errors():
    for text, message in [
        ("I.vdevice(", r"^<string>:1:10: invalid syntax"),
        ('I.vdevice("cuda", -1)', r"^<string>:1:1: bad vdevice"),
        ("tvm.cuda(0)", r"^<string>:1:1: expected I\.vdevice\(\.\.\.\), got a call to tvm\.cuda"),
        ('I.vdevice(__import__("os").getcwd())', r"^<string>:1:11: expected a literal value"),
    ]:
        with pytest.raises(ParseError, match=message):
            ir.parse_vdevice(text)


# -- deep nesting and big files -----------------------------------------------------------------


def fn_with(value: str, params: str = 'x: R.Tensor((2,), "float32")') -> str:
    return MODULE + f"    @R.function\n    def f({params}):\n        y = {value}\n        return y\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (fn_with("R.add(" * 10_000 + "x" + ", x)" * 10_000), r"invalid syntax: too many nested parentheses"),
        (fn_with("(" * 100_000 + "x" + ")" * 100_000), r"invalid syntax: too many nested parentheses"),
        (fn_with("x" + "[0]" * 100_000), r"nested too deeply for Python's parser"),
        (fn_with("-" * 100_000 + "x"), r"nested too deeply for Python's parser"),
        (fn_with("x" + ".a" * 100_000), r"nested too deeply for Python's parser"),
        (fn_with("x" + "[0]" * 150), r"expression nested more than 100 levels deep"),
        (fn_with("R.add(" * 150 + "x" + ", x)" * 150), r"expression nested more than 100 levels deep"),
        (fn_with("x", params="x: " + "R.Tuple(" * 150 + "R.Tensor" + ")" * 150), r"nested more than 100 levels"),
        (fn_with("x", params="x: R.Tensor((" + " + ".join(["n"] * 500) + ",))"), r"nested more than 100 levels"),
        (MODULE + "    I.module_attrs({'a': " + "[" * 150 + "]" * 150 + "})\n", r"nested more than 100 levels"),
        (fn_with("R.const(" + "[" * 150 + "1" + "]" * 150 + ")"), r"nested more than 100 levels"),
    ],
)
def test_deep_nesting_is_a_parse_error(text, message):
    err = parse_error(text)
    assert re.search(message, err.reason), err.reason


def test_deeply_nested_but_allowed_expressions_parse():
    mod = ir.parse(fn_with("R.add(" * 90 + "x" + ", x)" * 90))
    assert mod["f"].ret_struct_info.shape == (2,)


TEN_MB = 10 * 1024 * 1024


def test_ten_megabytes_of_random_characters():
    rng = random.Random(0)
    err = parse_error("".join(rng.choices(string.printable, k=TEN_MB)))
    assert err.reason.startswith("invalid syntax")


def test_ten_megabytes_of_python_that_is_not_a_module():
    err = parse_error("x = 1\n" * (TEN_MB // 6))
    check(err, ParseError, 1, 1, r"holds imports and one @I\.ir_module class, got an assignment")


def test_ten_megabytes_of_statements_inside_the_class():
    err = parse_error(MODULE + "    x = R.add(y, y)\n" * (TEN_MB // 20))
    check(err, ParseError, 3, 5, r"a module class holds .* got an assignment")


def test_ten_megabytes_of_bindings_with_an_error_in_the_first():
    text = MODULE + '    @R.function\n    def f(x: R.Tensor((2,), "float32")):\n'
    text += "        lv = R.add(x, q)\n" * (TEN_MB // 25) + "        return lv\n"
    check(parse_error(text), ParseError, 5, 23, r"undefined variable 'q'")


# -- nothing executes ------------------------------------------------------------------------------


@pytest.fixture
def no_eval(monkeypatch):
    """Fail the test if anything calls eval or exec while it runs."""

    def forbidden(*args, **kwargs):
        raise AssertionError("the parser must never call eval or exec")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)


def attack_texts(payload: str) -> dict[str, str]:
    fn = '    @R.function\n    def f(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):\n'
    return {
        "annotation": MODULE + f"    @R.function\n    def f(x: {payload}):\n        return x\n",
        "return annotation": MODULE + f"    @R.function\n    def f(x: R.Tensor) -> {payload}:\n        return x\n",
        "binding annotation": MODULE + fn + f"        y: {payload} = x\n        return y\n",
        "function decorator": MODULE + f"    @{payload}\n    def f(x: R.Tensor):\n        return x\n",
        "class decorator": f"@{payload}\nclass M:\n    pass\n",
        "default value": MODULE + f"    @R.function\n    def f(x: R.Tensor = {payload}):\n        return x\n",
        "class body": MODULE + f"    {payload}\n",
        "class body binding": MODULE + f"    y = {payload}\n",
        "top level": f"{payload}\n" + MODULE + "    pass\n",
        "tensor argument": MODULE + fn + f"        y = R.add(x, {payload})\n        return y\n",
        "attribute argument": MODULE + fn + f"        y = R.permute_dims(x, axes={payload})\n        return y\n",
        "device argument": MODULE + fn + f"        y = R.hint_on_device(x, {payload})\n        return y\n",
        "binding value": MODULE + fn + f"        y = {payload}\n        return y\n",
        "statement": MODULE + fn + f"        {payload}\n        return x\n",
        "const value": MODULE + fn + f"        y = R.const({payload})\n        return y\n",
        "shape dim": MODULE + fn + f"        y = R.shape([{payload}])\n        return y\n",
        "module attrs": MODULE + f"    I.module_attrs({{'a': {payload}}})\n",
        "vdevice target": MODULE + f"    I.module_global_infos({{'vdevice': [I.vdevice({payload})]}})\n",
        "func attr": MODULE + fn + f"        R.func_attr({{'a': {payload}}})\n        return x\n",
        "if condition": MODULE
        + fn
        + f"        if {payload}:\n            y = x\n        else:\n            y = x\n        return y\n",
        "return value": MODULE + fn + f"        return {payload}\n",
    }


@pytest.mark.parametrize("where", sorted(attack_texts("X")))
def test_code_in_the_text_is_never_executed(where, tmp_path, no_eval):
    marker = tmp_path / "pwned"
    payload = f'__import__("os").system("touch {marker}")'
    text = attack_texts(payload)[where]
    err = parse_error(text)
    assert payload in text.splitlines()[err.span.line - 1], str(err)  # rejected at the payload itself
    assert not marker.exists()


def test_the_attack_payloads_would_have_worked(tmp_path):
    # The check above is only meaningful if the payload really runs when executed.
    marker = tmp_path / "pwned"
    exec(f'__import__("os").system("touch {marker}")')  # noqa: S102 - the test's own control
    assert marker.exists()


# -- internal failures ---------------------------------------------------------------------------------


def test_a_crashing_op_inference_is_reported_at_the_call(monkeypatch):
    op = ir.get_op("nn.relu")

    def broken(args, attrs):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(op, "infer", broken)
    err = body_error("z = R.nn.relu(x)\nreturn z")
    check(err, InferenceError, 11, 13, r"R\.nn\.relu: cannot infer the result \(ZeroDivisionError: boom\)")


def test_an_internal_bug_is_still_a_located_parse_error(monkeypatch):
    from vdplace.ir.parser.expressions import ExprParser

    def broken(self, node, depth):
        raise KeyError("oops")

    monkeypatch.setattr(ExprParser, "_call", broken)
    err = body_error("y = x\nz = R.add(R.add(x, x), x)\nreturn z")
    check(err, ParseError, 12, 9, r"internal parser error \(KeyError: 'oops'\)")


# -- fuzzing: mutated modules -----------------------------------------------------------------------

DATA = Path(__file__).parents[1] / "data" / "parser"
SEEDS = [p.read_text() for p in sorted(DATA.glob("*.tvmscript"))]
PIECES = [
    "(",
    ")",
    "[",
    "]",
    ",",
    ":",
    "=",
    " ",
    "\n",
    "    ",
    "\t",
    "\r",
    "R.",
    "x",
    "lv0",
    '"',
    "'",
    '"""',
    "\\",
    "#",
    ";",
    "R.add(x, x)",
    "cls.",
    "T.int64()",
    "-1",
    "0",
    "None",
    "True",
    "if ",
    "else:",
    "return ",
    "R.output(",
    "with R.dataflow():",
    'I.vdevice("cuda", 3)',
    '"cuda:9"',
    "tvm.cuda(7)",
    "R.Tensor(",
    "ndim=",
    "dtype=",
    "é",
]


@st.composite
def mutated_modules(draw) -> str:
    """A conformance text with a few random insertions, deletions and duplicated lines."""
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        pos = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "duplicate line"]))
        if kind == "insert":
            text = text[:pos] + draw(st.sampled_from(PIECES)) + text[pos:]
        elif kind == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 6)) :]
        else:
            lines = text.split("\n")
            lines.insert(draw(st.integers(0, len(lines))), lines[draw(st.integers(0, len(lines) - 1))])
            text = "\n".join(lines)
    return text


def outcome(text: str):
    try:
        return ir.parse(text)
    except ParseError as err:
        return err


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_modules())
def test_mutated_modules_parse_or_fail_with_a_located_one_line_error(text):
    result = outcome(text)
    if isinstance(result, ParseError):
        assert re.match(r"^<string>:\d+:\d+: [^\n\r]+$", str(result)), str(result)
        assert "internal parser error" not in str(result)
    else:
        assert isinstance(result, ir.IRModule)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_modules())
def test_the_fast_path_never_changes_the_outcome(text):
    fast = outcome(text)
    original = parser_pkg.build_skeleton
    parser_pkg.build_skeleton = lambda src: None
    try:
        slow = outcome(text)
    finally:
        parser_pkg.build_skeleton = original
    if isinstance(fast, ParseError) or isinstance(slow, ParseError):
        assert str(fast) == str(slow)
        return
    assert ir.structural_equal(fast, slow)
    for name in fast.functions:
        for a, b in zip(iter_bindings(fast[name]), iter_bindings(slow[name]), strict=True):
            assert (a.span, a.var.span, a.value.span, a.annotation) == (b.span, b.var.span, b.value.span, b.annotation)
