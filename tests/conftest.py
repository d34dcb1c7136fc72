"""Shared pytest configuration: torch's threads, hypothesis profiles and the ``gnugo_path`` fixture."""

from __future__ import annotations

import os

# One torch thread in the test process and the processes it starts, unless the environment asks for more (read
# when torch loads): the tests' networks are tiny, and where other work holds a core, torch's threads wait for each
# other at every layer (a tiny loop's generations took four times as long on two).
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest
from hypothesis import HealthCheck, settings

from training.gtp_client import find_gnugo

settings.register_profile("ci", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Plain Python (NUMBA_DISABLE_JIT=1) is ~100x slower: fewer examples keep that run short.
settings.register_profile("nojit", max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE",
                                     "nojit" if os.environ.get("NUMBA_DISABLE_JIT") == "1" else "ci"))


@pytest.fixture(scope="session")
def gnugo_path() -> str:
    path = find_gnugo()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("gnugo is required in CI (apt-get install gnugo)")
        pytest.skip("gnugo is not installed (apt-get install gnugo)")
    return path
