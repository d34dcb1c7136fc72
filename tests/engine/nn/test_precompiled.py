"""The network compiled ahead of time: evaluations never wait for the compile, switch when its package is there,
and a package plays as the eager network does."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from engine.core.rules import Rules
from engine.nn.aot_package import compiles_in_progress, package_path
from engine.nn.config import NetOutput
from engine.nn.evaluator import NetEvaluator
from engine.nn.model_file import Model, ModelInfo, load_model, save_model
from engine.nn.net import NetConfig, PolicyValueNet
from engine.nn.precompiled import load_package
from tests.engine.nn.compile_fakes import FakeChild, Recorded
from tests.engine.nn.test_evaluator import AUX, TwoPlanes, _positions


def _model(tmp_path: Path, seed: int = 0) -> Path:
    """A size-independent two-plane network with every head, saved as a model file."""
    torch.manual_seed(seed)
    config = NetConfig(1, 8, 2, None, "pooled", AUX)
    model = Model(PolicyValueNet(config), ModelInfo("go", "two", 2, config))
    return save_model(tmp_path / f"net{seed}.safetensors", model)


def _ahead(path: Path, **options: object) -> NetEvaluator:
    options = {"dtype": "fp32", **options}
    return NetEvaluator(load_model(path), TwoPlanes(), device="cpu", runtime="compile", cache_size=0,
                        ahead_of_time=True, **options)  # type: ignore[arg-type]


def test_moves_run_eagerly_until_the_package_is_made_then_compiled(tmp_path: Path, fake_compiles: Recorded) -> None:
    evaluator = _ahead(_model(tmp_path))
    on5, on7 = _positions(Rules.go(5, "japanese"), 3), _positions(Rules.go(7, "japanese"), 3)
    before = evaluator.evaluate(on5)
    evaluator.compile_ahead(5)
    evaluator.compile_ahead(5)
    assert len(FakeChild.started) == 1, "one compile per board size"
    assert FakeChild.started[0][1:3] == ["-m", "engine.nn.aot_package"]
    evaluator.evaluate(on5)
    assert fake_compiles.sizes == [] and evaluator.compiled_sizes == frozenset(), "nothing waited for the compile"
    FakeChild.last.finish()
    after = evaluator.evaluate(on5)
    evaluator.evaluate(on7)
    assert fake_compiles.sizes == [5] and evaluator.compiled_sizes == {5}, "5x5 compiled, 7x7 still eager"
    np.testing.assert_allclose(after.priors, before.priors, rtol=1e-5, atol=1e-7)


def test_a_package_in_the_cache_plays_from_the_first_evaluation(tmp_path: Path, fake_compiles: Recorded) -> None:
    path = _model(tmp_path)
    evaluator = _ahead(path)
    package = package_path(evaluator.net, 5)
    package.parent.mkdir(parents=True)
    package.write_bytes(b"a package")
    evaluator.evaluate(_positions(Rules.go(5, "japanese"), 2))
    evaluator.compile_ahead(5)
    assert fake_compiles.sizes == [5] and FakeChild.started == []
    assert package_path(_ahead(_model(tmp_path, seed=1)).net, 5) != package, "other weights, another package"
    assert package_path(evaluator.net, 7) != package


def test_a_failed_compile_leaves_the_eager_network_and_is_not_tried_again(
        tmp_path: Path, fake_compiles: Recorded, caplog: pytest.LogCaptureFixture) -> None:
    path = _model(tmp_path)
    evaluator = _ahead(path)
    evaluator.compile_ahead(5)
    FakeChild.last.finish(succeeded=False)
    with caplog.at_level(logging.WARNING):
        evaluator.evaluate(_positions(Rules.go(5, "japanese"), 2))
    assert "compiling the network for 5x5 failed" in caplog.text and fake_compiles.sizes == []
    _ahead(path).compile_ahead(5)
    assert len(FakeChild.started) == 1


def test_fp32_and_bf16_cpu_networks_from_a_file_compile_ahead_each_to_its_package(
        tmp_path: Path, fake_compiles: Recorded) -> None:
    path = _model(tmp_path)
    assert "runtime=compile ahead of time" in repr(_ahead(path))
    bf16 = _ahead(path, dtype="bf16")
    bf16.compile_ahead(5)
    assert FakeChild.started[-1][6] == "bf16" and "-5x5-bf16-" in FakeChild.started[-1][5]
    assert package_path(bf16.net, 5, dtype="bf16") != package_path(bf16.net, 5), "one package per arithmetic"
    bare = NetEvaluator(PolicyValueNet(NetConfig(1, 8, 2, 5)), TwoPlanes(), device="cpu", dtype="fp32",
                        runtime="compile", ahead_of_time=True)
    int8 = NetEvaluator(load_model(path), TwoPlanes(), device="cpu", dtype="int8", runtime="eager",
                        ahead_of_time=True, calibration=np.zeros((4, 2, 5, 5), np.float32))
    for evaluator in (bare, int8):
        evaluator.compile_ahead(5)
        assert evaluator.runtime == "eager"
    assert len(FakeChild.started) == 1
    with pytest.raises(ValueError, match="not int8"):
        package_path(bf16.net, 5, dtype="int8")


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize(("dtype", "tolerance"), [("fp32", 1e-5), ("bf16", 0.05)])
def test_the_compile_process_makes_a_package_that_plays_as_the_eager_network(tmp_path: Path, dtype: str,
                                                                             tolerance: float) -> None:
    """The real thing: the child process exports and compiles (a minute on a busy machine), the package loads and
    gives the eager network's outputs (bf16: to bf16's precision) for batches of 1 and more; a model that is not
    the one the package's name says fails and leaves the mark that stops further tries."""
    path = _model(tmp_path)
    net = load_model(path).net.for_inference()
    package = package_path(net, 5, tmp_path / "compiled", dtype)
    package.parent.mkdir()
    child = [sys.executable, "-m", "engine.nn.aot_package"]
    done = subprocess.run([*child, str(path), "5", str(package), dtype], capture_output=True, timeout=580)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    assert compiles_in_progress(package.parent) == []
    forward = load_package(package, net)
    for batch in (1, 4):
        planes = (torch.rand(batch, 2, 5, 5) < 0.3).float()
        with torch.inference_mode():
            want, got = net(planes), forward(planes)
        for field, a, b in zip(NetOutput._fields, got, want):
            assert (a is None) == (b is None), field
            if a is not None:
                assert a.dtype == torch.float32, field
                np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=10 * tolerance, atol=tolerance, err_msg=field)
    other = package.with_name(package.name.replace("5x5", "7x7"))
    failed = subprocess.run([*child, str(path), "7", str(other), dtype], capture_output=True, timeout=300)
    assert failed.returncode == 1 and other.with_suffix(".failed").is_file() and not other.exists()
    assert b"is not the network" in failed.stderr
