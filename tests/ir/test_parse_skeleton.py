"""The parser's skeleton: collapsed functions and candidate lines read exactly as the whole text's AST.

Every case is parsed twice, with the skeleton and without it (every
statement read from `ast`), and must give the same module, spans and
printed text, or the same error at the same place.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ir.test_parser import parsed_both_ways
from vdplace import ir, placement
from vdplace.bench.generators import GENERATORS
from vdplace.ir.parser.fastlines import CANDIDATE, LINE
from vdplace.ir.parser.skeleton import build_skeleton
from vdplace.ir.parser.source import Source

HEADER = """from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice("cuda", 0)]})
"""
T = 'R.Tensor((2, 3), dtype="float32")'


def fn(name: str, body: list[str], decorator: str = "@R.function", ret: str | None = T, indent: str = "    ") -> str:
    """The text of a function `name(x, w)` with `body` one level deeper than `indent`."""
    arrow = "" if ret is None else f" -> {ret}"
    lines = "".join(f"{indent}    {line}\n" if line else "\n" for line in body)
    return f"{indent}{decorator}\n{indent}def {name}(x: {T}, w: {T}){arrow}:\n{lines}"


SMALL = ["a = R.add(x, w)", "b: " + T + " = R.multiply(a, w)", "return b"]
DATAFLOW = ["with R.dataflow():", "    a = R.add(x, w)", "    b = R.nn.relu(a)", "    R.output(b)", "return b"]


def collapsed(text: str) -> list[str]:
    """The names of the functions the skeleton of `text` collapses, in order."""
    skeleton = build_skeleton(Source(text, "t.py"))
    assert skeleton is not None
    return [f.name for group in skeleton.functions.values() for f in group]


def test_a_module_of_small_functions_collapses_into_one_group_and_reads_the_same(monkeypatch):
    text = HEADER + "\n".join(
        [
            fn("f", SMALL),
            fn("g", DATAFLOW, decorator="@R.function(private=True)"),
            fn("h", ["cls = Module", "y = cls.f(x, w)", "z = cls.g(y, w)", "return z"], ret=None),
            fn("main", ["cls = Module", "y = cls.h(x, w)", "return y"], decorator="@R.function(pure=False)  "),
        ]
    )
    assert collapsed(text) == ["f", "g", "h", "main"]
    skeleton = build_skeleton(Source(text, "t.py"))
    assert len(skeleton.functions) == 1  # one pass for the four
    fast, slow = parsed_both_ways(text, monkeypatch)
    assert fast == slow
    assert fast[0][1][5] == {"private": True}  # g's attributes


@pytest.mark.parametrize(
    ("body", "decorator"),
    [
        (["a = R.add(x, w)", "pass", "return a"], "@R.function"),  # a pass of its own
        (["a = R.add(x, w)  # note", "return a"], "@R.function"),  # a comment
        (["a = R.add(x, w)", "return (a,)"], "@R.function"),  # not `return name`
        (SMALL, "@R.function(foo=1)"),  # a bad decorator, read from its text
        (SMALL, "@R.function(private=2)"),
        (SMALL, "@R.function(private=True, private=True)"),
        (SMALL, "@R.function()"),
    ],
)
def test_functions_read_the_same_whether_collapsed_or_not(body, decorator, monkeypatch):
    text = HEADER + fn("f", body, decorator=decorator) + "\n" + fn("main", SMALL)
    fast, slow = parsed_both_ways(text, monkeypatch)
    assert fast == slow


@pytest.mark.parametrize(
    "text",
    [
        # a function nested in a function body, in a dataflow block and at the top of the file
        HEADER + fn("main", ["a = R.add(x, w)", *fn("inner", SMALL, indent="").splitlines(), "return a"]),
        HEADER + fn("main", ["with R.dataflow():", *fn("inner", SMALL, indent="    ").splitlines(), "return x"]),
        HEADER + fn("main", SMALL) + fn("top", SMALL, indent=""),
        # a function inside a string, inside brackets, or defined twice
        HEADER + '    s = """\n' + fn("f", SMALL) + '"""\n' + fn("main", SMALL),
        HEADER + "    x = (\n" + fn("f", SMALL) + ")\n" + fn("main", SMALL),
        HEADER + fn("main", SMALL) + "\n" + fn("main", SMALL),
        # a wrong indentation right after a collapsed function
        HEADER + fn("f", SMALL) + "      y = 1\n" + fn("main", SMALL),
        HEADER + fn("f", SMALL) + "            y = 1\n" + fn("main", SMALL),
        (HEADER + fn("f", SMALL) + fn("main", SMALL)).replace("    ", "\t"),
    ],
    ids=["nested", "in-dataflow", "top-level", "in-string", "in-brackets", "twice", "dedent", "indent", "tabs"],
)
def test_misplaced_functions_read_the_same_as_their_ast(text, monkeypatch):
    fast, slow = parsed_both_ways(text, monkeypatch)
    assert fast == slow


@pytest.mark.parametrize(
    "line",
    [
        "c = 1",
        "c: R.Tensor((2, 3), dtype='float32') = a",
        f"c: {T}",  # no value
        "c = d = a",  # chained
        "c = (a, (b, a))",
        "c = R.add(a, b) + 1",
        "c = R.add(*a)",
        "c = R.nn.relu(a, foo=)",
        "c = R.add(a, b))",  # a syntax error
        "c: R.Tensor((2,) = R.add(a, b)",
        "c = R.f(\n            d=R.add(a, b))",  # a candidate inside brackets
        'c = R.f("""x\n        d = R.add(a, b)\n        e = R.g(1, """)',  # candidates inside a string
        "c = R.add(a, b)\n        c == a",
        "c = R.add(a, b)   ",  # trailing blanks
        "c = lambda_",
        "n = T.int64()",
        'c: R.T,ensor((2, 3), "float32") = R.multiply(a, b)',  # an annotation that is a tuple without brackets
        "c: R.Object, R.Object = a",
        "c: (R.Object, R.Object) = a",
    ],
)
def test_candidate_lines_that_are_not_fast_read_the_same_as_their_ast(line, monkeypatch):
    body = ["a = R.add(x, w)", "b = R.multiply(a, w)", *line.split("\n        "), "return b"]
    text = HEADER + fn("f", body) + "\n" + fn("main", SMALL)
    fast, slow = parsed_both_ways(text, monkeypatch)
    assert fast == slow


def test_a_syntax_error_in_a_candidate_line_is_reported_before_an_earlier_functions_error(monkeypatch):
    text = HEADER + fn("f", ["a = R.no_such_op(x, w)", "return a"]) + fn("g", ["a = R.add(x, w))", "return a"])
    fast, slow = parsed_both_ways(text, monkeypatch)
    assert fast == slow
    assert fast[1] == "t.py:13:24: invalid syntax: unmatched ')'"


def test_a_deep_tuple_chain_of_candidate_lines_is_located_at_its_line(monkeypatch):
    chain = ["t0: R.Object = (x,)"] + [f"t{i}: R.Object = (t{i - 1},)" for i in range(1, 70)]
    text = HEADER + fn("main", ["a = R.add(x, w)", *chain, "return t69"], ret=None)
    fast, slow = parsed_both_ways(text, monkeypatch)
    assert fast == slow
    assert "tuples nested 65 levels deep" in fast[1]


@pytest.mark.parametrize("before", [0, 5, 3000])  # lines read in place, or moved to where they are
def test_candidate_lines_far_down_a_run_read_the_same_as_their_ast(before, monkeypatch):
    pair = f"R.Tuple({T}, {T})"
    body = [f"a{i} = R.add(x, w)" for i in range(before)]
    body += [f"p: {pair} = (x, w)", "b = R.add(x, w)", f"q: {pair} = (b, x)", f"r: {pair} = (x, b)"]
    body += ["s: R.Object = (p, q, r)", "return s"]
    fast, slow = parsed_both_ways(HEADER + fn("main", body, ret=None), monkeypatch)
    assert fast == slow
    assert fast[0][0][4][-1][1].line == 13 + before  # the span of `s`, read off the fast path


def test_a_long_text_whose_head_holds_a_broken_candidate_reports_the_syntax_error(monkeypatch):
    body = ["a = R.add(x, w))"] + [f"a{i} = R.add(x, w)" for i in range(2500)] + ["return a"]
    fast, slow = parsed_both_ways(HEADER + fn("main", body), monkeypatch)
    assert fast == slow
    assert "invalid syntax" in fast[1]


@pytest.mark.parametrize("family", sorted(GENERATORS))
def test_generated_modules_read_the_same_with_the_skeleton(family, monkeypatch):
    text = ir.script(GENERATORS[family](400))
    fast, slow = parsed_both_ways(text, monkeypatch)
    assert fast == slow


def test_every_fast_line_is_a_candidate():
    root = Path(__file__).parents[2]
    texts = [p.read_text() for p in sorted((root / "examples").glob("*.py"))]
    texts += [ir.script(build(300)) for build in GENERATORS.values()]
    fast = 0
    for text in texts:
        for m in LINE.finditer(text):
            fast += 1
            assert CANDIDATE.fullmatch(m.group()), m.group()
    assert fast > 1000


PAIR = f"R.Tuple({T}, {T})"


@pytest.fixture
def fast_path_only(monkeypatch):
    """Fail any test that reads a line off the fast path (with `ast`)."""
    from vdplace.ir.parser.fastpath import FastPath

    def no_ast(self, line):
        raise AssertionError(f"read with ast: {line.text}")

    monkeypatch.setattr(FastPath, "_slow_parts", no_ast)


@pytest.mark.parametrize(
    "lines",
    [
        [f"p: {PAIR} = (x, w)", "a = p[1]", f"b: {T} = p[0]"],
        [f"p: R.Tuple({T}, {PAIR}) = (x, (x, w))", "q = p[1]", "a = q[0]", "b = R.add(a, p[0])"],
        [f"p: {PAIR} = (x, w)", "a = p[2]", "b = a"],  # out of range
        [f"p: {PAIR} = (x, w)", "a = p[01]", "b = a"],  # not Python
        [f"p: {PAIR} = (x, w)", "a = p[ 0 ]", "b = p[-1]", "c = p[1_0]"],
        ["a = x[0]", "b = a"],  # not a tuple
        ["a = nope[0]", "b = a"],
        [f"p: {PAIR} = (x, w)", 'a: R.Tensor((3, 3), "float32") = p[0]', "b = a"],  # a contradicting annotation
        [f"p: {PAIR} = (x, w)", "a = p[0][1]", "b = a"],
    ],
)
def test_tuple_items_read_the_same_as_their_ast(lines, monkeypatch):
    body = [*lines, "return b"]
    fast, slow = parsed_both_ways(HEADER + fn("main", body, ret=None), monkeypatch)
    assert fast == slow


def test_a_tuple_item_line_takes_the_fast_path(fast_path_only):
    body = ["p = R.split(x, indices_or_sections=3, axis=1)", "a = p[0]", 'b: R.Tensor((2, 1), dtype="float32") = p[2]']
    mod = ir.parse(HEADER + fn("main", [*body, "return b"], ret=None), "t.py")
    a, b = [binding.value for binding in ir.iter_bindings(mod["main"])][1:]
    assert (a.index, b.index, b.span.col, b.span.end_col) == (0, 2, 48, 52)
    assert b.struct_info is mod["main"].body.body.struct_info


@pytest.mark.parametrize(
    "line",
    [
        "b = R.reshape(x, R.shape([3, 2]))",
        "b = R.reshape(x, [3, 2])",
        "b = R.reshape(x, R.shape([3, n]))",  # an undeclared dim
        'b = R.add(x, R.const(1.5, "float32"))',
        'b = R.add(x, R.const(1, "floatx"))',
        'b = R.add(x, R.const("-inf", "float32"))',
        'b = R.add(x, R.const([[1.0, 2.0, 3.0]], "float32"))',
        'b = R.add(x, metadata["relax.expr.Constant"][0])',
        'b = R.add(x, y=R.const(2.0, "float32"))',
        'b = R.add(x, R.const(1.0, "float32"), R.const(1.0, "float32"))',
        "b = R.clip(x, 0, 6)",
        "b = R.clip(x, T.float64(0.5), 6)",
        'b = R.take(x, R.const(0, "int64"), axis=0, mode="fast")',
        'b = R.full(R.shape([2, 3]), R.const(1.0, "float32"), dtype="float32")',
        "b = R.add(x, R.shape([2]))",
        'b = R.add(x, R.str("a"))',
        'b = R.add(x, R.const(1, "float32") )',
        'b = R.add(x, R.const(w, "float32"))',
    ],
)
def test_calls_with_constant_arguments_read_the_same_as_their_ast(line, monkeypatch):
    body = [line, 'c  =  R.add(x,  R.const(1.5, "float32"))', 'd = R.add(x, R.const(1.5, "float32"))', "return b"]
    fast, slow = parsed_both_ways(HEADER + fn("main", body, ret=None), monkeypatch)
    assert fast == slow


def test_constant_arguments_take_the_fast_path_and_stay_apart(fast_path_only):
    body = [
        "a = R.reshape(x, R.shape([3, 2]))",
        'b = R.add(x, R.const(1.5, "float32"))',
        'c = R.add(x, R.const(1.5, "float32"))',
        'd = R.add(b, metadata["relax.expr.Constant"][1])',
        "return d",
    ]
    mod = ir.parse(HEADER + fn("main", body, ret=None), "t.py")
    values = [binding.value for binding in ir.iter_bindings(mod["main"])]
    one, two = values[1].args[1], values[2].args[1]
    assert one is not two and one.data is not two.data and float(one.data) == float(two.data) == 1.5
    assert (one.span.line, one.span.col, one.span.end_col) == (10, 22, 45)
    assert (two.span.line, two.span.col) == (11, 22)
    assert values[0].args[1].values == (3, 2) and values[3].args[1].ref.index == 1
    placed = placement.place(mod, default="first").module
    assert sum(1 for line in ir.script(placed).splitlines() if "R.const(1.5" in line) == 2
