"""Game records and chunks: round trips, bit packing, atomic writes, and clear errors for bad files."""

from __future__ import annotations

import gzip
import json
import os
import re
import stat
from pathlib import Path

import numpy as np
import pytest

from engine.atomic import atomic_path, write_text
from engine.core.types import Color, Outcome
from tests.training.conftest import GO5, GOMOKU6, write_version1_chunk
from training.chunks import (
    ChunkInfo,
    Samples,
    load_samples,
    pack_ownership,
    pack_planes,
    read_chunk,
    read_chunk_info,
    shared_komi,
    unpack_planes,
    write_chunk,
)
from training.errors import ChunkFormatError, RecordFormatError
from training.records import SelfPlayRecord, list_records, read_record, write_record
from training.territory import FinalBoard


def _record(**changes: object) -> SelfPlayRecord:
    fields = dict(rules=GOMOKU6, model="000003-b1c8", actions=(14, 21, 15), targets=(True, False, True),
                  policy=(((14, 10), (20, 5)), None, ((15, 7),)), values=(0.1, -0.2, 0.3),
                  result=Outcome(Color.BLACK, None, "five"), resign_disabled=True, would_resign="W",
                  readouts=16, cheap_readouts=2)
    fields.update(changes)
    return SelfPlayRecord(**fields)  # type: ignore[arg-type]


def test_record_round_trip(tmp_path: Path) -> None:
    record = _record()
    path = write_record(tmp_path, record)
    assert list_records(tmp_path) == [path]
    again = read_record(path)
    assert again.to_dict() == record.to_dict()
    assert again.rules == GOMOKU6 and again.result == record.result


def test_record_rejects_inconsistent_lengths() -> None:
    with pytest.raises(ValueError, match="3 actions but 2 target flags"):
        _record(targets=(True, False))
    with pytest.raises(ValueError, match="policy target needs its policy"):
        _record(policy=(None, None, ((15, 7),)))


def test_truncated_record_is_rejected_naming_the_file(tmp_path: Path) -> None:
    path = write_record(tmp_path, _record())
    path.write_bytes(path.read_bytes()[:-12])
    with pytest.raises(RecordFormatError, match=path.name):
        read_record(path)


def test_record_of_another_version_is_rejected(tmp_path: Path) -> None:
    data = _record().to_dict()
    data["format_version"] = 99
    path = tmp_path / "future.game.json.gz"
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(RecordFormatError, match="future.game.json.gz.*version 99"):
        read_record(path)


def test_policy_weights_keep_integer_counts_and_probabilities(tmp_path: Path) -> None:
    record = _record(policy=(((14, 0.6251234567), (20, 0.3748765433)), None, ((15, 7.0),)))
    data = record.to_dict()
    assert data["policy"] == [[[14, 0.625123], [20, 0.374877]], None, [[15, 7]]]
    assert read_record(write_record(tmp_path, record)).policy[0] == ((14, 0.625123), (20, 0.374877))
    data["policy"][2] = [[15, -1]]
    path = tmp_path / "negative.game.json.gz"
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(RecordFormatError, match="negative"):
        read_record(path)


def _older(data: dict, version: int) -> dict:
    """A version 3 record's dict as version 2 wrote it (integer ``visits``), or version 1 (no ``final``)."""
    data = dict(data, format_version=version, visits=data.pop("policy"))
    if version == 1:
        del data["final"]
    return data


def test_version_2_records_read_their_visit_counts(tmp_path: Path) -> None:
    record = _record()
    path = tmp_path / "v2.game.json.gz"
    path.write_bytes(gzip.compress(json.dumps(_older(record.to_dict(), 2)).encode()))
    assert read_record(path).policy == record.policy


def test_version_1_records_read_without_a_final_board(tmp_path: Path) -> None:
    data = _record(rules=GO5, actions=(1, 2, 3)).to_dict()
    assert data["format_version"] == 3 and data["final"] is None
    data = _older(data, 1)
    data["format_version"] = 1
    path = tmp_path / "old.game.json.gz"
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    assert read_record(path).final is None
    data["format_version"] = 2   # version 2 must say whether it has one
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(RecordFormatError, match="old.game.json.gz.*final"):
        read_record(path)


def test_a_final_board_round_trips_and_must_fit_the_board(tmp_path: Path) -> None:
    final = FinalBoard((1, 2, 0) + (1,) * 22, -3.5)
    record = _record(rules=GO5, actions=(1, 2, 3), final=final)
    assert record.to_dict()["final"] == {"ownership": "BW." + "B" * 22, "score": -3.5}
    assert read_record(write_record(tmp_path, record)).final == final
    with pytest.raises(ValueError, match="24 points, not 25"):
        _record(rules=GO5, actions=(1, 2, 3), final=FinalBoard((0,) * 24, 0.0))
    data = record.to_dict()
    data["final"]["ownership"] = "BX" + "." * 23
    path = tmp_path / "bad.game.json.gz"
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(RecordFormatError, match="bad.game.json.gz.*'X'"):
        read_record(path)


