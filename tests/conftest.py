"""Shared pytest configuration: torch's threads, hypothesis profiles and the ``gnugo_path`` fixture."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

# One torch thread in the test process and the processes it starts, unless the environment asks for more (read
# when torch loads): the tests' networks are tiny, and where other work holds a core, torch's threads wait for each
# other at every layer (a tiny loop's generations took four times as long on two).
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest
from hypothesis import HealthCheck, settings

from training.gtp_client import find_gnugo

TORCH_THREADS = os.environ["OMP_NUM_THREADS"]

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


@pytest.fixture(autouse=True)
def _torch_threads_as_the_suite_runs() -> Iterator[None]:
    """After each test, torch's threads (and the variable the processes it starts read) as the suite began: a
    command run in this process sizes them for a whole machine, and the tests after it would run on that."""
    yield
    os.environ["OMP_NUM_THREADS"] = TORCH_THREADS
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != int(TORCH_THREADS):
        torch.set_num_threads(int(TORCH_THREADS))
