"""Training files handed in from elsewhere, corrupt, truncated, huge or hostile: chunks, game records and run
directories each get their format's error at once (nothing unpacked beyond what the file claims), and a run
directory whose state cannot be followed is left as it was."""

from __future__ import annotations

import gzip
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from training.chunks import ChunkInfo, read_chunk
from training.errors import ChunkFormatError, RecordFormatError, RunStateError
from training.gather import MANIFEST, GatherTarget, gather
from training.loop import RUN_FILE, STATE_FILE, LoopConfig, load_config, run_loop
from training.models import BootstrapConfig
from training.records import MAX_RECORD_BYTES, read_record

INFO = ChunkInfo("gomoku", 6, "gomoku4", 4, "bits", 2)


def _arrays(samples: int = 2) -> dict[str, np.ndarray]:
    return {"planes": np.zeros((samples, 18), np.uint8), "policy": np.full((samples, 37), 1 / 37, np.float16),
            "value": np.zeros(samples, np.float32), "ownership": np.zeros((samples, 9), np.uint8),
            "score": np.zeros(samples, np.float32), "aux_mask": np.zeros(samples, bool)}


def _chunk(path: Path, meta: dict[str, Any] | str | None = None, **arrays: Any) -> Path:
    """A chunk file as ``np.savez_compressed`` writes one: ``meta`` (a dict, or raw text) and the arrays."""
    text = meta if isinstance(meta, str) else json.dumps({**INFO.to_dict(), **(meta or {})})
    np.savez_compressed(path, meta=np.array(text), **{**_arrays(), **arrays})
    return path


# -------------------------------------------------------------------- chunks
@pytest.mark.parametrize(("meta", "arrays", "message"), [
    ("[" * 100000 + "]" * 100000, {}, "bad metadata: maximum recursion depth"),
    (json.dumps(INFO.to_dict()).replace('"board_size": 6', '"board_size": 1e999'), {},
     "bad metadata: cannot convert float infinity"),
    ({"samples": -5}, {}, "-5 samples of 4 planes on 6x6 boards: not a chunk"),
    ({"board_size": 4000}, {}, "on 4000x4000 boards: not a chunk"),
    ({"samples": 10 ** 12}, {}, "planes is uint8[2, 18], expected uint8[1000000000000, 18]"),
    ({"format_version": 1, "samples": 10 ** 10}, {}, "planes is uint8[2, 18], expected uint8[10000000000, 18]"),
    (None, {"policy": np.full((2, 37), np.nan, np.float16)}, "policy holds NaN or infinite numbers"),
    (None, {"value": np.array([0, np.inf], np.float32)}, "value holds NaN or infinite numbers"),
    (None, {"planes": np.zeros((2, 19), np.uint8)}, "planes is uint8[2, 19], expected uint8[2, 18]"),
], ids=["deep metadata", "an infinite board size", "negative samples", "a board of 4000", "a trillion samples",
        "version 1 with ten billion samples", "NaN policy", "infinite value", "planes too wide"])
def test_a_hostile_chunk_is_refused_with_its_reason(meta: Any, arrays: dict[str, Any], message: str,
                                                    tmp_path: Path) -> None:
    path = _chunk(tmp_path / "chunk.npz", meta, **arrays)
    with pytest.raises(ChunkFormatError, match=re.escape(message)):
        read_chunk(path)


def test_an_array_that_unpacks_to_gigabytes_is_refused_before_it_is_unpacked(tmp_path: Path) -> None:
    path = _chunk(tmp_path / "bomb.npz", policy=np.zeros((200_000, 3_700), np.float16))   # 1.5 GB of zeros
    assert path.stat().st_size < 4 << 20
    started = time.perf_counter()
    with pytest.raises(ChunkFormatError, match=re.escape("policy is float16[200000, 3700], expected")):
        read_chunk(path)
    assert time.perf_counter() - started < 1.0


def test_metadata_that_is_no_text_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "chunk.npz"
    np.savez(path, meta=np.zeros(3), **_arrays())
    with pytest.raises(ChunkFormatError, match=re.escape("meta is float64[3], not a JSON text")):
        read_chunk(path)


def test_the_chunk_they_were_made_from_reads(tmp_path: Path) -> None:
    assert len(read_chunk(_chunk(tmp_path / "chunk.npz"))) == 2


MANIFEST_OK = {"format": "engine-gather-manifest", "format_version": 1, "game": "gomoku", "board_size": 6,
               "encoder": "gomoku4", "chunks": [], "inputs": {}}


