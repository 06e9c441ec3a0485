"""Write the model corpus: tiny PyTorch models as TVM 0.27 prints them, with inputs, weights and outputs.

Run in the frontend environment (torch 2.13.0, apache-tvm 0.27.0.post1,
transformers 5.23.0, onnx and onnxruntime: the ``frontend`` extra), with vdplace
installed beside them (it reads TVM's metadata numbering from
`vdplace.tvm.metadata`), from anywhere:

    python benchmarks/models/make_corpus.py [--out tests/models] [--only NAME ...]

For each model of `zoo.MODELS` (fixed seed per name, so every run writes the
same files) it exports the eval-mode model with ``torch.export.export``,
converts it with ``tvm.relax.frontend.torch.from_exported_program`` and writes
``<out>/<name>/``:

* ``params.py``: ``mod.script()`` of the ``keep_params_as_input=True`` conversion, verbatim;
* ``consts.py``: the same without the flag (weights as ``metadata["ir.GenericConst"][i]``), verbatim;
* ``params.npz``: every parameter of ``params.py``'s ``main`` by its printed name
  (the user inputs, then the weights), plus every metadata constant its
  expressions reference, keyed ``"<kind>:<index>"`` (``"ir.GenericConst:3"``);
* ``consts.npz``: the user inputs by name and every metadata constant of ``consts.py``;
* ``expected.npz``: eager PyTorch's outputs flattened depth-first, ``"output:0"``, ``"output:1"``, ...;
* ``hinted.py``: ``params.py`` plus two vdevices and two ``R.hint_on_device`` (see `variants.hinted`);
  it uses ``params.npz``;
* ``conflict.py``, where TVM accepts one: ``params.py`` with two parameters annotated on
  different vdevices that meet in one op (see `variants.conflict`), so it has no placement;
  uses ``params.npz``.

The ``onnx_*`` models (`onnx_export.MODELS`) go through ONNX instead: torch's
ONNX exporter, onnxruntime (whose outputs are ``expected.npz``) and
``tvm.relax.frontend.onnx.from_onnx`` with and without
``keep_params_in_input``; see `onnx_export`.  The rest is the same.  Only
those of `onnx_export.DEFAULT` are written unless named with ``--only``: the
others wait for something vdplace or `variants` lacks (`zoo_onnx.Spec.waiting_for`).

With the corpus it writes the README's example (`write_example`): the MLP's
``params.py`` with the one line a TVM user adds, an ``R.hint_on_device`` that
puts the second layer on the GPU, as ``examples/pytorch_mlp.py``, and its
``params.npz`` as ``examples/pytorch_mlp.npz``.

Before writing anything it checks, per model: the metadata mapping against the
text (`metadata_map.check_text`); that TVM parses each text back, with the
``.npz`` values substituted for its references, into a module structurally
equal to the one it printed; that the ``keep_params_as_input`` module, and
the parses of ``params.py`` and ``consts.py``, compiled for llvm and run on the
``.npz`` inputs, give eager PyTorch's outputs (rtol 1e-4, atol 1e-5); and that
the variants keep ``params.py``'s constants, in the same order.  A failing
model is reported and its folder left as it was (exit status 1); the others
are still written.
"""

from __future__ import annotations

import argparse
import re
import sys
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

import metadata_map
import numpy as np
import onnx_export
import torch
import tvm
import tvm_checks
import variants
import zoo
from torch.utils._pytree import tree_leaves
from tvm import relax
from tvm.relax.frontend.torch import from_exported_program

ROOT = Path(__file__).resolve().parents[2]
FILES = ("params.py", "consts.py", "hinted.py", "conflict.py", "params.npz", "consts.npz", "expected.npz")


@dataclass
class Converted:
    """One model's conversions and data; the ``*_npz`` dicts are what the ``.npz`` files hold."""

    texts: dict[str, str]
    params_npz: dict[str, np.ndarray]
    consts_npz: dict[str, np.ndarray]
    expected: list[np.ndarray]
    weights: list[np.ndarray]


def _export(name: str) -> tuple[tvm.IRModule, tvm.IRModule, list[np.ndarray], list[np.ndarray]]:
    """(keep_params_as_input conversion, constants conversion, user inputs, expected outputs) of model `name`."""
    if name in onnx_export.MODELS:
        return onnx_export.export(name)
    model, args = zoo.build(name)
    with torch.no_grad():
        expected = [t.detach().numpy().copy() for t in tree_leaves(model(*args))]
    program = torch.export.export(model, args, dynamic_shapes=zoo.dynamic_shapes(name))
    with_params = from_exported_program(program, keep_params_as_input=True)
    with_consts = from_exported_program(program)
    inputs = [t.detach().numpy().copy() for t in tree_leaves(args)]
    return with_params, with_consts, inputs, expected


def _named(text: str, arrays: list[np.ndarray], what: str) -> dict[str, np.ndarray]:
    """`arrays` keyed by ``main``'s parameter names as printed in `text`."""
    names = metadata_map.main_param_names(text)
    assert len(names) == len(arrays), f"{what}: main has {len(names)} parameters, {len(arrays)} values"
    return dict(zip(names, arrays, strict=True))


