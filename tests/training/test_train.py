"""train and validate: losses, schedules, the KL-adaptive rate, TensorBoard, resuming from a checkpoint."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from engine.nn.model_file import Model, ModelInfo, load_model
from engine.nn.net import NetConfig, PolicyValueNet
from tests.training.conftest import GOMOKU6, write_version1_chunk
from training.chunks import ChunkInfo, Samples, load_samples, pack_ownership, pack_planes
from training.errors import CheckpointError
from training.losses import AUX_TERMS, Batch, batch_losses
from training.models import fresh_value_head
from training.stream import SampleStream
from training.train import TrainConfig, checkpoint_path, draw_batch, learning_rate, train, training_dtype
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
    return Samples(info, packed, np.stack(policy).astype(np.float16), np.asarray(value, np.float32),
                   pack_ownership(np.zeros((count, 36))), np.zeros(count, np.float32), np.zeros(count, bool))


def _go_samples(count: int = 64, size: int = 5, planes_per_stone: bool = False) -> Samples:
    """Random two-plane Go positions (own stones, opponent stones) whose learnable aux targets are
    the stones themselves (ownership +1 own, -1 the opponent's) and the stone difference (score);
    every third sample is masked. The policy target is the first empty point."""
    rng = np.random.default_rng(3)
    stones = rng.choice([-1, 0, 1], p=[0.3, 0.4, 0.3], size=(count, size * size))
    planes = np.stack([stones == 1, stones == -1], axis=1).reshape(count, 2, size, size)
    policy = np.zeros((count, size * size + 1), np.float32)
    policy[np.arange(count), np.argmax(stones == 0, axis=1)] = 1.0
    mask = np.arange(count) % 3 != 0
    ownership = np.where(mask[:, None], stones, 0)
    score = np.where(mask, stones.sum(axis=1), 0).astype(np.float32)
    packed, coding = pack_planes(planes)
    info = ChunkInfo("go", size, "two", 2, coding, count)
    return Samples(info, packed, policy.astype(np.float16), rng.choice([-1.0, 1.0], count).astype(np.float32),
                   pack_ownership(ownership), score, mask)


def _go_model(heads: str = "fc", size: int = 5, aux: tuple[str, ...] = ("ownership", "score")) -> Model:
    config = NetConfig(1, 8, 2, None if heads == "pooled" else size, heads, aux)
    torch.manual_seed(0)
    return Model(PolicyValueNet(config), ModelInfo("go", "two", 2, config))


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


def test_a_dead_value_head_is_reported_and_a_live_one_is_not(tmp_path: Path) -> None:
    samples = _go_samples()
    live = train(samples, _go_model("pooled"), tmp_path / "live.safetensors", 1, _config())
    assert live.value_saturated < 0.5 and "saturated" not in live.describe()
    dead = _go_model("pooled")
    with torch.no_grad():
        dead.net.heads.value_fc[2].bias.fill_(100.0)   # tanh(100) is 1 in float32: no gradient flows back
    result = train(samples, dead, tmp_path / "dead.safetensors", 1, _config())
    assert result.value_saturated == 1.0
    assert "warning: the value head is saturated on 100% of the samples" in result.describe()


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


# ----------------------------------------------------------- ownership and score
def _tensors(samples: Samples, index: np.ndarray) -> Batch:
    return Batch(*(torch.from_numpy(a) for a in samples.batch_at(index)))


@pytest.mark.parametrize("heads", ["fc", "pooled"])
@pytest.mark.parametrize("size", [5, 9, 19])
def test_aux_heads_and_masks_fit_every_board(heads: str, size: int) -> None:
    samples, model = _go_samples(6, size), _go_model(heads, size)
    losses = batch_losses(model.net.train(), _tensors(samples, np.arange(6)))
    out = losses.outputs
    assert out.ownership.shape == (6, size * size) and out.score_mean.shape == out.score_stdev.shape == (6,)
    assert bool((out.score_stdev > 0).all()) and bool((out.ownership.abs() <= 1).all())
    for term in AUX_TERMS:
        value = getattr(losses, term)
        assert value.shape == () and torch.isfinite(value), term
    plain = batch_losses(_go_model(heads, size, aux=()).net, _tensors(samples, np.arange(6)))
    assert all(getattr(plain, term) is None for term in AUX_TERMS)


def test_a_masked_sample_adds_no_aux_loss_nor_gradient() -> None:
    samples, net = _go_samples(6), _go_model().net.eval()
    batch = _tensors(samples, np.arange(6))
    batch = batch._replace(aux_mask=torch.tensor([False, True, True, True, True, True]))
    base = batch_losses(net, batch)
    wild = batch._replace(ownership=batch.ownership.clone(), score=batch.score.clone())
    wild.ownership[0], wild.score[0] = -wild.ownership[0] + 1, 1e4   # anything at all for the masked sample
    changed = batch_losses(net, wild)
    for term in AUX_TERMS:
        assert getattr(changed, term).item() == pytest.approx(getattr(base, term).item(), rel=1e-6), term
    none = batch_losses(net, batch._replace(aux_mask=torch.zeros(6, dtype=torch.bool)))
    assert all(getattr(none, term).item() == 0.0 for term in AUX_TERMS)
    planes = batch.planes.clone().requires_grad_(True)
    losses = batch_losses(net, batch._replace(planes=planes))
    sum(getattr(losses, term) for term in AUX_TERMS).backward()
    assert planes.grad is not None and planes.grad[0].abs().sum() == 0 and planes.grad[1:].abs().sum() > 0


def test_symmetries_turn_the_ownership_with_the_board() -> None:
    samples = SampleStream.from_samples(_go_samples(32))
    planes, policy, _, ownership, _, mask = draw_batch(samples, _config(batch_size=32, seed=5), step=0)
    stones = (planes[:, 0] - planes[:, 1]).reshape(32, -1)   # the target is the stones, turned or not
    assert np.array_equal(ownership[mask], stones[mask]) and not ownership[~mask].any()
    assert np.all(stones[np.arange(32), policy[:, :-1].argmax(axis=1)] == 0), "pi points at an empty point"
    plain = draw_batch(samples, _config(batch_size=32, seed=5, symmetries=False), step=0)
    assert not np.array_equal(plain[3], ownership), "no symmetry was drawn"


def test_aux_heads_learn_and_every_term_is_a_scalar(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    samples, model = _go_samples(), _go_model("pooled")
    before = validate(model.net, samples)
    result = train(samples, model, tmp_path / "out.safetensors", 1, _config(steps=60, log_every=5),
                   logdir=tmp_path / "tb")
    after = validate(load_model(tmp_path / "out.safetensors").net, samples)
    assert set(result.aux_losses) == set(AUX_TERMS) and "ownership" in result.describe()
    assert after.aux_samples == before.aux_samples == int(samples.aux_mask.sum())
    assert after.ownership_accuracy > before.ownership_accuracy + 0.1
    assert after.score_mae < before.score_mae
    assert "score mean absolute error" in after.describe()
    events = EventAccumulator(str(tmp_path / "tb"))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"loss/policy", "loss/value", "loss/l2", "loss/ownership", "loss/score_mean", "loss/score_stdev"} <= tags


def test_the_trained_model_records_the_komi_of_its_games(tmp_path: Path) -> None:
    samples = _go_samples(16)
    at_seven = replace(samples, info=replace(samples.info, komi=7.0))
    train(at_seven, _go_model(), tmp_path / "seven.safetensors", 1, _config(steps=1))
    assert load_model(tmp_path / "seven.safetensors").info.komi == 7.0
    train(samples, _go_model(), tmp_path / "unknown.safetensors", 1, _config(steps=1))
    assert load_model(tmp_path / "unknown.safetensors").info.komi is None


def test_version_1_chunks_still_train_the_policy_and_value(tmp_path: Path) -> None:
    from training.chunks import write_chunk

    new = write_chunk(tmp_path / "new.npz", _go_samples(16))
    old = write_version1_chunk(tmp_path / "chunk-000000.npz", load_samples([new]))
    new.unlink()
    samples = load_samples([tmp_path])
    assert not samples.aux_mask.any()
    result = train(samples, _go_model(), tmp_path / "out.safetensors", 1, _config(steps=4))
    assert result.aux_losses == {"ownership": 0.0, "score_mean": 0.0, "score_stdev": 0.0}
    assert np.isfinite(result.policy_loss) and old.exists()
    checked = validate(load_model(tmp_path / "out.safetensors").net, samples)
    assert checked.score_mae is None and checked.ownership_accuracy is None and checked.aux_samples == 0


def test_the_channels_last_layout_trains_the_same_network(tmp_path: Path) -> None:
    samples = _go_samples()
    trained = {}
    for layout in (True, False):
        model = _go_model("pooled")
        result = train(samples, model, tmp_path / f"{layout}.safetensors", 1, _config(steps=4, channels_last=layout))
        trained[layout] = load_model(tmp_path / f"{layout}.safetensors").net.state_dict()
        assert result.samples_per_s > 0 and "samples/s" in result.describe()
    for name, tensor in trained[True].items():
        assert tensor.is_contiguous(), name
        assert torch.allclose(tensor.float(), trained[False][name].float(), atol=1e-4), name


def test_a_value_head_whose_units_all_died_is_reported(tmp_path: Path) -> None:
    samples = _go_samples()
    model = _go_model("pooled")
    with torch.no_grad():
        model.net.heads.value_fc[0].weight.zero_()
        model.net.heads.value_fc[0].bias.fill_(-10.0)   # no position turns a unit on: no gradient reaches them
    dead = train(samples, model, tmp_path / "dead.safetensors", 1, _config(steps=2))
    assert dead.value_alive == 0.0 and "hidden units are dead" in dead.describe()
    alive = train(samples, _go_model("pooled"), tmp_path / "alive.safetensors", 1, _config(steps=2))
    assert alive.value_alive > 0.5 and "dead" not in alive.describe()


def test_a_fresh_value_head_revives_the_dead_units_and_keeps_the_rest(tmp_path: Path) -> None:
    model = _go_model("pooled")
    with torch.no_grad():
        model.net.heads.value_fc[0].weight.zero_()
        model.net.heads.value_fc[0].bias.fill_(-10.0)
    before = {name: tensor.clone() for name, tensor in model.net.state_dict().items()}
    fresh_value_head(model, seed=3)
    after = model.net.state_dict()
    renewed = {name for name in after if not torch.equal(after[name], before[name])}
    assert renewed == {f"heads.value_fc.{layer}.{kind}" for layer in (0, 2) for kind in ("weight", "bias")}
    revived = train(_go_samples(), model, tmp_path / "revived.safetensors", 1, _config(steps=2))
    assert revived.value_alive > 0.5


def test_bf16_runs_the_passes_in_bf16_and_keeps_the_weights_in_fp32(tmp_path: Path) -> None:
    samples = _go_samples()
    model = _go_model("pooled")
    seen: list[torch.dtype] = []
    model.net.stem.register_forward_hook(lambda _module, _inputs, out: seen.append(out.dtype))
    result = train(samples, model, tmp_path / "bf16.safetensors", 1, _config(dtype="bf16"))
    assert seen[:6] == [torch.bfloat16] * 6   # the six steps; then the fp32 check of the value head's units
    assert np.isfinite(result.policy_loss) and np.isfinite(result.value_loss) and result.dtype == "bf16"
    assert all(p.dtype == torch.float32 for p in load_model(tmp_path / "bf16.safetensors").net.parameters())
    seen.clear()
    model = _go_model("pooled")
    model.net.stem.register_forward_hook(lambda _module, _inputs, out: seen.append(out.dtype))
    result = train(samples, model, tmp_path / "fp32.safetensors", 1, _config(dtype="fp32"))
    assert seen[:6] == [torch.float32] * 6 and result.dtype == "fp32"
    with pytest.raises(ValueError, match="unknown dtype 'int8'"):
        _config(dtype="int8")


def test_auto_is_bf16_where_the_hardware_has_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.nn.evaluator as evaluator

    for native, expected in ((True, "bf16"), (False, "fp32")):
        monkeypatch.setattr(evaluator, "bf16_is_native", lambda native=native: native)
        assert training_dtype(_config(), torch.device("cpu")) == expected
    assert training_dtype(_config(dtype="fp32"), torch.device("cuda")) == "fp32"


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
def test_a_saturated_value_head_is_seen_in_either_arithmetic(tmp_path: Path, dtype: str) -> None:
    dead = _go_model("pooled")
    with torch.no_grad():
        dead.net.heads.value_fc[2].bias.fill_(100.0)   # 0.999 rounds to 1.0 in bf16: compared in fp32
    assert train(_go_samples(), dead, tmp_path / "dead.safetensors", 1, _config(dtype=dtype)).value_saturated == 1.0