def test_record_with_an_action_off_the_board_is_rejected(tmp_path: Path) -> None:
    data = _record().to_dict()
    data["actions"][1] = 999
    path = tmp_path / "bad.game.json.gz"
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    with pytest.raises(RecordFormatError, match="bad.game.json.gz"):
        read_record(path)


@pytest.mark.parametrize("signed", [False, True])
def test_planes_pack_and_unpack_exactly(signed: bool) -> None:
    rng = np.random.default_rng(0)
    low = -1 if signed else 0
    planes = rng.integers(low, 2, size=(7, 3, 5, 5)).astype(np.int8)
    packed, coding = pack_planes(planes)
    assert coding == ("signed-bits" if signed else "bits")
    assert packed.dtype == np.uint8 and packed.shape[1] == (planes[0].size * (2 if signed else 1) + 7) // 8
    assert np.array_equal(unpack_planes(packed, (3, 5, 5), coding), planes.astype(np.float32))


def test_planes_other_than_bits_are_refused() -> None:
    with pytest.raises(ValueError):
        pack_planes(np.full((1, 1, 2, 2), 2))


def test_ownership_packs_exactly_and_refuses_other_values() -> None:
    owners = np.random.default_rng(2).integers(-1, 2, size=(6, 49)).astype(np.int8)
    packed = pack_ownership(owners)
    assert packed.shape == (6, (2 * 49 + 7) // 8)
    assert np.array_equal(unpack_planes(packed, (1, 1, 49), "signed-bits").reshape(6, 49), owners)
    assert np.array_equal(pack_ownership(np.ones((2, 49))).shape, (2, 13)), "all-positive rows keep their width"
    with pytest.raises(ValueError, match="ownership"):
        pack_ownership(np.full((1, 4), 2))


def _chunk(tmp_path: Path, name: str = "chunk-000000.npz", encoder: str = "gomoku4", samples: int = 5,
           game: str = "gomoku", size: int = 6, komi: float | None = None) -> Path:
    rng = np.random.default_rng(1)
    planes = rng.integers(0, 2, size=(samples, 4, size, size))
    policy = rng.random((samples, size * size + 1)).astype(np.float32)
    policy /= policy.sum(axis=1, keepdims=True)
    value = rng.choice([-1.0, 1.0], samples).astype(np.float32)
    ownership = rng.integers(-1, 2, size=(samples, size * size))
    mask = np.arange(samples) % 2 == 0
    ownership[~mask] = 0
    score = np.where(mask, rng.normal(0, 10, samples), 0).astype(np.float32)
    packed, coding = pack_planes(planes)
    info = ChunkInfo(game, size, encoder, 4, coding, samples, ("abc",), komi=komi)
    return write_chunk(tmp_path / name, Samples(info, packed, policy, value, pack_ownership(ownership), score, mask))


def test_chunk_round_trip(tmp_path: Path) -> None:
    path = _chunk(tmp_path)
    samples = read_chunk(path)
    assert samples.info.samples == 5 and samples.info.sources == ("abc",)
    assert samples.planes_at(np.arange(5)).shape == (5, 4, 6, 6)
    assert np.allclose(samples.policy.astype(np.float32).sum(axis=1), 1.0, atol=1e-2)
    planes, policy, value, ownership, score, mask = samples.batch_at(np.arange(5))
    assert ownership.shape == (5, 36) and ownership.dtype == np.float32 and set(np.unique(ownership)) <= {-1, 0, 1}
    assert mask.tolist() == [True, False, True, False, True]
    assert not ownership[~mask].any() and not score[~mask].any() and ownership[mask].any() and score[mask].all()
    both = load_samples([tmp_path, path])
    assert len(both) == 10
    assert np.array_equal(both.aux_mask, np.concatenate([mask, mask]))
    np.testing.assert_array_equal(both.batch_at(np.arange(5, 10))[3], ownership)


def test_chunks_record_the_komi_their_samples_share(tmp_path: Path) -> None:
    seven = _chunk(tmp_path / "a", game="go", komi=7.0)
    assert read_chunk(seven).info.komi == 7.0 and read_chunk_info(seven).komi == 7.0
    assert load_samples([seven, _chunk(tmp_path / "b", game="go", komi=7.0)]).info.komi == 7.0
    assert load_samples([seven, _chunk(tmp_path / "c", game="go", komi=6.5)]).info.komi is None
    assert load_samples([seven, _chunk(tmp_path / "d", game="go")]).info.komi is None
    assert shared_komi(np.float32([7, 7])) == 7.0 and shared_komi([7.0, 6.5]) is None
    assert shared_komi(np.float32([7, np.nan])) is None and shared_komi([]) is None


def test_version_2_chunks_read_with_an_unknown_komi(tmp_path: Path) -> None:
    samples = read_chunk(_chunk(tmp_path, game="go", komi=7.0))
    meta = {**samples.info.to_dict(), "format_version": 2}
    del meta["komi"]
    old = tmp_path / "old.npz"
    np.savez_compressed(old, meta=np.array(json.dumps(meta)), planes=samples.planes, policy=samples.policy,
                        value=samples.value, ownership=samples.ownership, score=samples.score,
                        aux_mask=samples.aux_mask)
    again = read_chunk(old)
    assert again.info.komi is None and len(again) == 5 and np.array_equal(again.score, samples.score)


@pytest.mark.parametrize("komi", ["7", True, float("inf")])
def test_a_chunk_komi_that_is_no_number_is_refused(tmp_path: Path, komi: object) -> None:
    samples = read_chunk(_chunk(tmp_path, game="go"))
    path = tmp_path / "bad.npz"
    meta = {**samples.info.to_dict(), "komi": komi}
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), planes=samples.planes, policy=samples.policy,
                        value=samples.value, ownership=samples.ownership, score=samples.score,
                        aux_mask=samples.aux_mask)
    with pytest.raises(ChunkFormatError, match="komi"):
        read_chunk(path)


def test_version_1_chunks_read_as_masked_and_mix_with_version_2(tmp_path: Path) -> None:
    old = write_version1_chunk(tmp_path / "chunk-000000.npz", read_chunk(_chunk(tmp_path / "new")))
    samples = read_chunk(old)
    assert len(samples) == 5 and not samples.aux_mask.any()
    assert not samples.ownership.any() and not samples.score.any()
    mixed = load_samples([old, tmp_path / "new"])
    assert mixed.aux_mask.tolist() == [False] * 5 + [True, False, True, False, True]


def test_truncated_chunk_is_rejected_naming_the_file(tmp_path: Path) -> None:
    path = _chunk(tmp_path)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ChunkFormatError, match=path.name):
        read_chunk(path)


def test_chunk_with_flipped_bytes_is_rejected(tmp_path: Path) -> None:
    path = _chunk(tmp_path, samples=400)
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(64)
    path.write_bytes(bytes(data))
    with pytest.raises(ChunkFormatError, match=path.name):
        read_chunk(path)


def test_chunk_for_another_encoder_is_rejected(tmp_path: Path) -> None:
    first = _chunk(tmp_path, "chunk-000000.npz")
    _chunk(tmp_path, "chunk-000001.npz", encoder="oneplane")
    expect = read_chunk(first).info
    with pytest.raises(ChunkFormatError, match="chunk-000001.npz.*oneplane"):
        load_samples([tmp_path], expect)
    with pytest.raises(ChunkFormatError, match="chunk-000001.npz"):
        load_samples([tmp_path])


@pytest.mark.parametrize("change,problem", [
    ({"policy": np.zeros((2, 10), np.float16)}, "policy is float16[2, 10], expected float16[2, 37]"),
    ({"ownership": np.zeros((2, 5), np.uint8)}, "ownership is uint8[2, 5], expected uint8[2, 9]"),
    ({"aux_mask": np.zeros(2, np.float32)}, "aux_mask is float32[2], expected bool[2]"),
    ({"score": None}, "array 'score' is missing"),
])
def test_chunk_with_wrong_or_missing_arrays_is_rejected(tmp_path: Path, change: dict, problem: str) -> None:
    path = tmp_path / "forged.npz"
    info = ChunkInfo("gomoku", 6, "gomoku4", 4, "bits", 2)
    arrays = {"planes": np.zeros((2, 18), np.uint8), "policy": np.zeros((2, 37), np.float16),
              "value": np.zeros(2, np.float32), "ownership": np.zeros((2, 9), np.uint8),
              "score": np.zeros(2, np.float32), "aux_mask": np.zeros(2, bool), **change}
    np.savez(path, meta=np.array(json.dumps(info.to_dict())), **{k: v for k, v in arrays.items() if v is not None})
    with pytest.raises(ChunkFormatError, match=f"forged.npz: {re.escape(problem)}"):
        read_chunk(path)


def test_a_file_that_is_no_chunk_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "other.npz"
    np.savez(path, x=np.zeros(3))
    with pytest.raises(ChunkFormatError, match="other.npz"):
        read_chunk(path)
    with pytest.raises(ChunkFormatError, match="missing.npz"):
        read_chunk(tmp_path / "missing.npz")


def test_atomic_write_keeps_the_old_file_when_the_write_fails(tmp_path: Path) -> None:
    path = write_text(tmp_path / "state.json", "old")
    with pytest.raises(RuntimeError), atomic_path(path) as temp:
        temp.write_text("half")
        raise RuntimeError("killed")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_atomic_write_gives_a_new_file_the_umask_permissions_and_keeps_an_old_files(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    new = write_text(tmp_path / "model.json", "{}")
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask
    os.chmod(new, 0o640)
    write_text(new, "[]")
    assert stat.S_IMODE(new.stat().st_mode) == 0o640


def test_rules_survive_the_record_round_trip() -> None:
    for rules in (GO5, GOMOKU6):
        assert SelfPlayRecord.from_dict(_record(rules=rules, actions=(1, 2, 3)).to_dict()).rules == rules
