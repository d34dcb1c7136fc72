"""The training set's draw order: every sample once a pass, a bounded window of chunks in memory, the same
batches at any step however the run got there, bad chunks refused before training."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import torch
from click.testing import CliRunner

from engine.nn.model_file import Model, ModelInfo, load_model
from engine.nn.net import NetConfig, PolicyValueNet
from training.chunks import (
    ChunkInfo,
    Samples,
    check_chunks,
    load_samples,
    pack_ownership,
    pack_planes,
    read_chunks,
    write_chunk,
)
from training.errors import ChunkFormatError
from training.stream import SampleStream
from training.train import TrainConfig, checkpoint_path, draw_batch, train

SIZES = (9, 5, 12, 7, 11, 6, 10, 8)   # 68 samples in 8 chunks of unequal sizes


def _samples(ids: np.ndarray, encoder: str = "two") -> Samples:
    """Go 5x5 samples whose score is their id (any number identifies a sample after the draw)."""
    rng = np.random.default_rng(int(ids[0]) if len(ids) else 0)
    count = len(ids)
    stones = rng.choice([-1, 0, 1], size=(count, 25))
    packed, coding = pack_planes(np.stack([stones == 1, stones == -1], axis=1).reshape(count, 2, 5, 5))
    policy = np.zeros((count, 26), np.float16)
    policy[np.arange(count), np.argmax(stones == 0, axis=1)] = 1
    info = ChunkInfo("go", 5, encoder, 2, coding, count)
    return Samples(info, packed, policy, rng.choice([-1.0, 1.0], count).astype(np.float32), pack_ownership(stones),
                   ids.astype(np.float32), np.ones(count, bool))


def _chunk_set(folder: Path, sizes: Sequence[int] = SIZES) -> Path:
    """Chunks of ``sizes`` samples whose ids run 0, 1, 2, ... across the files in list order."""
    folder.mkdir()
    bounds = np.cumsum([0, *sizes])
    for index, (low, high) in enumerate(zip(bounds[:-1], bounds[1:])):
        write_chunk(folder / f"chunk-{index:06d}.npz", _samples(np.arange(low, high)))
    return folder


def _ids(stream: SampleStream, seed: int, start: int, count: int) -> np.ndarray:
    return stream.batch_at(seed, start, count)[4].astype(int)


def test_a_streamed_pass_sees_every_sample_once_mixing_chunks_within_the_bound(tmp_path: Path) -> None:
    stream = SampleStream.from_chunks([_chunk_set(tmp_path / "set")], memory_samples=30)
    assert not stream.resident and stream.window_samples == 15 and len(stream) == 68
    passes = [_ids(stream, 4, p * 68, 68) for p in range(3)]
    for seen in passes:
        assert sorted(seen) == list(range(68))
    assert not np.array_equal(passes[0], passes[1]), "each pass has its own order"
    chunk_of = np.repeat(np.arange(len(SIZES)), SIZES)
    first_window = chunk_of[passes[0][:12]]
    assert len(set(first_window)) >= 2, "a batch mixes the samples of the chunks of its window"
    assert len(stream._windows) <= 2   # the window drawn from and the next


def test_no_window_holds_more_than_half_the_bound_and_the_next_is_read_ahead(tmp_path: Path) -> None:
    base = SampleStream.from_chunks([_chunk_set(tmp_path / "set")], memory_samples=30)
    reads: list[int] = []

    def read(indices: Sequence[int]) -> Samples:
        reads.append(sum(SIZES[i] for i in indices))
        return base._read(indices)

    stream = SampleStream(base.info, SIZES, read, 30)
    for start in range(0, 2 * 68, 8):
        stream.batch_at(0, start, 8)
    assert reads and max(reads) <= 15
    assert sum(reads) >= 2 * 68, "every pass reads every chunk again"
    assert len(stream._windows) == 2   # the window drawn from and the next, read ahead


def test_the_draw_is_the_same_however_it_is_reached(tmp_path: Path) -> None:
    folder = _chunk_set(tmp_path / "set")
    walked = SampleStream.from_chunks([folder], memory_samples=30)
    sequence = np.concatenate([_ids(walked, 9, start, 8) for start in range(0, 160, 8)])
    fresh = SampleStream.from_chunks([folder], memory_samples=30)
    assert np.array_equal(_ids(fresh, 9, 100, 40), sequence[100:140])   # across windows and passes at once
    assert np.array_equal(_ids(fresh, 9, 3, 5), sequence[3:8])
    assert not np.array_equal(_ids(fresh, 10, 0, 68), sequence[:68]), "another seed, another order"


def test_a_set_within_the_bound_is_read_once_and_shuffled_anew_each_pass(tmp_path: Path) -> None:
    base = SampleStream.from_chunks([_chunk_set(tmp_path / "set")])
    calls: list[Sequence[int]] = []

    def read(indices: Sequence[int]) -> Samples:
        calls.append(indices)
        return base._read(indices)

    stream = SampleStream(base.info, SIZES, read, 68)
    passes = [_ids(stream, 1, p * 68, 68) for p in range(3)]
    assert stream.resident and len(calls) == 1 and len(calls[0]) == len(SIZES)
    assert all(sorted(seen) == list(range(68)) for seen in passes)
    assert not np.array_equal(passes[0], passes[2])
    assert sorted(_ids(stream, 1, 60, 20)) == sorted([*passes[0][60:], *passes[1][:12]])


def test_a_bound_below_two_chunks_and_an_empty_set_are_refused(tmp_path: Path) -> None:
    folder = _chunk_set(tmp_path / "set")
    with pytest.raises(ValueError, match="cannot stream chunks of 12 samples.*give at least 24"):
        SampleStream.from_chunks([folder], memory_samples=20)
    with pytest.raises(ChunkFormatError, match="no samples"):
        SampleStream(_samples(np.arange(1)).info, [0, 0], lambda _indices: _samples(np.arange(0)), 10)


def test_a_chunk_of_another_encoder_or_a_truncated_one_is_refused_before_training(tmp_path: Path) -> None:
    folder = _chunk_set(tmp_path / "set")
    stranger = write_chunk(folder / "chunk-000099.npz", _samples(np.arange(100, 104), encoder="other"))
    with pytest.raises(ChunkFormatError, match=f"{stranger}.*encoder other"):
        SampleStream.from_chunks([folder], memory_samples=30)
    stranger.write_bytes(stranger.read_bytes()[:300])
    with pytest.raises(ChunkFormatError, match=str(stranger)):
        SampleStream.from_chunks([folder], memory_samples=30)


def test_a_chunk_whose_data_is_bad_is_named_by_the_draw_that_reads_it(tmp_path: Path) -> None:
    folder = _chunk_set(tmp_path / "set")
    bad = folder / "chunk-000003.npz"
    samples = load_samples([bad])
    samples.policy[0, 0] = np.nan   # the headers are sound: only reading the data finds it
    write_chunk(bad, samples)
    stream = SampleStream.from_chunks([folder], memory_samples=30)
    with pytest.raises(ChunkFormatError, match=f"{bad} is corrupt: policy"):
        for start in range(0, 68, 8):
            stream.batch_at(0, start, 8)


def test_reading_chunks_together_keeps_their_order(tmp_path: Path) -> None:
    folder = _chunk_set(tmp_path / "set")
    files = sorted(folder.glob("*.npz"))
    together = read_chunks([files[4], files[1]], check_chunks([files[4], files[1]]))
    assert list(together.score.astype(int)) == list(range(33, 44)) + list(range(9, 14))
    assert list(load_samples([folder]).score.astype(int)) == list(range(68))


def test_data_parallel_ranks_draw_consecutive_batches_of_one_order(tmp_path: Path) -> None:
    stream = SampleStream.from_chunks([_chunk_set(tmp_path / "set")], memory_samples=30)
    config = TrainConfig(batch_size=6, symmetries=False, seed=2)
    for step in (0, 5, 11):
        ranks = [draw_batch(stream, config, step, rank, 2)[4] for rank in range(2)]
        assert np.array_equal(np.concatenate(ranks), stream.batch_at(2, step * 12, 12)[4])
    alone = draw_batch(stream, config, 3)[4]
    assert np.array_equal(alone, stream.batch_at(2, 18, 6)[4])


# -------------------------------------------------------------------- training
def _model() -> Model:
    config = NetConfig(1, 8, 2, 5, "fc", ("ownership", "score"))
    torch.manual_seed(0)
    return Model(PolicyValueNet(config), ModelInfo("go", "two", 2, config))


class Interrupted(Exception):
    pass


def test_a_streamed_run_stopped_and_resumed_ends_with_the_weights_of_one_run(tmp_path: Path) -> None:
    folder = _chunk_set(tmp_path / "set")
    config = TrainConfig(steps=12, batch_size=8, optimizer="adam", learning_rate=3e-3, checkpoint_every=3)
    straight = train(SampleStream.from_chunks([folder], memory_samples=30), _model(), tmp_path / "a.safetensors", 1,
                     config)
    assert straight.passes == pytest.approx(12 * 8 / 68) and "1.41 passes" in straight.describe()
    out = tmp_path / "b.safetensors"

    def stop(done: int, metrics: dict[str, float]) -> None:
        assert metrics["passes"] == pytest.approx(done * 8 / 68)
        if done == 7:
            raise Interrupted

    with pytest.raises(Interrupted):
        train(SampleStream.from_chunks([folder], memory_samples=30), _model(), out, 1, config, on_step=stop)
    assert checkpoint_path(out).exists()
    resumed = train(SampleStream.from_chunks([folder], memory_samples=30), _model(), out, 1, config)
    assert resumed.resumed_from == 6 and resumed.steps == 6 and resumed.passes == pytest.approx(straight.passes)
    one, two = load_model(tmp_path / "a.safetensors").net.state_dict(), load_model(out).net.state_dict()
    for name, tensor in one.items():
        assert torch.allclose(tensor.float(), two[name].float(), atol=1e-6), name


def test_a_checkpoint_of_another_draw_order_is_refused(tmp_path: Path) -> None:
    from training.errors import CheckpointError

    folder = _chunk_set(tmp_path / "set")
    config = TrainConfig(steps=6, batch_size=8, checkpoint_every=2)
    out = tmp_path / "out.safetensors"

    def stop(done: int, _metrics: dict[str, float]) -> None:
        if done == 3:
            raise Interrupted

    with pytest.raises(Interrupted):
        train(SampleStream.from_chunks([folder], memory_samples=30), _model(), out, 1, config, on_step=stop)
    with pytest.raises(CheckpointError, match="draw"):
        train(SampleStream.from_chunks([folder], memory_samples=40), _model(), out, 1, config)


def test_the_train_command_streams_a_set_larger_than_its_bound(tmp_path: Path) -> None:
    from engine.cli import main

    folder = _chunk_set(tmp_path / "set")
    args = ["train", str(folder), str(tmp_path / "m1.safetensors"), "--blocks", "1", "--filters", "8",
            "--steps", "17", "--batch-size", "8", "--threads", "1", "--json"]
    result = CliRunner().invoke(main, [*args, "--memory-samples", "30"])
    assert result.exit_code == 0, result.output
    assert "streamed in windows of up to 15 samples" in result.stderr
    assert json.loads(result.stdout)["passes"] == pytest.approx(2.0)
    refused = CliRunner().invoke(main, [*args, "--memory-samples", "10"])
    assert refused.exit_code != 0 and "give at least 24" in refused.output
