"""Files users hand in, corrupt, truncated, huge or hostile: SGF records, model files and Leela Zero weights each
get their format's error, and nothing is written (no converted network cached, no half-read state kept)."""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import struct
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from safetensors import safe_open
from safetensors.numpy import save_file

from engine import ModelFormatError, SGFError, load_sgf, load_sgf_file, read_info
from engine.formats.sgf import MAX_RECORD_MOVES, MAX_SGF_BYTES
from engine.nn.model_format import METADATA_KEY, read_weights, weights_checksum

NETWORKS = Path(__file__).resolve().parents[2] / "engine" / "nn" / "networks"

GAME = b"(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee];W[cc];B[gc];W[cg])"


# ---------------------------------------------------------------------- SGF
def test_a_device_is_refused_not_read() -> None:
    with pytest.raises(SGFError, match="not a regular file"):
        load_sgf_file("/dev/zero")


def test_a_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "game.sgf"
    os.mkfifo(fifo)
    with pytest.raises(SGFError, match="not a regular file"):
        load_sgf_file(fifo)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SGFError, match="not a regular file"):
        load_sgf_file(tmp_path)


def test_a_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.sgf"
    with open(path, "wb") as handle:
        handle.write(GAME[:-1] + b"C[")
        handle.truncate(MAX_SGF_BYTES + 1)   # a comment of zeros, never closed
    with pytest.raises(SGFError, match="larger than 16 MiB"):
        load_sgf_file(path)
    path.write_bytes(GAME[:-1] + b"C[" + b"x" * (MAX_SGF_BYTES - len(GAME) - 3) + b"])")
    assert os.path.getsize(path) == MAX_SGF_BYTES
    assert len(load_sgf_file(path).moves) == 4


