"""A front end's network on the CPU: numpy at once, torch's eager network once loaded where it is the faster,
torch's compiled network once it is ready, and an engine that is ready to move before torch is imported."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.core.rules import Rules
from engine.nn import loading
from engine.nn.evaluator import NetEvaluator
from engine.nn.loading import EvaluatorOptions, load_evaluator
from engine.nn.networks import bundled_model
from engine.nn.numpy_net import load_numpy_model
from engine.nn.staged_evaluator import StagedEvaluator
from tests.engine.nn.compile_fakes import FakeChild, Recorded
from tests.engine.nn.test_evaluator import TwoPlanes, _positions
from tests.engine.nn.test_precompiled import _model


def _staged(path: Path) -> StagedEvaluator:
    return StagedEvaluator(load_numpy_model(path), TwoPlanes(), path, device="cpu", dtype="fp32", cache_size=0)


def test_moves_run_on_numpy_until_torch_has_the_compiled_network(tmp_path: Path, fake_compiles: Recorded) -> None:
    evaluator = _staged(_model(tmp_path))
    on5 = _positions(Rules.go(5, "japanese"), 3)
    before = evaluator.evaluate(on5)
    assert evaluator.runtime == "numpy" and FakeChild.started == []
    evaluator.compile_ahead(5)
    assert evaluator.wait_for_torch(timeout=60), "the torch network loaded in the background"
    assert len(FakeChild.started) == 1, "torch's network has the board size compiled ahead of time"
    loaded = evaluator.evaluate(on5)
    assert fake_compiles.sizes == [] and evaluator.compiled_sizes == frozenset(), "numpy until the package is there"
    FakeChild.last.finish()
    after = evaluator.evaluate(on5)
    assert fake_compiles.sizes == [5] and evaluator.compiled_sizes == {5}
    assert evaluator.runtime == "numpy, then torch compile"
    for evaluation in (loaded, after):
        np.testing.assert_allclose(evaluation.priors, before.priors, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(evaluation.values, before.values, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("numpy_seconds,torch_seconds,on_torch", [(0.05, 0.0, True), (0.0, 0.05, False)])
def test_until_the_compiled_network_is_there_the_faster_of_eager_torch_and_numpy_plays(
        tmp_path: Path, fake_compiles: Recorded, monkeypatch: pytest.MonkeyPatch, numpy_seconds: float,
        torch_seconds: float, on_torch: bool) -> None:
    import time

    evaluator = _staged(_model(tmp_path))
    evaluator.compile_ahead(5)
    assert evaluator.wait_for_torch(timeout=60)
    calls = {"numpy": 0, "torch": 0}
    numpy_net, torch_infer = evaluator.net, evaluator._torch.infer

    def timed(name: str, seconds: float, inner: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            calls[name] += 1
            time.sleep(seconds)
            return inner(*args)
        return run

    monkeypatch.setattr(evaluator, "net", timed("numpy", numpy_seconds, numpy_net))
    monkeypatch.setattr(evaluator._torch, "infer", timed("torch", torch_seconds, torch_infer))
    on5 = _positions(Rules.go(5, "japanese"), 3)
    first = evaluator.evaluate(on5)   # timed: torch twice (the first sets up its kernels), numpy once
    assert calls == {"numpy": 1, "torch": 2}
    evaluator.clear_cache()
    evaluator.evaluate(on5)
    assert calls == {"numpy": 1 + (not on_torch), "torch": 2 + on_torch}   # decided: no timing again
    assert evaluator.compiled_sizes == frozenset() and fake_compiles.sizes == []
    FakeChild.last.finish()
    evaluator.clear_cache()
    compiled = evaluator.evaluate(on5)
    assert calls["torch"] == 3 + on_torch and evaluator.compiled_sizes == {5}   # compiled: torch, always
    np.testing.assert_allclose(compiled.priors, first.priors, rtol=1e-4, atol=1e-6)


def test_a_size_asked_for_after_torch_loaded_is_compiled_too(tmp_path: Path, fake_compiles: Recorded) -> None:
    evaluator = _staged(_model(tmp_path))
    evaluator.compile_ahead(5)
    evaluator.wait_for_torch(timeout=60)
    evaluator.compile_ahead(7)
    assert [command[4] for command in FakeChild.started] == ["5", "7"]   # MODEL SIZE PACKAGE DTYPE


def test_a_front_end_on_a_machine_without_a_gpu_stages_its_network(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = Rules.go(9)
    path = bundled_model(rules)
    monkeypatch.setattr(loading, "_accelerator_present", lambda: False)
    assert isinstance(load_evaluator(rules, path, EvaluatorOptions(ahead_of_time=True)), StagedEvaluator)
    for options in (EvaluatorOptions(), EvaluatorOptions(ahead_of_time=True, runtime="eager"),
                    EvaluatorOptions(ahead_of_time=True, dtype="bf16")):
        assert isinstance(load_evaluator(rules, path, options), NetEvaluator), options
    monkeypatch.setattr(loading, "_accelerator_present", lambda: True)
    assert isinstance(load_evaluator(rules, path, EvaluatorOptions(ahead_of_time=True)), NetEvaluator)


_READY_WITHOUT_TORCH = """
import sys
from engine.nn import loading
loading._accelerator_present = lambda: False
from gtp.state import EngineState, FrontEndConfig
state = EngineState(FrontEndConfig(bundled=True, size=9))
state.start(background=False)
state.wait_ready()
print(type(state.player.evaluator).__name__, "torch" in sys.modules)
"""


def test_the_engine_is_ready_to_move_before_torch_is_imported(tmp_path: Path) -> None:
    """Importing torch takes seconds: a front end's first move must not wait for it."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    answer = subprocess.run([sys.executable, "-c", _READY_WITHOUT_TORCH], env=env, capture_output=True, text=True,
                            check=True, timeout=600).stdout.split()
    assert answer == ["StagedEvaluator", "False"]
