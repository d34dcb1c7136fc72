"""Piskvork's .psq and .rec games: frames, coordinates, results by replay, and the reasons a game is skipped."""

from __future__ import annotations

import zipfile
from collections import Counter
from pathlib import Path

import pytest

from engine.core.rules import Rules
from engine.core.types import Color
from engine.formats.collections import fit_onto, read_collection
from engine.formats.piskvork import PiskvorkError, read_piskvork

FREESTYLE = Rules.parse("freestyle", size=15)
# Black down column 3 (rows 2..6 counted from 1), white beside it on column 4: black's fifth stone makes five.
BLACK_FIVE = [(3, 2 + i // 2) if i % 2 == 0 else (4, 2 + i // 2) for i in range(9)]


def _psq(moves: list[tuple[int, int]], size: str = "20x20") -> bytes:
    lines = [f"Piskvorky {size}, 11:11, 0"] + [f"{x},{y},{1000 + i}" for i, (x, y) in enumerate(moves)]
    return ("\n".join(lines + ["black.zip", "white.zip", "-1"]) + "\n").encode()


def _rec(moves: list[tuple[int, int]]) -> bytes:
    lines = ["pbrain-one.exe", "pbrain-two.exe"] + [f"{x},{y},{i}" for i, (x, y) in enumerate(moves)] + ["0"]
    return ("\r\n".join(lines) + "\r\n").encode()


def test_a_psq_game_is_on_its_own_board_counted_from_one_and_won_by_its_five() -> None:
    record = read_piskvork("a.psq", _psq(BLACK_FIVE), FREESTYLE)
    assert record.rules.size == 20 and record.rules.variant == "freestyle"
    assert [move.color for move in record.moves[:3]] == [Color.BLACK, Color.WHITE, Color.BLACK]
    assert record.moves[0].action == (2 - 1) * 20 + (3 - 1)   # x the column, y the row, both from 1
    assert record.result.winner == Color.BLACK and record.result.reason == "five"


def test_a_rec_game_is_counted_from_zero_on_the_callers_board() -> None:
    moves = [(x - 1, y - 1) for x, y in BLACK_FIVE]
    record = read_piskvork("b.rec", _rec(moves), FREESTYLE)
    assert record.rules.size == 15 and record.moves[0].action == 1 * 15 + 2
    assert record.result.winner == Color.BLACK


@pytest.mark.parametrize("name,data,reason", [
    ("short.psq", _psq(BLACK_FIVE[:7]), "no five and no result"),
    ("twice.psq", _psq(BLACK_FIVE[:3] + [BLACK_FIVE[0]]), "illegal"),
    ("off.rec", _rec([(7, 7), (15, 3)]), "unreadable: move 2 (15,3) is off the 15x15 board"),
    ("oblong.psq", _psq(BLACK_FIVE, size="20x15"), "unreadable: a 20x15 board is not square"),
    ("headless.psq", _rec(BLACK_FIVE), "unreadable: no 'Piskvorky WxH' first line"),
    ("empty.rec", b"pbrain-one.exe\npbrain-two.exe\n0\n", "unreadable: no moves"),
])
def test_games_that_cannot_be_used_say_why(name: str, data: bytes, reason: str) -> None:
    with pytest.raises(PiskvorkError, match="^" + reason.replace("(", r"\(").replace(")", r"\)")):
        read_piskvork(name, data, FREESTYLE)


def test_renju_rules_make_a_forbidden_black_move_illegal() -> None:
    # black's 3x3 fork at the centre: (8,8) makes two open threes with (6,8),(7,8) and (8,6),(8,7)
    black = [(6, 8), (7, 8), (8, 6), (8, 7), (8, 8)]
    white = [(1, 1), (1, 3), (1, 5), (1, 7)]
    moves = [move for pair in zip(black, white + [None]) for move in pair if move is not None]
    with pytest.raises(PiskvorkError, match="^no five"):   # legal in freestyle, only unfinished
        read_piskvork("f.psq", _psq(moves, "15x15"), FREESTYLE)
    with pytest.raises(PiskvorkError, match="^illegal: move 9"):
        read_piskvork("r.psq", _psq(moves, "15x15"), Rules.parse("renju", size=15))


def test_a_zip_of_piskvork_games_streams_them_and_its_notes_are_not_games(tmp_path: Path) -> None:
    path = tmp_path / "tournament.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("round/a.psq", _psq(BLACK_FIVE))
        archive.writestr("round/b.rec", _rec([(x - 1, y - 1) for x, y in BLACK_FIVE]))
        archive.writestr("round/c.psq", _psq(BLACK_FIVE[:4]))
        archive.writestr("round/_result.txt", "YIXIN16\nwins: 3468\n")
        archive.writestr("openings.txt", "-8,-7, 0,0\n")
    games = list(read_collection(path, rules=FREESTYLE))
    assert [game.key for game in games] == ["round/a.psq", "round/b.rec", "round/c.psq"]
    assert [game.record.rules.size for game in games[:2]] == [20, 15]
    assert Counter(game.skipped for game in games) == {None: 2, "no five and no result": 1}


def test_a_game_moves_onto_a_smaller_board_only_where_every_stone_fits() -> None:
    record = read_piskvork("a.psq", _psq(BLACK_FIVE), FREESTYLE)   # columns 2-3, rows 1-5 (from 0) on 20x20
    fitted = fit_onto(record, 15)
    assert fitted.rules.size == 15 and fitted.result == record.result
    # the centre's shift (7 - 10 = -3) would push row 1 and column 2 off the board: the shifts nearest it that
    # fit are -1 and -2, which bring the game to the board's corner
    assert [divmod(move.action, 15) for move in fitted.moves] == [(r - 1, c - 2) for r, c in
                                                                  (divmod(m.action, 20) for m in record.moves)]
    centred = read_piskvork("c.psq", _psq([(x + 8, y + 8) for x, y in BLACK_FIVE]), FREESTYLE)
    moved = fit_onto(centred, 15)
    assert [divmod(m.action, 15) for m in moved.moves] == [(r - 3, c - 3) for r, c in
                                                            (divmod(m.action, 20) for m in centred.moves)]
    wide = read_piskvork("w.psq", _psq([(19, 19), (20, 1)] + BLACK_FIVE), FREESTYLE)
    assert fit_onto(wide, 15) is None
    assert fit_onto(record, 20) is record
