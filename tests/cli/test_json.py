"""``--json`` on every sub-command: one JSON document, success or failure, valid against docs/schemas/.

Each case runs the command as a user would (in process, through `main`), parses
the whole of stdout (or the ``-o`` file) as one document and validates it with
`jsonschema` against the command's schema, which names the conflict schema
(placement/report/conflict_schema.json) and the error schema by their ``$id``.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from referencing import Registry, Resource

from vdplace.cli import main
from vdplace.placement.report import SCHEMA_PATH

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SCHEMAS = ROOT / "docs" / "schemas"

MEMORY_BOUND = """@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 0)]})

    @R.function
    def main(x: R.Tensor((64, 64), "float32", "cuda")):
        a = R.exp(x)
        return a
"""

UNKNOWN_OP = """@I.ir_module
class M:
    @R.function
    def f(x: R.Tensor((2,), "float32")):
        return R.nosuch(x)
"""

KERNEL_FAILS = """@I.ir_module
class M:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.zeros(R.shape([1000000, 1000000]), "float32")
        return y
"""


def _schemas() -> dict[str, dict]:
    found = {path.stem: json.loads(path.read_text()) for path in sorted(SCHEMAS.glob("*.json"))}
    found["conflicts"] = json.loads(SCHEMA_PATH.read_text())
    return found


def _validator(command: str) -> jsonschema.Draft202012Validator:
    schemas = _schemas()
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    return jsonschema.Draft202012Validator(schemas[f"vdplace-{command}"], registry=registry)


def test_every_schema_is_a_valid_json_schema_with_an_id():
    for name, schema in _schemas().items():
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$id"], name


def _document(capsys, argv: list[str], status: int) -> dict:
    assert main([str(a) for a in argv]) == status
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return json.loads(out)  # the whole of stdout is one document


@pytest.mark.parametrize(
    ("argv", "status", "identity"),
    [
        (["place", EXAMPLES / "rfc_hint_copy.py"], 0, ("schema", "vdplace-place/1")),
        (["place", EXAMPLES / "specialize_helper.py", "--specialize"], 0, ("schema", "vdplace-place/1")),
        (["place", EXAMPLES / "conflict_add.py"], 1, ("schema", "vdplace-conflicts/3")),
        (["place", "{memory}", "--memory", "cuda:0=1KiB"], 1, ("kind", "memory")),
        (["place", "--jsn", EXAMPLES / "rfc_hint_copy.py"], 2, ("kind", "usage")),
        (["place", "/no/such/module.py"], 2, ("kind", "bad-input")),
        (["place", "{bad}"], 2, ("kind", "bad-input")),
    ],
)
def test_place(capsys, tmp_path, argv, status, identity):
    memory, bad = tmp_path / "memory.py", tmp_path / "bad.py"
    memory.write_text(MEMORY_BOUND)
    bad.write_text(UNKNOWN_OP)
    argv = [str(a).format(memory=memory, bad=bad) for a in argv]
    document = _document(capsys, [argv[0], "--json", *argv[1:]], status)
    _validator("place").validate(document)
    assert document[identity[0]] == identity[1]
    if argv[-1] == str(bad):
        assert document["location"] == {"file": str(bad), "line": 5, "column": 16}


def test_run(capsys, tmp_path):
    validate = _validator("run").validate
    document = _document(capsys, ["run", "--json", "--simulate", "--profile", EXAMPLES / "mlp_two_devices.py"], 0)
    validate(document)
    assert [o["name"] for o in document["outputs"]] == ["out[0]", "out[1]"]
    assert document["outputs"][0]["shape"] == [4, 16] and document["profile"]["copies"] == 1
    document = _document(capsys, ["run", "--json", EXAMPLES / "conflict_add.py"], 1)
    validate(document)
    assert document["schema"] == "vdplace-conflicts/3"
    document = _document(capsys, ["run", "--json", EXAMPLES / "rfc_hint_copy.py"], 1)  # no GPU, no --simulate
    validate(document)
    assert document["kind"] == "device" and "--simulate" in document["message"]
    failing = tmp_path / "big.py"
    failing.write_text(KERNEL_FAILS)
    document = _document(capsys, ["run", "--json", failing], 1)
    validate(document)
    assert document["kind"] == "run" and f"{failing}:7:9" in document["message"]
    np.savez(tmp_path / "x.npz", x=np.ones((3, 3), "float32"), y=np.ones((2, 3), "float32"))
    argv = ["run", "--json", "--cpu", "--inputs", tmp_path / "x.npz", EXAMPLES / "rfc_hint_copy.py"]
    document = _document(capsys, argv, 2)
    validate(document)
    assert document["kind"] == "bad-input" and "x.npz" in document["message"]


def test_run_json_goes_to_the_output_file(capsys, tmp_path):
    target = tmp_path / "out.json"
    assert main(["run", "--json", "-o", str(target), "--cpu", str(EXAMPLES / "rfc_backward.py")]) == 0
    assert capsys.readouterr().out == ""
    _validator("run").validate(json.loads(target.read_text()))


def test_calibrate(capsys, tmp_path):
    validate = _validator("calibrate").validate
    document = _document(capsys, ["calibrate", "--json", "--repeat", "1", EXAMPLES / "rfc_hint_copy.py"], 0)
    validate(document)
    assert document["format"] == "vdplace-cost/1"
    document = _document(capsys, ["calibrate", "--json", tmp_path / "missing.py"], 2)
    validate(document)
    assert document["kind"] == "bad-input"


def test_bench(capsys):
    validate = _validator("bench").validate
    document = _document(capsys, ["bench", "--json", "--family", "chain", "--sizes", "40", "--no-tvm"], 0)
    validate(document)
    assert document["kind"] == "placement" and document["rows"][0]["family"] == "chain"
    document = _document(capsys, ["bench", "--json", "--sizes", "0"], 2)
    validate(document)
    assert document["kind"] == "usage" and "--sizes" in document["message"]


def test_the_validator_rejects_what_the_schemas_rule_out(capsys):
    document = _document(capsys, ["place", "--json", EXAMPLES / "rfc_hint_copy.py"], 0)
    del document["copies"][0]["bytes"]
    with pytest.raises(jsonschema.ValidationError):
        _validator("place").validate(document)
    error = _document(capsys, ["place", "--json", "/no/such.py"], 2)
    error["message"] = "two\nlines"
    with pytest.raises(jsonschema.ValidationError):
        _validator("place").validate(error)


def test_a_document_with_a_non_finite_number_is_still_json(capsys, tmp_path):
    module = tmp_path / "inf.py"
    module.write_text(
        """@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        y = R.log(R.zeros(R.shape([2]), "float32"))
        return y
"""
    )
    document = _document(capsys, ["run", "--json", "--cpu", module], 0)
    _validator("run").validate(document)
    assert document["outputs"][0]["min"] == "-inf"


def test_fix(capsys, tmp_path):
    validate = _validator("fix").validate
    document = _document(capsys, ["fix", "--json", EXAMPLES / "conflict_add.py"], 0)
    validate(document)
    assert document["status"] == "fixed" and document["applied"] and document["conflicts"] is None
    placed = tmp_path / "fixed.py"
    placed.write_text(document["text"])
    assert main(["place", str(placed), "-o", str(tmp_path / "placed.py")]) == 0
    document = _document(capsys, ["fix", "--json", tmp_path / "missing.py"], 2)
    validate(document)
    assert document["kind"] == "bad-input"
