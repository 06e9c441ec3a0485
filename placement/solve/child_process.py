"""A solver call in a child Python that is killed at a hard deadline.

Z3 and HiGHS honour their own time limits cooperatively, and both were seen
running far past them: HiGHS's presolve (minutes past a 20 s limit on a
100k-unit program) and Z3's pseudo-Boolean propagation (``Optimize.check``
on a 1 s limit still running after minutes, deaf to ``Context.interrupt``).
A call that must end by its deadline runs as a script (``python
WORKER.py``, a worker that imports its solver and not vdplace, so it starts
in a fraction of a second): the request goes to its standard input and the
answer comes back on its standard output, both bytes; the child is killed
`GRACE_S` after the deadline and the caller gets None, as for a solver that
found nothing.  The child sees this process's import path (``PYTHONPATH``);
its standard error is discarded.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

GRACE_S = 0.5


def run_by_deadline(worker: Path, request: bytes, deadline: float) -> bytes | None:
    """The standard output of ``python worker`` given `request`, or None.

    None when the child is still running ``GRACE_S`` after `deadline` (`time.time()` seconds; it is
    killed), or when it fails or writes nothing.
    """
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    child = subprocess.Popen(
        _command(worker),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        out, _ = child.communicate(request, timeout=max(0.0, deadline - time.time()) + GRACE_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return None
    if child.returncode != 0 or not out:
        return None
    return out


def _command(worker: Path) -> list[str]:
    return [sys.executable, str(worker)]
