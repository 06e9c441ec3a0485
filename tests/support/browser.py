"""Pages opened in a real browser: headless Chromium (Debian's `chromium`, which `.ci/run` installs).

`open_page` loads a page and returns its DOM after load and every error its
console reported (a script that throws, a resource that fails); `screenshot`
returns the pixel rows of a PNG Chromium took.  Without Chromium the tests
that use them skip, except under CI (``CI`` set), where they fail: CI must
never pass by skipping its browser checks.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.placement.test_diagnostics import _png_pixels

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
requires_chromium = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"), reason="Chromium is not installed (Debian package `chromium`)"
)
_CONSOLE_ERROR = re.compile(r"CONSOLE.*(Uncaught|Error|Failed to load)")


@dataclass
class Loaded:
    dom: str
    errors: list[str]


def _run(page: Path, profile: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    if CHROMIUM is None:
        pytest.fail("Chromium is not installed: .ci/run installs the Debian package `chromium`")
    base = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--user-data-dir={profile}"]
    return subprocess.run([CHROMIUM, *base, *flags, page.as_uri()], capture_output=True, text=True, timeout=180)


def open_page(page: Path, profile: Path) -> Loaded:
    """The DOM of `page` after it loaded, and the console's error lines."""
    proc = _run(page, profile, "--enable-logging=stderr", "--v=0", "--dump-dom")
    errors = [line for line in proc.stderr.splitlines() if _CONSOLE_ERROR.search(line)]
    return Loaded(proc.stdout, errors)


def screenshot(page: Path, profile: Path, width: int = 1200, height: int = 1600) -> list[bytes]:
    """The RGB rows of a screenshot of `page` at `width` x `height`."""
    shot = profile.with_name(profile.name + "-shot.png")
    _run(page, profile, f"--screenshot={shot}", f"--window-size={width},{height}")
    _, _, rows = _png_pixels(shot.read_bytes())
    return rows


def count_colour(rows: list[bytes], hex_colour: str) -> int:
    """Pixels of exactly this colour (``"d94a38"``)."""
    colour = bytes.fromhex(hex_colour)
    return sum(row[i : i + 3] == colour for row in rows for i in range(0, len(row), 3))