@pytest.mark.parametrize("charset", [b"rot13", b"zlib", b"base64", b"idna", b"punycode", b"undefined", b"mbcs"])
def test_a_charset_that_cannot_decode_text_is_read_as_utf8(charset: bytes, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        record = load_sgf(b"(;GM[1]SZ[9]CA[" + charset + b"]C[caf\xc3\xa9];B[ee])")
    assert record.comment == "caf\u00e9" and len(record.moves) == 1
    assert "unknown SGF charset" in caplog.text


def test_a_main_line_over_the_limit_is_refused_before_it_is_replayed() -> None:
    passes = b";B[];W[]" * (MAX_RECORD_MOVES // 2)
    assert len(load_sgf(b"(;GM[1]SZ[9]" + passes + b")").moves) == MAX_RECORD_MOVES
    started = time.perf_counter()
    with pytest.raises(SGFError, match=f"more than {MAX_RECORD_MOVES} moves"):
        load_sgf(b"(;GM[1]SZ[9]" + passes + b";B[])")
    assert time.perf_counter() - started < 5.0


def test_a_deep_variation_tree_reads_its_main_line() -> None:
    record = load_sgf(b"(;GM[1]SZ[9]" + b"(;B[aa]" * 9000 + b"(;W[ii])" + b")" * 9001)
    assert len(record.moves) == 9001
    with pytest.raises(SGFError, match="move 2"):
        record.replay()   # B[aa] again: occupied


@pytest.mark.parametrize("cut", range(1, len(GAME)))
def test_every_truncation_of_a_record_loads_or_raises_sgf_error(cut: int) -> None:
    try:
        record = load_sgf(GAME[:cut])
    except SGFError:
        return
    assert record.replay().moves == record.replay().moves   # what was read replays, the same each time


# -------------------------------------------------------------- model files
@pytest.fixture(scope="module")
def model_parts() -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The metadata and tensors of a bundled model file, to write hostile variants of."""
    with safe_open(str(NETWORKS / "go-gnugo9-b4c48-pooled.safetensors"), "numpy") as handle:
        return json.loads(handle.metadata()[METADATA_KEY]), {name: handle.get_tensor(name) for name in handle.keys()}


def _model(path: Path, meta: dict[str, Any], tensors: dict[str, np.ndarray], text: str | None = None) -> Path:
    """A model file of ``tensors`` described by ``meta`` (checksum made to fit), or by the raw ``text``."""
    meta = {**meta, "weights_crc32": weights_checksum(tensors)}
    save_file(tensors, str(path), metadata={METADATA_KEY: json.dumps(meta) if text is None else text})
    return path


def _changed(tensors: dict[str, np.ndarray], change: Callable[[np.ndarray], np.ndarray]) -> dict[str, np.ndarray]:
    return {name: change(array) if array.dtype == np.float32 else array for name, array in tensors.items()}


HOSTILE_MODELS: dict[str, tuple[Callable[[dict[str, Any], dict[str, np.ndarray], Path], Path], str]] = {
    "deep metadata": (lambda meta, tensors, path: _model(path, meta, tensors, "[" * 100000 + "]" * 100000),
                      "malformed metadata: RecursionError"),
    "infinite generation": (lambda meta, tensors, path: _model(
        path, meta, tensors, json.dumps({**meta, "generation": 0}).replace('"generation": 0', '"generation": 1e999')),
        "malformed metadata: OverflowError"),
    "a billion blocks": (lambda meta, tensors, path: _model(
        path, {**meta, "architecture": {**meta["architecture"], "blocks": 10 ** 9}}, tensors),
        "blocks must be at most 1000"),
    "blocks true": (lambda meta, tensors, path: _model(
        path, {**meta, "architecture": {**meta["architecture"], "blocks": True}}, tensors),
        "blocks must be a positive int"),
    "NaN weights": (lambda meta, tensors, path: _model(
        path, meta, _changed(tensors, lambda array: np.full_like(array, np.nan))), "holds NaN or infinite numbers"),
    "float16 weights": (lambda meta, tensors, path: _model(
        path, meta, _changed(tensors, lambda array: array.astype(np.float16))), "holds float16 numbers, not float32"),
    "truncated": (lambda meta, tensors, path: _cut(_model(path, meta, tensors)), "not a readable safetensors"),
    "a flipped byte": (lambda meta, tensors, path: _flip(_model(path, meta, tensors)), "fail their checksum"),
    "a header length of 2**62": (lambda meta, tensors, path: _header_length(_model(path, meta, tensors)),
                                 "not a readable safetensors"),
}


def _cut(path: Path) -> Path:
    path.write_bytes(path.read_bytes()[:path.stat().st_size // 2])
    return path


def _flip(path: Path) -> Path:
    data = bytearray(path.read_bytes())
    data[-100] ^= 0xFF
    path.write_bytes(bytes(data))
    return path


def _header_length(path: Path) -> Path:
    path.write_bytes(struct.pack("<Q", 1 << 62) + path.read_bytes()[8:])
    return path


@pytest.mark.parametrize("case", HOSTILE_MODELS)
def test_a_hostile_model_file_is_refused_with_its_reason(case: str, model_parts: tuple[dict[str, Any], dict[str, Any]],
                                                         tmp_path: Path) -> None:
    write, message = HOSTILE_MODELS[case]
    path = write(*model_parts, tmp_path / "model.safetensors")
    before = path.read_bytes()
    started = time.perf_counter()
    with pytest.raises(ModelFormatError, match=re.escape(message)):
        read_weights(path)
    assert time.perf_counter() - started < 5.0
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["model.safetensors"]


@pytest.mark.parametrize("path", ["/dev/zero", "."])
def test_a_model_path_that_is_no_file_is_refused(path: str) -> None:
    with pytest.raises(ModelFormatError, match="not a regular file"):
        read_weights(path)


def test_the_bundled_model_it_was_made_from_reads(model_parts: tuple[dict[str, Any], dict[str, Any]],
                                                   tmp_path: Path) -> None:
    assert read_weights(_model(tmp_path / "model.safetensors", *model_parts))[1].config.blocks == 4


# ------------------------------------------------------ Leela Zero weights
@pytest.mark.parametrize(("data", "message"), [
    (gzip.compress(b"1\n" + b"0 " * (40 << 20), 1), "line 2: longer than"),
    (gzip.compress(b"1\n" + b"0\n" * 10000, 1), "more than 8019 lines"),
    (gzip.compress(b"1\n" + b"0.5 " * 1000 + b"\n")[:40], "cannot be read (truncated or corrupt"),
    (b"1\n" + b"0.5 1e39\n" * 19, "line 2: holds infinite or NaN numbers"),
    (b"3\n1 2\n", "line 1: version '3'"),
])
def test_hostile_leela_zero_weights_are_refused_and_nothing_is_cached(data: bytes, message: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "weights.gz"
    path.write_bytes(data)
    with pytest.raises(ModelFormatError, match=re.escape(message)):
        read_info(path)
    assert not (tmp_path / "cache").exists()