@pytest.mark.parametrize("manifest", [
    "[" * 100000 + "]" * 100000, [1, 2], {**MANIFEST_OK, "board_size": 1e999}, {**MANIFEST_OK, "chunks": 5},
    {**MANIFEST_OK, "inputs": []}, {**MANIFEST_OK, "format_version": 7},
], ids=["deep nesting", "a list", "an infinite board", "chunks a number", "inputs a list", "another version"])
def test_a_gather_manifest_that_cannot_be_followed_is_refused_and_left_as_it_was(manifest: Any,
                                                                                 tmp_path: Path) -> None:
    (tmp_path / MANIFEST).write_text(manifest if isinstance(manifest, str) else json.dumps(manifest).replace(
        "Infinity", "1e999"))
    before = (tmp_path / MANIFEST).read_bytes()
    with pytest.raises(ChunkFormatError, match="gather manifest"):
        gather([], tmp_path, GatherTarget("gomoku", 6, "gomoku4"))
    assert os.listdir(tmp_path) == [MANIFEST] and (tmp_path / MANIFEST).read_bytes() == before


# ------------------------------------------------------------------- records
@pytest.mark.parametrize(("data", "message"), [
    (b"[" * 100000 + b"]" * 100000, "not a readable gzip-compressed JSON record"),
    (b" " * (MAX_RECORD_BYTES + 1), "more than 64 MiB of JSON"),
    (b'{"format": "engine-game", "format_version": 1e999}', "game record"),
], ids=["deep nesting", "over 64 MiB", "an infinite version"])
def test_a_hostile_game_record_is_refused(data: bytes, message: str, tmp_path: Path) -> None:
    path = tmp_path / "x.game.json.gz"
    path.write_bytes(gzip.compress(data, 1))
    with pytest.raises(RecordFormatError, match=message):
        read_record(path)


# ------------------------------------------------------------ run directories
def _config() -> LoopConfig:
    return LoopConfig(bootstrap=BootstrapConfig("gomoku", 6, blocks=1, filters=8, seed=0), win_length=4)


STATE = {"format_version": 1, "best": "models/000000-b1c8.safetensors", "next": 1, "phase": "selfplay",
         "current": {}, "history": []}


@pytest.mark.parametrize(("state", "message"), [
    ("[" * 100000 + "]" * 100000, "nested too deep"),
    ({**STATE, "next": "2"}, "next is '2', not a generation number"),
    ({**STATE, "next": True}, "next is True"),
    ({**STATE, "phase": "sleep"}, "phase is 'sleep'"),
    ({**STATE, "best": "../../elsewhere/model.safetensors"}, "not a file of the run's models folder"),
    ({**STATE, "best": 7}, "best is 7"),
    ({**STATE, "history": {"generation": 0}}, "history a list of objects"),
    ({**STATE, "history": [1, 2]}, "history a list of objects"),
    ({**STATE, "current": []}, "current must be an object"),
], ids=["deep nesting", "next as text", "next true", "an unknown phase", "best outside the run", "best a number",
        "history an object", "history of numbers", "current a list"])
def test_a_state_the_loop_cannot_follow_is_refused_and_the_run_left_as_it_was(state: Any, message: str,
                                                                              tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_text(state if isinstance(state, str) else json.dumps(state))
    (tmp_path / RUN_FILE).write_text("the run's settings, as they were")
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    with pytest.raises(RunStateError, match=re.escape(message)):
        run_loop(tmp_path, _config())
    after = {path.name: path.read_bytes() for path in tmp_path.iterdir() if path.name != ".lock"}
    assert after == before


def test_a_huge_state_file_is_refused_unread(tmp_path: Path) -> None:
    with open(tmp_path / STATE_FILE, "wb") as handle:
        handle.truncate(65 << 20)
    with pytest.raises(RunStateError, match="larger than"):
        run_loop(tmp_path, _config())
    assert not (tmp_path / RUN_FILE).exists() and not (tmp_path / "models").exists()


@pytest.mark.parametrize(("settings", "message"), [
    ({"generations": "10"}, "LoopConfig setting generations is '10', not int"),
    ({"selfplay": {"player": {"visits": 1.5}}}, "PlayerConfig setting visits is 1.5, not int or None"),
    ({"rules": ["chinese"]}, "LoopConfig setting rules is ['chinese'], not str or None"),
    ("[" * 5000 + "]" * 5000, "nested too deep"),
], ids=["a count as text", "a visit count of 1.5", "rules as a list", "deep nesting"])
def test_run_settings_of_the_wrong_types_are_refused(settings: Any, message: str, tmp_path: Path) -> None:
    text = settings if isinstance(settings, str) else json.dumps({"format_version": 2, **settings})
    (tmp_path / RUN_FILE).write_text(text)
    with pytest.raises(RunStateError, match=re.escape(message)):
        load_config(tmp_path)
    assert os.listdir(tmp_path) == [RUN_FILE]
