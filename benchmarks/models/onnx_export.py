"""The ONNX half of the corpus: a `zoo_onnx` model through ONNX and TVM 0.27's ONNX frontend.

Needs, besides the frontend environment, ``onnx`` and ``onnxruntime`` (see the
README for the pins).  For model `name`, `export`:

1. exports the eval-mode module with torch's TorchScript-based ONNX exporter
   (``torch.onnx.export(..., dynamo=False)``, opset `OPSET`; the
   ``torch.export``-based one needs ``onnxscript``), the graph inputs named,
   and their dims made symbolic, as the model's `zoo_onnx.Spec` says, and checks the graph with ``onnx.checker``;
2. runs the graph with onnxruntime and checks its outputs against eager
   PyTorch's (rtol 1e-4, atol 1e-5): onnxruntime's are the expected outputs;
3. converts the graph with ``tvm.relax.frontend.onnx.from_onnx``, once with
   ``keep_params_in_input=True`` (initializers as parameters of ``main``) and
   once without (initializers as metadata constants).

`make_corpus` does the rest, as for the PyTorch models.
"""

from __future__ import annotations

import io

import numpy as np
import onnx
import onnxruntime
import torch
import tvm
import tvm_checks
import zoo_onnx
from torch.utils._pytree import tree_leaves
from tvm.relax.frontend.onnx import from_onnx

OPSET = 17
MODELS = zoo_onnx.MODELS
DEFAULT = zoo_onnx.DEFAULT


def to_onnx(name: str) -> tuple[onnx.ModelProto, list[np.ndarray], list[np.ndarray]]:
    """(the checked ONNX graph of model `name`, its inputs, eager PyTorch's outputs flattened depth-first)."""
    model, args = zoo_onnx.build(name)
    spec = MODELS[name]
    with torch.no_grad():
        eager = [t.detach().numpy().copy() for t in tree_leaves(model(*args))]
    buffer = io.BytesIO()
    torch.onnx.export(
        model,
        args,
        buffer,
        dynamo=False,
        opset_version=OPSET,
        input_names=list(spec.inputs),
        do_constant_folding=spec.fold,
        dynamic_axes=spec.dynamic,
    )
    proto = onnx.load_from_string(buffer.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    return proto, [t.detach().numpy().copy() for t in tree_leaves(args)], eager


def run_onnxruntime(proto: onnx.ModelProto, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """`proto` run by onnxruntime's CPU provider on one thread, `inputs` in graph-input order."""
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    assert len(names) == len(inputs), f"the graph has {len(names)} inputs, {len(inputs)} given"
    return [np.asarray(out) for out in session.run(None, dict(zip(names, inputs, strict=True)))]


def export(name: str) -> tuple[tvm.IRModule, tvm.IRModule, list[np.ndarray], list[np.ndarray]]:
    """(keep_params_in_input conversion, constants conversion, inputs, onnxruntime's outputs) of model `name`."""
    proto, inputs, eager = to_onnx(name)
    expected = run_onnxruntime(proto, inputs)
    tvm_checks.assert_outputs_match(expected, eager, "onnxruntime against eager PyTorch")
    return from_onnx(proto, keep_params_in_input=True), from_onnx(proto), inputs, expected
