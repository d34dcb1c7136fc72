"""The int8 tower (``--dtype int8``): close to float32 on positions a trained network reaches, refused where
it cannot run."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from encoders.registry import get_encoder
from engine.core.game import Game
from engine.core.position import Position
from engine.core.rules import Rules
from engine.nn.evaluator import NetEvaluator
from engine.nn.int8 import calibration_planes, int8_available
from engine.nn.model_file import load_model
from engine.nn.net import NetConfig, PolicyValueNet
from engine.nn.networks import bundled_model

pytestmark = pytest.mark.skipif(int8_available() is not None, reason=f"int8: {int8_available()}")

RULES = Rules.go(9, komi=7)


def _policy_play(evaluator: NetEvaluator, games: int = 6, moves: int = 50, seed: int = 0) -> list[Position]:
    """Positions of games the network plays against itself from its raw policy (sampled, so the games
    differ): the positions it meets in play, unlike the random ones int8 is calibrated on."""
    rng = np.random.default_rng(seed)
    boards = [Game(RULES) for _ in range(games)]
    seen: list[Position] = []
    for _ in range(moves):
        live = [game for game in boards if not game.is_over]
        if not live:
            break
        seen += [game.position.copy() for game in live]   # a Game updates its position in place
        priors = evaluator.evaluate([game.position for game in live]).priors
        for game, row in zip(live, priors):
            game.play(int(rng.choice(len(row), p=row / row.sum())))
    return seen


@pytest.fixture(scope="module")
def networks() -> tuple[NetEvaluator, NetEvaluator, NetEvaluator, list[Position]]:
    path = bundled_model(RULES)
    assert path is not None
    model = load_model(path)
    encoder = get_encoder(model.info.encoder, RULES, model.info.num_planes)
    fp32, bf16, int8 = (NetEvaluator(model, encoder, device="cpu", runtime="eager", dtype=dtype, cache_size=0)
                        for dtype in ("fp32", "bf16", "int8"))
    return fp32, bf16, int8, _policy_play(fp32)


def _errors(reference: NetEvaluator, other: NetEvaluator, positions: list[Position]) -> tuple[float, float, float]:
    """Mean policy KL(reference || other), mean |value difference|, share of equal top moves."""
    want, got = reference.evaluate(positions), other.evaluate(positions)
    p, q = want.priors.astype(np.float64) + 1e-12, got.priors.astype(np.float64) + 1e-12
    kl = float(np.mean(np.sum(want.priors * (np.log(p) - np.log(q)), axis=1)))
    return kl, float(np.mean(np.abs(want.values - got.values))), float(np.mean(
        want.priors.argmax(1) == got.priors.argmax(1)))


def test_int8_stays_close_to_float32_on_the_positions_of_play(networks) -> None:
    fp32, bf16, int8, positions = networks
    assert len(positions) >= 200
    kl, value_error, same_top = _errors(fp32, int8, positions)
    bf16_kl, bf16_value_error, _ = _errors(fp32, bf16, positions)
    # measured: KL ~1e-3 (bf16 ~7e-5), |dv| ~0.008 (bf16 ~0.0035), the top move 98% the same (bf16 99.6%)
    assert kl < 5e-3 and value_error < 0.025 and same_top > 0.9, (kl, value_error, same_top)
    assert kl > bf16_kl and value_error > 0.5 * bf16_value_error   # it is quantized, not silently float
    assert int8.dtype_name == "int8" and int8.runtime == "eager"


def test_int8_gives_every_head_and_the_same_answer_twice(networks) -> None:
    _, _, int8, positions = networks
    first, second = int8.evaluate(positions[:20]), int8.evaluate(positions[:20])
    np.testing.assert_array_equal(first.priors, second.priors)
    assert first.ownership is not None and first.score_mean is not None   # the bundled net has aux heads
    np.testing.assert_allclose(first.priors.sum(1), 1, atol=1e-5)


def test_calibration_runs_from_the_empty_board_to_a_crowded_one() -> None:
    encoder = get_encoder("zero17", RULES)
    planes = calibration_planes(RULES, encoder, games=5)
    stones = planes[:, :2].sum(axis=(1, 2, 3))   # own and opponent stones on the current board
    assert planes.shape == (5, encoder.num_planes, 9, 9)
    assert stones[0] == 0 and stones[-1] > 40 and np.all(np.diff(stones) > 0), stones


def test_int8_is_refused_where_it_cannot_run() -> None:
    torch.manual_seed(0)
    net = PolicyValueNet(NetConfig(1, 8, 17, 9))
    encoder = get_encoder("zero17", RULES)
    with pytest.raises(ValueError, match="int8 runs eagerly on the cpu"):
        NetEvaluator(net, encoder, device="cpu", dtype="int8", runtime="compile")
    with pytest.raises(ValueError, match="int8 runs eagerly on the cpu"):
        NetEvaluator(net, encoder, device="meta", dtype="int8", runtime="eager")

    class NoRules:
        name, num_planes = "stand-in", 17

    with pytest.raises(ValueError, match="needs calibration planes"):
        NetEvaluator(net, NoRules(), device="cpu", dtype="int8", runtime="eager")  # type: ignore[arg-type]
