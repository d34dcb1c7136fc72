"""train and validate: losses, schedules, the KL-adaptive rate, TensorBoard, resuming from a checkpoint."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch

from engine.nn.model_file import load_model
from tests.training.conftest import GOMOKU6
from training.chunks import ChunkInfo, Samples, pack_planes
from training.errors import CheckpointError
from training.train import TrainConfig, checkpoint_path, learning_rate, train
from training.validate import validate


def _samples(count: int = 64) -> Samples:
    """Gomoku 6x6 samples with a learnable policy: the target is the first empty point of the top row."""
    from encoders import get_encoder
    from engine.core.game import Game

    encoder = get_encoder("gomoku4", GOMOKU6)
    rng = np.random.default_rng(0)
    planes, policy, value = [], [], []
    for _ in range(count):
        game = Game(GOMOKU6)
        for action in rng.choice(np.arange(6, 36), size=int(rng.integers(0, 6)), replace=False):
            game.play(int(action))
        target = int(rng.integers(0, 6))
        planes.append(encoder.encode(game))
        pi = np.zeros(37, np.float32)
        pi[target] = 1.0
        policy.append(pi)
        value.append(1.0 if game.to_play == 1 else -1.0)
    packed, coding = pack_planes(np.stack(planes))
    info = ChunkInfo("gomoku", 6, "gomoku4", 4, coding, count)
    return Samples(info, packed, np.stack(policy).astype(np.float16), np.asarray(value, np.float32))


def _config(**changes: object) -> TrainConfig:
    base = dict(steps=6, batch_size=8, optimizer="adam", learning_rate=3e-3, checkpoint_every=2, log_every=2)
    base.update(changes)
    return TrainConfig(**base)  # type: ignore[arg-type]


def test_schedules() -> None:
    cosine = _config(steps=100, schedule="cosine", learning_rate=0.1)
    assert learning_rate(cosine, 0) == pytest.approx(0.1)
    assert learning_rate(cosine, 50) == pytest.approx(0.1 * (0.05 + 0.95 * 0.5))
    assert learning_rate(cosine, 100) == pytest.approx(0.005)
    stepped = _config(steps=100, schedule="step", learning_rate=0.1)
    assert [learning_rate(stepped, s) for s in (0, 49, 50, 75)] == pytest.approx([0.1, 0.1, 0.01, 0.001])
    warm = _config(steps=100, schedule="constant", learning_rate=0.1, warmup_steps=10)
    assert learning_rate(warm, 0) == pytest.approx(0.01) and learning_rate(warm, 10) == pytest.approx(0.1)


def test_training_lowers_the_loss_and_logs_scalars(tmp_path: Path, gomoku6_model: Path) -> None:
    samples = _samples()
    model = load_model(gomoku6_model)
    before = validate(model.net, samples)
    result = train(samples, model, tmp_path / "out.safetensors", 1, _config(steps=40, log_every=5),
                   logdir=tmp_path / "tb")
    trained = load_model(tmp_path / "out.safetensors")
    after = validate(trained.net, samples)
    assert after.policy_loss < before.policy_loss - 0.3
    assert 0.0 <= after.top1 <= 1.0 and after.samples == len(samples)
    assert trained.info.generation == 1 and trained.info.training_steps == 40
    assert result.steps == 40 and result.resumed_from == 0
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))
    assert not checkpoint_path(tmp_path / "out.safetensors").exists()


class Interrupted(Exception):
    pass


def _interrupt_at(step: int) -> Callable[[int, dict[str, float]], None]:
    """An ``on_step`` callback that stops the run after ``step`` steps, as a kill would."""
    def on_step(done: int, _metrics: dict[str, float]) -> None:
        if done == step:
            raise Interrupted

    return on_step


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_an_interrupted_run_resumes_to_the_same_weights(tmp_path: Path, gomoku6_model: Path, optimizer: str) -> None:
    samples, config = _samples(), _config(optimizer=optimizer, learning_rate=0.01, kl_target=0.01)
    train(samples, load_model(gomoku6_model), tmp_path / "straight.safetensors", 1, config)
    out = tmp_path / "resumed.safetensors"
    with pytest.raises(Interrupted):
        train(samples, load_model(gomoku6_model), out, 1, config, on_step=_interrupt_at(5))
    assert checkpoint_path(out).exists() and not out.exists()  # written at step 4
    result = train(samples, load_model(gomoku6_model), out, 1, config)
    assert result.resumed_from == 4 and result.steps == 2
    straight = load_model(tmp_path / "straight.safetensors").net.state_dict()
    resumed = load_model(out).net.state_dict()
    for name, tensor in straight.items():
        assert torch.allclose(tensor.float(), resumed[name].float(), atol=1e-6), name


def test_a_checkpoint_of_another_run_is_refused(tmp_path: Path, gomoku6_model: Path) -> None:
    samples, out = _samples(), tmp_path / "out.safetensors"
    with pytest.raises(Interrupted):
        train(samples, load_model(gomoku6_model), out, 1, _config(), on_step=_interrupt_at(3))
    with pytest.raises(CheckpointError, match="steps_total"):
        train(samples, load_model(gomoku6_model), out, 1, _config(steps=10))
    checkpoint_path(out).write_bytes(b"garbage")
    with pytest.raises(CheckpointError, match=checkpoint_path(out).name):
        train(samples, load_model(gomoku6_model), out, 1, _config())


def test_kl_adaptive_rate_moves_the_multiplier(tmp_path: Path, gomoku6_model: Path) -> None:
    samples = _samples()
    calm = train(samples, load_model(gomoku6_model), tmp_path / "a.safetensors", 1,
                 _config(kl_target=10.0, checkpoint_every=0))
    hasty = train(samples, load_model(gomoku6_model), tmp_path / "b.safetensors", 1,
                  _config(kl_target=1e-9, checkpoint_every=0))
    assert calm.lr_multiplier > 1.0 and hasty.lr_multiplier < 1.0
    assert hasty.kl is not None and hasty.kl > 0