def _check_text(
    text: str, mod: tvm.IRModule, table: metadata_map.ConstantTable, npz: dict, weights: list
) -> tvm.IRModule:
    """Check `text`'s references against `table` and TVM's parse of it against `mod`; return the parse."""
    metadata_map.check_text(text, table)
    parsed = tvm_checks.parse_with_metadata(text, npz, weights)
    tvm.ir.assert_structural_equal(parsed, mod)
    return parsed


def _variants(with_params: tvm.IRModule, converted: Converted, conflict: bool) -> None:
    """Add the hinted and (`conflict`) conflict texts to `converted`, checking they keep params.py's constants."""
    base = metadata_map.walk_constants(with_params, converted.texts["params.py"]).objects
    for label, build in (("hinted.py", variants.hinted), ("conflict.py", variants.conflict)):
        mod = build(with_params) if label == "hinted.py" or conflict else None
        if mod is None:
            continue
        text = converted.texts[label] = mod.script()
        table = metadata_map.walk_constants(mod, text)
        same = len(table.objects) == len(base) and all(a.same_as(b) for a, b in zip(table.objects, base, strict=True))
        assert same, f"{label}: its constants differ from params.py's"
        _check_text(text, mod, table, converted.params_npz, converted.weights)


def convert(name: str) -> Converted:
    """Convert model `name`, build its variants and run every check of the module docstring."""
    with_params, with_consts, inputs, expected = _export(name)
    weights = [w.numpy() for w in relax.frontend.detach_params(with_params)[1]["main"]]
    tvm_checks.assert_outputs_match(tvm_checks.run_llvm(with_params, inputs + weights), expected, "params module")
    texts, npz = {}, {}
    for label, mod, values, bound in (
        ("params", with_params, inputs + weights, weights),
        ("consts", with_consts, inputs, []),
    ):
        text = texts[f"{label}.py"] = mod.script()
        table = metadata_map.walk_constants(mod, text)
        npz[label] = _named(text, values, label) | table.arrays()
        parsed = _check_text(text, mod, table, npz[label], bound)
        args = [npz[label][n] for n in metadata_map.main_param_names(text)]
        tvm_checks.assert_outputs_match(tvm_checks.run_llvm(parsed, args), expected, f"parsed {label}.py")
    converted = Converted(texts, npz["params"], npz["consts"], expected, weights)
    # `variants.conflict` drops the symbolic shape of the body's struct info (TVM's parse of its text differs):
    # no conflict.py for a model with symbolic dims.
    onnx_spec = onnx_export.MODELS.get(name)
    _variants(with_params, converted, onnx_spec.conflict if onnx_spec else name not in zoo.DYNAMIC_SHAPES)
    return converted


def write(out: Path, converted: Converted) -> None:
    """Replace `out`'s corpus files with `converted`'s."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in FILES:
        (out / stale).unlink(missing_ok=True)
    for file, text in converted.texts.items():
        (out / file).write_text(text)
    np.savez_compressed(out / "params.npz", **converted.params_npz)
    np.savez_compressed(out / "consts.npz", **converted.consts_npz)
    np.savez_compressed(out / "expected.npz", **{f"output:{i}": a for i, a in enumerate(converted.expected)})


EXAMPLE_MODEL = "mlp"


def write_example(examples: Path, converted: Converted) -> None:
    """The MLP as the frontend printed it, plus one hint a user adds by hand after the first ReLU."""
    text = converted.texts["params.py"]
    match = re.search(r"^( +)(\w+): [^\n]*= R\.nn\.relu\([^\n]*\n", text, flags=re.M)
    if match is None:
        raise RuntimeError("the MLP's printout has no R.nn.relu binding to hint")
    indent, var = match.group(1), match.group(2)
    hint = f"{indent}{var}_gpu = R.hint_on_device({var}, R.device(2, 0))  # the line a user adds\n"
    rest = re.sub(rf"\b{var}\b(?!:)", f"{var}_gpu", text[match.end() :])
    examples.mkdir(parents=True, exist_ok=True)
    (examples / "pytorch_mlp.py").write_text(text[: match.end()] + hint + rest)
    np.savez_compressed(examples / "pytorch_mlp.npz", **converted.params_npz)


def main(argv: list[str] | None = None) -> int:
    models = list(zoo.MODELS) + onnx_export.DEFAULT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "models", help="corpus folder")
    parser.add_argument("--examples", type=Path, default=ROOT / "examples", help="where the README's example goes")
    known = sorted([*zoo.MODELS, *onnx_export.MODELS])
    parser.add_argument("--only", action="append", choices=known, help="only this model (repeatable)")
    opts = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    failed = []
    for name in opts.only or models:
        try:
            converted = convert(name)
        except Exception:  # report the model and go on with the others
            failed.append(name)
            print(f"{name}: FAILED\n{traceback.format_exc()}", file=sys.stderr)
            continue
        write(opts.out / name, converted)
        if name == EXAMPLE_MODEL:
            write_example(opts.examples, converted)
        counts = {k: len(v.splitlines()) for k, v in converted.texts.items()}
        print(f"{name}: ok, {len(converted.params_npz)} arrays in params.npz, lines {counts}")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
