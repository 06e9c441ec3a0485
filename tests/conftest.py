"""Test-wide settings.

Under CI (the `CI` environment variable set), hypothesis draws the same
examples on every run, so a submission's result does not depend on luck;
locally it explores new examples each run and remembers failures.
"""

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="module")
def blas_like_ray_actors():
    """The local VM's BLAS on one thread, as Ray runs an actor of one CPU (Ray sets its OMP_NUM_THREADS): a
    multi-threaded sgemm sums in another order on some CPUs (AMD EPYC, OpenBLAS 0.3.31: float32 results apart
    in their last bits), and the Ray tests compare the actors' results with the local VM's bit for bit."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield
