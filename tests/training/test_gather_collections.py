"""gather --collection: collections into chunks, held-out months apart, counted boards confirmed, resumable."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from engine.cli import main
from training.chunks import list_chunks, load_samples, read_chunk_info
from training.gather import MANIFEST, GatherTarget
from training.gather_collections import HOLDOUT_DIR, CollectionConfig, gather_collections

TARGET = GatherTarget("go", 9, "fifteenplane")
RULES = "chinese komi=6.5 ko=simple"
# A wall: black down column D, white down column E. Black's area is columns A-D (36 points), white's
# E-J (45): white wins the count by 45 - 36 + 6.5 = 15.5.
WALL = "".join(f";B[d{row}];W[e{row}]" for row in "abcdefghi")
OPENING = ";B[cc];W[gg];B[cg];W[gc];B[ee]"


def _index_line(game_id: str, month: str, result: str) -> str:
    return "\t".join([game_id, f"C{month.replace('-', '.')}.01 00:00", "w", "w", "1", "b", "b", "1", result, "9",
                      "30/3"])


def _write(folder: Path, month: str, games: list[tuple[str, str, str]]) -> tuple[Path, Path]:
    """A zipped one-line collection of ``month``'s ``games`` (ID, moves, result) and its index."""
    folder.mkdir(parents=True, exist_ok=True)
    kifu, index = folder / f"{month}.zip", folder / f"{month}.index"
    with zipfile.ZipFile(kifu, "w") as archive:
        archive.writestr(month, "".join(f"{game_id}\t{moves}\n" for game_id, moves, _ in games))
    index.write_text("".join(_index_line(game_id, month, result) + "\n" for game_id, _, result in games))
    return kifu, index


def _games(prefix: str, count: int) -> list[tuple[str, str, str]]:
    results = ["B+Resign", "W+Resign", "B+Time"]
    return [(f"{prefix}{i}", OPENING, results[i % 3]) for i in range(count)]


def _config(**changes: object) -> CollectionConfig:
    return CollectionConfig(**{"rules": RULES, "chunk_samples": 20, "scoring_playouts": 64, **changes})


def test_games_become_samples_and_held_out_months_go_apart(tmp_path: Path) -> None:
    train, train_index = _write(tmp_path / "in", "2010-01", _games("a", 9))
    held, held_index = _write(tmp_path / "in", "2010-02", _games("b", 3))
    out = tmp_path / "chunks"
    summary = gather_collections([train, held], [train_index, held_index], out, TARGET,
                                 _config(holdout_months=("2010-02",)))
    assert summary.games == 12 and summary.used == 8 and dict(summary.skipped) == {"lost on time": 4}
    assert summary.samples == 6 * 5 and summary.holdout_samples == 2 * 5   # five moves a game
    assert len(load_samples([out]).value) == 30 and len(load_samples([out / HOLDOUT_DIR]).value) == 10
    samples = load_samples([out])
    assert set(np.unique(samples.value)) == {-1.0, 1.0} and not samples.aux_mask.any()
    manifest = json.loads((out / MANIFEST).read_text())
    assert sorted(entry["name"] for entry in manifest["collections"].values()) == ["2010-01.zip", "2010-02.zip"]
    again = gather_collections([train, held], [train_index, held_index], out, TARGET, _config())
    assert again.already_gathered == 2 and again.samples == 0 and not again.chunks


def test_a_count_the_board_confirms_gives_ownership_and_score_and_one_it_refutes_does_not(tmp_path: Path) -> None:
    kifu, index = _write(tmp_path / "in", "2010-01", [("c1", WALL, "W+15.5"), ("c2", WALL, "B+3.5")])
    out = tmp_path / "chunks"
    summary = gather_collections([kifu], [index], out, TARGET, _config(chunk_samples=1000))
    assert summary.used == 2 and summary.scored == 1 and summary.unconfirmed == 1
    samples = load_samples([out])
    assert len(samples.value) == 2 * (18 + 2), "a counted game ends with the two passes of the count"
    scored = samples.aux_mask
    assert scored.sum() == 20
    assert set(np.abs(samples.score[scored])) == {15.5}


def test_a_killed_gather_resumes_without_losing_or_repeating_a_game(tmp_path: Path) -> None:
    kifu, index = _write(tmp_path / "in", "2010-01", _games("a", 12))
    whole = tmp_path / "whole"
    gather_collections([kifu], [index], whole, TARGET, _config(chunk_samples=10))
    out = tmp_path / "killed"
    gather_collections([kifu], [index], out, TARGET, _config(chunk_samples=10))
    chunks = list_chunks([out])
    assert len(chunks) >= 3
    chunks[-1].unlink()                     # the chunk in flight, and the manifest never written
    (out / MANIFEST).unlink()
    resumed = gather_collections([kifu], [index], out, TARGET, _config(chunk_samples=10))
    assert resumed.finished == 1 and resumed.used == 8
    assert len(load_samples([out]).value) == len(load_samples([whole]).value) == 40
    games = [source.split("#")[1] for path in list_chunks([out]) for source in read_chunk_info(path).sources]
    ordinals = sorted(int(n) for text in games for part in text.split(",")
                      for n in range(int(part.split("-")[0]), int(part.split("-")[-1]) + 1))
    assert ordinals == [i for i in range(12) if i % 3 != 2]


