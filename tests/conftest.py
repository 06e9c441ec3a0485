"""Test-wide settings.

Under CI (the `CI` environment variable set), hypothesis draws the same
examples on every run, so a submission's result does not depend on luck;
locally it explores new examples each run and remembers failures.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
