"""The torch network of KataGo files: masks give a small board inside a larger input the outputs of the small
board alone (as KataGo runs boards smaller than its buffer), and the outputs are post-processed as KataGo's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from engine.nn.katago_format import read_katago_model
from engine.nn.katago_net import KataGoNet, KataGoOutput, postprocess
from tests.support.katago_models import write_katago_model


def _inputs(size: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    spatial = (torch.rand(3, 22, size, size, generator=generator) < 0.3).float()
    spatial[:, 0] = 1.0
    return spatial, torch.randn(3, 19, generator=generator)


@pytest.mark.parametrize(
    "version,blocks,rms_tip",
    [(8, ("ordinary", "gpool"), False), (15, ("gpool", "transformer", "nested"), True), (17, ("transformer",), False)],
)
def test_a_board_inside_a_larger_masked_input_gives_the_same_outputs(
    tmp_path: Path, version: int, blocks: tuple[str, ...], rms_tip: bool
) -> None:
    path = tmp_path / "net.bin"
    write_katago_model(path, version, blocks, rms_tip=rms_tip, seed=version)
    net = KataGoNet(read_katago_model(path))
    spatial, global_ = _inputs(7, seed=1)
    padded = torch.zeros(3, 22, 9, 9)
    padded[:, :, :7, :7] = spatial
    with torch.inference_mode():
        small, large = net(spatial, global_), net(padded, global_)
    on_board = torch.zeros(9, 9, dtype=torch.bool)
    on_board[:7, :7] = True
    points = on_board.reshape(-1)
    torch.testing.assert_close(large.policy[:, :-1][:, points], small.policy[:, :-1], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(large.policy[:, -1], small.policy[:, -1], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(large.value, small.value, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(large.score, small.score, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(large.ownership[:, points], small.ownership, rtol=1e-4, atol=1e-5)
    assert small.policy.shape == (3, 50) and small.score.shape == (3, 6 if version >= 9 else 4)
    # the inputs matter: another position gives other outputs
    with torch.inference_mode():
        other = net(*_inputs(7, seed=2))
    assert not torch.allclose(other.value, small.value)


def test_outputs_are_post_processed_as_katago_does(tmp_path: Path) -> None:
    path = tmp_path / "net.txt"
    write_katago_model(path, 15)
    model = read_katago_model(path)
    out = KataGoOutput(
        policy=torch.zeros(2, 10),
        value=torch.tensor([[1.0, 0.0, 0.5], [2.0, 1.0, 0.0]]),
        score=torch.tensor([[0.1, 0.0, -0.2, 50.0], [0.0, 1.0, 0.3, -1.0]]),
        ownership=torch.tensor([[0.0, 1.0] * 2, [-1.0, 0.5] * 2]),
    )
    result = postprocess(out, model, no_result_possible=np.array([True, False]))
    exp = np.exp([1.0, 0.0, 0.5])
    np.testing.assert_allclose([result.win[0], result.loss[0], result.no_result[0]], exp / exp.sum(), rtol=1e-6)
    assert result.no_result[1] == 0.0
    np.testing.assert_allclose(result.win[1], np.e / (np.e + 1), rtol=1e-6)
    result_chance = 1 - result.no_result[0]
    np.testing.assert_allclose(result.score_mean[0], 0.1 * 20 * result_chance, rtol=1e-5)
    np.testing.assert_allclose(result.lead, [-0.2 * 20 * result_chance, 0.3 * 20], rtol=1e-5)
    np.testing.assert_allclose(result.score_stdev, 20 * np.log1p(np.exp([0.0, 1.0])), rtol=1e-5)
    np.testing.assert_allclose(result.variance_time[0], 50.0 * 40.0, rtol=1e-6)  # softplus(x) = x past 40
    np.testing.assert_allclose(result.ownership, np.tanh(out.ownership.numpy()), rtol=1e-6)