def test_two_workers_gather_two_collections(tmp_path: Path) -> None:
    first, first_index = _write(tmp_path / "in", "2010-01", _games("a", 6))
    second, second_index = _write(tmp_path / "in", "2010-02", _games("b", 6))
    summary = gather_collections([first, second], [first_index, second_index], tmp_path / "out", TARGET,
                                 _config(workers=2))
    assert summary.finished == 2 and summary.used == 8 and summary.samples == 40


def test_the_command_gathers_a_collection_with_its_index(tmp_path: Path) -> None:
    kifu, index = _write(tmp_path / "in", "2010-01", _games("a", 3) + [("x", ";B[zz]", "B+Resign")])
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["gather", "--collection", str(kifu), "--index", str(index), "--encoder",
                                       "fifteenplane", "--size", "9", "--collection-rules", RULES,
                                       "--output-directory", str(out), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["used"] == 2 and report["skipped"] == {"lost on time": 1, "unreadable": 1}
    assert report["samples"] == 10


@pytest.mark.parametrize("arguments,message", [
    (["--holdout-months", "2010-1"], "expected YYYY-MM"),
    (["--collection-rules", "chinese komi=abc"], "komi"),
])
def test_the_command_refuses_bad_options_before_reading(tmp_path: Path, arguments: list[str], message: str) -> None:
    kifu, index = _write(tmp_path / "in", "2010-01", _games("a", 1))
    result = CliRunner().invoke(main, ["gather", "--collection", str(kifu), "--index", str(index), "--encoder",
                                       "fifteenplane", "--output-directory", str(tmp_path / "out"), *arguments])
    assert result.exit_code != 0 and message in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name,data", [("broken.zip", b"PK\x03\x04 not a zip"), ("cut.tar.gz", b"\x1f\x8b\x08\x00cut")])
def test_a_broken_archive_is_a_clear_error_and_writes_nothing(tmp_path: Path, name: str, data: bytes) -> None:
    broken = tmp_path / name
    broken.write_bytes(data)
    result = CliRunner().invoke(main, ["gather", "--collection", str(broken), "--encoder", "fifteenplane",
                                       "--output-directory", str(tmp_path / "out")])
    assert result.exit_code == 1 and "Error:" in result.output and "Traceback" not in result.output
    assert not list((tmp_path / "out").glob("chunk-*"))


def _psq(moves: list[tuple[int, int]], size: int) -> str:
    """A Piskvork game (coordinates from 1) that black wins with five down one column."""
    return "\n".join([f"Piskvorky {size}x{size}, 11:11, 0"] + [f"{x},{y},0" for x, y in moves] + ["a", "b", "-1"])


def test_piskvork_games_of_a_larger_board_fit_onto_the_target_and_held_out_folders_go_apart(tmp_path: Path) -> None:
    five = [(3, 2 + i // 2) if i % 2 == 0 else (4, 2 + i // 2) for i in range(9)]
    wide = [(19, 19), (20, 1)] + five
    path = tmp_path / "tournament.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for folder in ("train", "held"):
            for i in range(2):
                archive.writestr(f"{folder}/g{i}.psq", _psq(five, 20))
        archive.writestr("train/wide.psq", _psq(wide, 20))
        archive.writestr("train/small.psq", _psq(five, 9))
        archive.writestr("_result.txt", "a table, not games\n")
    out = tmp_path / "out"
    arguments = ["gather", "--collection", str(path), "--collection-rules", "freestyle", "--encoder", "gomoku4",
                 "--size", "15", "--holdout-games", "tournament.zip/held/*", "--output-directory", str(out), "--json"]
    result = CliRunner().invoke(main, arguments + ["--fit-board"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["used"] == 4 and report["games"] == 6
    assert report["skipped"] == {"another board: gomoku 20x20, its stones do not fit": 1,
                                 "another board: gomoku 9x9": 1}
    assert report["samples"] == 2 * 9 and report["holdout_samples"] == 2 * 9
    assert read_chunk_info(list_chunks([out])[0]).board_size == 15
    without = CliRunner().invoke(main, arguments[:-3] + ["--output-directory", str(tmp_path / "kept"), "--json"])
    assert json.loads(without.stdout)["skipped"]["another board: gomoku 20x20"] == 5
