"""Files users hand in, corrupt, truncated, huge or hostile: SGF records, model files and Leela Zero weights each
get their format's error, and nothing is written (no converted network cached, no half-read state kept)."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import pytest

from engine import SGFError, load_sgf, load_sgf_file
from engine.formats.sgf import MAX_RECORD_MOVES, MAX_SGF_BYTES

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
