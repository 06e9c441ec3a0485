"""Without the ray extra: `vdplace run --ray` and `RayExecutor` fail with one line saying what to install.

Runs only where Ray is not installed (the README's test command); with the
extra, tests/runtime/test_ray.py runs the executor itself.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from vdplace import runtime
from vdplace.cli import main

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="Ray is installed")

MLP = Path(__file__).resolve().parents[2] / "examples" / "mlp_two_devices.py"


def test_run_with_ray_says_to_install_the_extra(capsys):
    assert main(["run", str(MLP), "--ray"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "pip install 'vdplace[ray]'" in err and err.count("\n") == 1


def test_the_executor_class_says_the_same():
    with pytest.raises(runtime.DeviceUnavailable, match=r"vdplace\[ray\]"):
        runtime.RayExecutor  # noqa: B018  (the attribute access is what fails)
