"""Game collections: the one-line format with its index, SGF archives; broken games skipped with a reason."""

from __future__ import annotations

import io
import tarfile
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from engine.core.coords import sgf_to_action
from engine.core.rules import Rules
from engine.core.types import Color, Outcome, SGFError
from engine.formats.collections import (
    collection_kind,
    list_collections,
    parse_one_line_moves,
    read_collection,
    read_index,
    read_result,
)

GAMES = [  # ID, moves, index date, result
    ("101", ";B[pd];W[dd];B[pq];W[dp]", "C2010.01.01 00:00", "B+Resign"),
    ("102", ";B[qd];W[dc];B[pp]", "C2010.01.03 12:00", "W+3.5"),
    ("103", ";B[pd];W[dd]", "C2010.02.01 10:00", "B+Time"),
    ("104", ";B[pd];W[zz]", "C2010.02.01 10:00", "W+Resign"),     # off the board
    ("105", ";B[pd];W[dd];B[pd]", "C2010.02.02 10:00", "W+Resign"),  # reads; the replay finds it illegal
    ("106", ";B[pd];W[dd];Bxx", "C2010.02.02 10:00", "W+Resign"),   # garbage after the moves
    ("107", ";B[pd];W[dd]", "C2010.02.03 10:00", "W+Offline"),
    ("108", ";B[pd];W[]", "C2010.02.03 10:00", "B+0.5"),             # a pass
]
MISSING = ("999", ";B[pd]")   # a game the index does not know


def _index_line(game_id: str, date: str, result: str) -> str:
    return "\t".join([game_id, date, "白", "white", "2", "黑", "black", "2", result, "4", "30/3 5m"])


def _write_collection(folder: Path, zipped: bool = True) -> tuple[Path, Path]:
    kifu = "\n".join(f"{game_id}\t{moves}" for game_id, moves, _, _ in GAMES) + f"\n\n{MISSING[0]}\t{MISSING[1]}\n"
    index = "\n".join(_index_line(game_id, date, result) for game_id, _, date, result in GAMES) + "\n"
    if zipped:
        kifu_path, index_path = folder / "2010-01.zip", folder / "Kifu2010.zip"
        with zipfile.ZipFile(kifu_path, "w") as archive:
            archive.writestr("2010-01", kifu)
        with zipfile.ZipFile(index_path, "w") as archive:
            archive.writestr("Kifu2010.index", index)
    else:
        kifu_path, index_path = folder / "2010-01.txt", folder / "Kifu2010.index"
        kifu_path.write_text(kifu, encoding="utf-8")
        index_path.write_text(index, encoding="utf-8")
    return kifu_path, index_path


@pytest.mark.parametrize("zipped", [True, False])
def test_one_line_games_join_their_index_and_broken_ones_say_why(tmp_path: Path, zipped: bool) -> None:
    kifu, index_path = _write_collection(tmp_path, zipped)
    index = read_index([index_path])
    assert index["102"].month == "2010-01" and index["102"].result == "W+3.5"
    games = list(read_collection(kifu, index))
    assert [game.key for game in games] == [g[0] for g in GAMES] + [MISSING[0]]
    by_key = {game.key: game for game in games}
    first = by_key["101"].record
    assert first is not None and first.rules == Rules.go(19, "chinese", komi=6.5)
    assert [(m.color, m.action) for m in first.moves] == [
        (Color.BLACK, sgf_to_action("pd", 19)), (Color.WHITE, sgf_to_action("dd", 19)),
        (Color.BLACK, sgf_to_action("pq", 19)), (Color.WHITE, sgf_to_action("dp", 19))]
    assert first.result == Outcome(Color.BLACK, None, "resign")
    assert by_key["102"].record.result == Outcome(Color.WHITE, 3.5, "score")
    assert by_key["108"].record.moves[-1].action == 361
    assert by_key["103"].skipped == "lost on time" and by_key["103"].month == "2010-02"
    assert by_key["107"].skipped == "lost by disconnection or forfeit"
    assert by_key["104"].skipped.startswith("unreadable: move 2")
    assert by_key["106"].skipped.startswith("unreadable: move 3")
    assert by_key["105"].record is not None            # legality is the replay's business
    assert by_key[MISSING[0]].skipped == "no result: the game is not in the index"
    assert all((game.record is None) == (game.skipped is not None) for game in games)


