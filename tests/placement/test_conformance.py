"""TVM's own RealizeVDevice tests, bundled under tests/data/conformance/, pass against `realize_vdevice`.

Each case is a pair of TVMScript texts, ``<case>.input.tvmscript`` and
``<case>.expect.tvmscript`` (some as TVM's tests write them, some as TVM 0.27's
printer re-prints them): realizing the input must give the expected module,
up to renaming.
"""

from pathlib import Path

import pytest

from vdplace import ir, parse, realize_vdevice

CASES = sorted((Path(__file__).parents[1] / "data" / "conformance").glob("*realize*.input.tvmscript"))


def test_every_realize_case_is_bundled():
    assert len(CASES) == 9, [c.name for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name.split(".")[0])
def test_realize_vdevice_gives_tvms_expected_module(case: Path):
    expected = case.with_name(case.name.replace(".input.", ".expect."))
    ir.assert_structural_equal(realize_vdevice(parse(case.read_text())), parse(expected.read_text()))
