"""The numpy forward pass against the torch network: same outputs, same file checks, no torch imported."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from safetensors import safe_open
from safetensors.numpy import load_file, save_file

from engine.core.position import Position
from engine.core.rules import Rules
from engine.nn.config import NetConfig, state_shapes
from engine.nn.evaluator import NetEvaluator
from engine.nn.loading import EvaluatorOptions, load_evaluator
from engine.nn.model_file import Model, ModelFormatError, ModelInfo, load_model, save_model
from engine.nn.model_format import METADATA_KEY, read_info, read_weights, weights_checksum
from engine.nn.net import PolicyValueNet
from engine.nn.numpy_evaluator import NumpyEvaluator
from engine.nn.numpy_net import NumpyNet, load_numpy_model
from tests.support.nets import random_net

GOMOKU_PLANES = 4   # gomoku4
AUX = ("ownership", "score")
TOLERANCE = 1e-4


def _model_file(folder: Path, config: NetConfig, name: str = "m") -> Path:
    info = ModelInfo("gomoku", "gomoku4", GOMOKU_PLANES, config)
    return save_model(folder / f"{name}.safetensors", Model(random_net(config), info))


def _both(path: Path, rules: Rules, **options: object) -> tuple[NetEvaluator, NumpyEvaluator]:
    torch_options = EvaluatorOptions(device="cpu", dtype="fp32", runtime="eager", **options)  # type: ignore[arg-type]
    numpy_options = EvaluatorOptions(runtime="numpy", **options)  # type: ignore[arg-type]
    net, numpy = load_evaluator(rules, path, torch_options), load_evaluator(rules, path, numpy_options)
    assert isinstance(net, NetEvaluator) and isinstance(numpy, NumpyEvaluator)
    return net, numpy


def _assert_same_heads(want: tuple, got: tuple) -> None:
    assert len(want) == len(got)
    for expected, actual in zip(want, got):
        if expected is None:
            assert actual is None
            continue
        if expected.dtype == np.bool_:  # an evaluation's proofs (Gomoku's decisive moves)
            np.testing.assert_array_equal(actual, expected)
            continue
        assert actual is not None and actual.dtype == np.float32 and actual.shape == expected.shape
        np.testing.assert_allclose(actual, expected, rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("heads", ["fc", "pooled"])
@pytest.mark.parametrize("aux_heads", [(), AUX])
@pytest.mark.parametrize("size", [5, 9, 15, 19])
def test_numpy_outputs_equal_the_torch_network(tmp_path: Path, heads: str, aux_heads: tuple[str, ...],
                                               size: int) -> None:
    config = NetConfig(2, 16, GOMOKU_PLANES, size if heads == "fc" else None, heads, aux_heads)
    net, numpy = _both(_model_file(tmp_path, config), Rules.gomoku(size), cache_size=0)
    rng = np.random.default_rng(size)
    for batch in (1, 7):
        planes = (rng.random((batch, GOMOKU_PLANES, size, size)) < 0.3).astype(np.uint8)
        _assert_same_heads(net.infer(planes), numpy.infer(planes))
        ks = rng.integers(0, 8, batch)
        _assert_same_heads(net.infer(planes, ks), numpy.infer(planes, ks))


def test_black_value_networks_turn_the_value_to_the_side_to_move(tmp_path: Path) -> None:
    """With ``value_black_plane`` the head gives black's value: the same weights read as a side-to-move network
    give it negated where white is to move (the plane is 0), as torch's forward turns it."""
    config = NetConfig(1, 8, GOMOKU_PLANES, None, "pooled", AUX, value_black_plane=3)
    path = _model_file(tmp_path, config)
    net, numpy = _both(path, Rules.gomoku(9), cache_size=0)
    planes = (np.random.default_rng(0).random((6, GOMOKU_PLANES, 9, 9)) < 0.3).astype(np.uint8)
    planes[:, 3] = np.arange(6)[:, None, None] % 2   # black to move in every other position
    _assert_same_heads(net.infer(planes), numpy.infer(planes))
    black_values = NumpyNet(replace(config, value_black_plane=None), read_weights(path)[2])(planes).value
    np.testing.assert_allclose(numpy.infer(planes).value, black_values * np.where(planes[:, 3, 0, 0], 1, -1),
                               atol=1e-6)
    assert np.all(black_values != 0.0)


def test_evaluate_masks_caches_and_agrees(tmp_path: Path) -> None:
    """The shared evaluate(): legal priors summing to 1, clipped values, a cache hit on the second call, with
    random symmetries drawn from the same seed by both."""
    rules = Rules.gomoku(9)
    config = NetConfig(1, 8, GOMOKU_PLANES, None, "pooled", AUX)
    net, numpy = _both(_model_file(tmp_path, config), rules, random_symmetry=True, seed=3)
    positions = [Position(rules)]
    for action in (40, 41, 31, 50):
        positions.append(positions[-1].copy())
        positions[-1].play_unchecked(action)
    want, got = net.evaluate(positions), numpy.evaluate(positions)
    _assert_same_heads(want, got)
    assert np.all(got.priors[np.stack([p.legal_mask() for p in positions]) == 0] == 0)
    np.testing.assert_allclose(got.priors.sum(axis=1), 1.0, atol=1e-5)
    again = numpy.evaluate(positions)
    assert numpy.hits == len(positions) and np.array_equal(again.priors, got.priors)