def test_without_an_index_every_one_line_game_is_skipped_for_want_of_a_result(tmp_path: Path) -> None:
    kifu, _ = _write_collection(tmp_path)
    reasons = Counter(game.skipped for game in read_collection(kifu))
    assert reasons == Counter({"no result: the game is not in the index": len(GAMES) + 1})


def test_the_rules_of_one_line_games_are_the_callers(tmp_path: Path) -> None:
    kifu, index_path = _write_collection(tmp_path)
    rules = Rules.go(19, "japanese", komi=0.5)
    games = list(read_collection(kifu, read_index([index_path]), rules))
    assert all(game.record.rules == rules for game in games if game.record)


def _sgf(result: str, date: str = "2015-03-04") -> bytes:
    return f"(;GM[1]FF[4]SZ[9]KM[7]DT[{date}]RE[{result}];B[ee];W[cc];B[gg])".encode()


def test_sgf_archives_zip_and_tar_stream_their_games(tmp_path: Path) -> None:
    members = {"a/1.sgf": _sgf("B+R"), "a/2.sgf": _sgf("W+T"), "a/3.sgf": b"(;GM[1]SZ[9];B[ee", "a/4.sgf": _sgf(""),
               "readme.txt": b""}
    zipped = tmp_path / "games.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    tarred = tmp_path / "games.tar.gz"
    with tarfile.open(tarred, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    for path in (zipped, tarred):
        games = {game.key: game for game in read_collection(path)}
        assert set(games) >= {"a/1.sgf", "a/2.sgf", "a/3.sgf", "a/4.sgf"}
        assert games["a/1.sgf"].record.rules.size == 9 and games["a/1.sgf"].month == "2015-03"
        assert games["a/2.sgf"].skipped == "lost on time"
        assert games["a/3.sgf"].skipped.startswith("unreadable")
        assert games["a/4.sgf"].skipped == "no result: the record has no RE"


def test_listing_expands_folders_and_refuses_what_is_not_a_collection(tmp_path: Path) -> None:
    kifu, index_path = _write_collection(tmp_path)
    (tmp_path / "notes.pdf").write_bytes(b"%PDF")
    assert list_collections([tmp_path]) == sorted([kifu, index_path])
    with pytest.raises(ValueError, match="not a game collection"):
        list_collections([tmp_path / "notes.pdf"])
    with pytest.raises(FileNotFoundError):
        list_collections([tmp_path / "absent.zip"])
    assert collection_kind("x.tar.bz2") == "tar" and collection_kind("2010-01") == "text"


def test_a_broken_archive_raises_rather_than_reading_as_empty(tmp_path: Path) -> None:
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(zipfile.BadZipFile):
        list(read_collection(broken))


@pytest.mark.parametrize("text,expected", [
    ("B+Resign", Outcome(Color.BLACK, None, "resign")), ("W+12.5", Outcome(Color.WHITE, 12.5, "score")),
    ("B+Time", Outcome(Color.BLACK, None, "time")), ("W+Offline", Outcome(Color.WHITE, None, "forfeit")),
    ("Draw", None), ("B+", None), ("W+-3", None), ("X+R", None)])
def test_index_results(text: str, expected: Outcome | None) -> None:
    assert read_result(text) == expected


@pytest.mark.parametrize("text", [";B[pd]W[dd]", "B[pd]", ";B[pd];X[dd]", ";B[pd];W[dd", ""])
def test_move_strings_that_do_not_read(text: str) -> None:
    with pytest.raises(SGFError):
        parse_one_line_moves(text, 19)