@pytest.mark.parametrize("config", [NetConfig(2, 8, 3, 5, "fc", AUX), NetConfig(0, 8, 3, None, "pooled", AUX),
                                    NetConfig(1, 8, 3, None, "pooled"), NetConfig(1, 8, 3, 9, "fc",
                                                                                  value_black_plane=2)],
                         ids=lambda config: config.name + "-" + "-".join(config.aux_heads))
def test_state_shapes_are_the_torch_networks(config: NetConfig) -> None:
    assert state_shapes(config) == {name: tuple(t.shape) for name, t in PolicyValueNet(config).state_dict().items()}


def _errors(path: Path) -> tuple[str, str]:
    """The messages of both loaders' ModelFormatError for ``path``."""
    messages = []
    for load in (load_model, load_numpy_model):
        with pytest.raises(ModelFormatError) as error:
            load(path)
        messages.append(str(error.value))
    return messages[0], messages[1]


def test_a_corrupt_file_gives_both_loaders_the_same_clear_error(tmp_path: Path) -> None:
    path = _model_file(tmp_path, NetConfig(1, 8, GOMOKU_PLANES, None, "pooled"))
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF   # a bit flip in the last tensor's bytes
    corrupt = tmp_path / "corrupt.safetensors"
    corrupt.write_bytes(bytes(data))
    torch_error, numpy_error = _errors(corrupt)
    assert torch_error == numpy_error and "is corrupt: its weights fail their checksum" in numpy_error
    truncated = tmp_path / "truncated.safetensors"
    truncated.write_bytes(bytes(data[:len(data) // 2]))
    torch_error, numpy_error = _errors(truncated)
    assert torch_error == numpy_error and "not a readable safetensors model file" in numpy_error


def test_weights_that_do_not_fit_the_description_give_the_same_error(tmp_path: Path) -> None:
    """A file whose tensors are another network's (its checksum right) is refused by name and shape."""
    small = _model_file(tmp_path, NetConfig(1, 8, GOMOKU_PLANES, None, "pooled"), "small")
    wide = _model_file(tmp_path, NetConfig(1, 16, GOMOKU_PLANES, None, "pooled", ("ownership",)), "wide")
    with safe_open(str(small), framework="numpy") as handle:
        metadata = handle.metadata()
    tensors = load_file(str(wide))
    description = json.loads(metadata[METADATA_KEY])
    description["weights_crc32"] = weights_checksum(tensors)
    mixed = tmp_path / "mixed.safetensors"
    save_file(tensors, str(mixed), metadata={METADATA_KEY: json.dumps(description)})
    assert read_info(mixed).config.filters == 8
    torch_error, numpy_error = _errors(mixed)
    assert torch_error == numpy_error
    assert "do not fit a b1c8-pooled network (unexpected ownership_head.bias" in numpy_error
    assert "stem.0.weight is [16, 4, 3, 3], not [8, 4, 3, 3]" in numpy_error


def test_the_numpy_runtime_imports_no_torch(tmp_path: Path) -> None:
    """Loading a model and evaluating through ``load_evaluator(runtime="numpy")`` in a fresh process."""
    path = _model_file(tmp_path, NetConfig(1, 8, GOMOKU_PLANES, None, "pooled", AUX))
    code = ("import sys; from engine import EvaluatorOptions, Position, Rules, load_evaluator; "
            f"e = load_evaluator(Rules.gomoku(9), {str(path)!r}, EvaluatorOptions(runtime='numpy')); "
            "out = e.evaluate([Position(Rules.gomoku(9))]); assert abs(out.priors.sum() - 1) < 1e-5; "
            "print(type(e).__name__, 'torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["NumpyEvaluator", "False"]


def test_the_numpy_runtime_refuses_a_device_or_bf16(tmp_path: Path) -> None:
    path = _model_file(tmp_path, NetConfig(1, 8, GOMOKU_PLANES, None, "pooled"))
    for options in (EvaluatorOptions(runtime="numpy", device="cuda"), EvaluatorOptions(runtime="numpy", dtype="bf16")):
        with pytest.raises(ValueError, match="numpy runtime runs float32 on the cpu"):
            load_evaluator(Rules.gomoku(9), path, options)
    with pytest.raises(ValueError, match="unknown runtime 'onnx'"):
        load_evaluator(Rules.gomoku(9), path, EvaluatorOptions(runtime="onnx"))
