"""Handicap placement: GTP's fixed patterns (checked against GNU Go) and the free placement."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.coords import GTP_COLUMNS, action_to_gtp, gtp_to_action
from engine.core.game import Game
from engine.core.handicap import HandicapError, fixed_handicap, free_handicap, max_fixed_handicap
from engine.core.rules import MAX_SIZE, Rules
from engine.core.scoring import handicap_bonus_rule, white_handicap_bonus, with_handicap_bonus
from engine.core.types import BLACK, WHITE, EngineError
from training.gtp_client import GTPClient, GTPError, gnugo_argv

# The table of GTP 2 draft section 4.1.1, in its order.
GTP_19X19 = {
    2: "D4 Q16",
    3: "D4 Q16 D16",
    4: "D4 Q16 D16 Q4",
    5: "D4 Q16 D16 Q4 K10",
    6: "D4 Q16 D16 Q4 D10 Q10",
    7: "D4 Q16 D16 Q4 D10 Q10 K10",
    8: "D4 Q16 D16 Q4 D10 Q10 K4 K16",
    9: "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10",
}


def ours_or_refused(stones: int, size: int) -> set[str] | None:
    try:
        return {action_to_gtp(a, size) for a in fixed_handicap(stones, size)}
    except HandicapError:
        return None


@pytest.mark.gnugo
def test_fixed_handicap_matches_gnugo(gnugo_path: str) -> None:
    """Every (size, count) GNU Go accepts gives the same points; every one it refuses we refuse."""
    differences = []
    with GTPClient(gnugo_argv(gnugo_path)) as gnugo:
        for size in range(2, 20):
            gnugo.send(f"boardsize {size}")
            for stones in range(0, 11):
                gnugo.send("clear_board")
                try:
                    theirs: set[str] | None = set(gnugo.send(f"fixed_handicap {stones}").split())
                except GTPError:
                    theirs = None
                ours = ours_or_refused(stones, size)
                if ours != theirs:
                    differences.append(f"{size}x{size}, {stones} stones: ours {ours}, gnugo {theirs}")
    assert not differences, "\n".join(differences)


def test_fixed_handicap_19x19_is_gtp_table_in_order() -> None:
    for stones, vertices in GTP_19X19.items():
        assert [action_to_gtp(a, 19) for a in fixed_handicap(stones, 19)] == vertices.split()


@pytest.mark.parametrize("size", range(7, MAX_SIZE + 1))
def test_fixed_handicap_is_the_19x19_pattern_moved_to_the_star_lines(size: int) -> None:
    """Each pattern is 19x19's with line 4 -> the star line, 10 -> the centre, 16 -> the far star line."""
    star = 3 if size <= 11 else 4
    line = {4: star, 10: (size + 1) // 2, 16: size + 1 - star}  # 1-based GTP rows / column numbers
    for stones in range(2, max_fixed_handicap(size) + 1):
        expected = []
        for vertex in GTP_19X19[stones].split():
            column, row = line[GTP_COLUMNS.index(vertex[0]) + 1], line[int(vertex[1:])]
            expected.append(gtp_to_action(f"{GTP_COLUMNS[column - 1]}{row}", size))
        assert fixed_handicap(stones, size) == expected


@pytest.mark.parametrize("size", range(2, MAX_SIZE + 1))
def test_fixed_handicap_refuses_what_gtp_does_not_define(size: int) -> None:
    """Counts outside 2..9, boards below 7x7, and above 4 stones on even boards and 7x7."""
    if size < 7:
        allowed: set[int] = set()
    elif size % 2 == 0 or size == 7:
        allowed = {2, 3, 4}
    else:
        allowed = set(range(2, 10))
    assert max_fixed_handicap(size) == max(allowed, default=0)
    for stones in range(-1, 12):
        if stones in allowed:
            assert len(set(fixed_handicap(stones, size))) == stones
        else:
            with pytest.raises(HandicapError, match=f"{size}x{size}") as refused:
                fixed_handicap(stones, size)
            assert isinstance(refused.value, EngineError) and isinstance(refused.value, ValueError)


def test_handicap_stones_go_on_the_board_with_white_to_move() -> None:
    game = Game(Rules.go(19, "chinese", komi=0.5))
    game.place_handicap(fixed_handicap(4, 19))
    board = game.position.board()
    assert sorted(np.flatnonzero(board.reshape(-1) == BLACK)) == sorted(fixed_handicap(4, 19))
    assert not (board == WHITE).any()
    assert game.to_play == WHITE and game.handicap == 4


# ------------------------------------------------------------------ free
FREE_SIZES = [2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 19, 25]


def free_counts(size: int) -> list[int]:
    """Every count up to 12, then a few up to half the board (the whole range is slow on 25x25)."""
    half = size * size // 2
    return sorted({k for k in [*range(2, 13), half // 4, half // 2, half - 1, half] if 2 <= k <= half})


@pytest.mark.parametrize("size", FREE_SIZES)
def test_free_handicap_places_distinct_points_that_a_game_accepts(size: int) -> None:
    for stones in free_counts(size):
        actions = free_handicap(stones, size)
        assert len(actions) == stones == len(set(actions))
        assert all(0 <= a < size * size for a in actions)
        assert free_handicap(stones, size) == actions  # deterministic
        game = Game(Rules.go(size, "chinese"))
        game.place_handicap(actions)
        assert np.count_nonzero(game.position.board() == BLACK) == stones
        assert game.to_play == WHITE


@pytest.mark.parametrize("size", range(7, MAX_SIZE + 1))
def test_free_handicap_is_the_fixed_pattern_where_there_is_one(size: int) -> None:
    for stones in range(2, max_fixed_handicap(size) + 1):
        assert free_handicap(stones, size) == fixed_handicap(stones, size)


@pytest.mark.parametrize("size", FREE_SIZES)
def test_free_handicap_keeps_stones_apart(size: int) -> None:
    """No two stones touch while a checkerboard of the whole board could hold them all."""
    roomy = ((size + 1) // 2) ** 2
    for stones in [k for k in free_counts(size) if k <= roomy] + [min(roomy, size * size // 2)]:
        if stones < 2:
            continue
        rows, cols = np.divmod(np.array(free_handicap(stones, size)), size)
        distance = np.abs(rows[:, None] - rows[None, :]) + np.abs(cols[:, None] - cols[None, :])
        np.fill_diagonal(distance, 2)
        assert distance.min() >= 2, f"{stones} stones on {size}x{size}"


def test_free_handicap_spreads_over_the_whole_board() -> None:
    """Beyond the fixed nine, each quarter of a 19x19 board gets its share of stones."""
    rows, cols = np.divmod(np.array(free_handicap(40, 19)), 19)
    quarters = np.bincount((rows > 9) * 2 + (cols > 9), minlength=4)
    assert quarters.min() >= 6, quarters


def test_free_handicap_caps_at_half_the_board_and_refuses_nonsense() -> None:
    assert len(free_handicap(80, 9)) == 40
    assert len(free_handicap(9 * 9 - 1, 9)) == 40
    for stones, size in ((1, 9), (0, 9), (81, 9), (2, 1), (2, 26)):
        with pytest.raises(HandicapError):
            free_handicap(stones, size)


@pytest.mark.parametrize("preset,rule", [("chinese", "N"), ("aga", "N-1"), ("japanese", "0"), ("tromp-taylor", "0"),
                                         ("new-zealand", "0")])
def test_the_white_handicap_bonus_follows_the_preset(preset: str, rule: str) -> None:
    rules = Rules.go(19, preset, komi=0.5)
    assert handicap_bonus_rule(rules) == rule
    bonus = {"N": 9, "N-1": 8, "0": 0}[rule]
    assert with_handicap_bonus(rules, 9).komi == 0.5 + bonus
    assert with_handicap_bonus(rules, 0) == rules


def test_the_bonus_counts_stones_by_its_rule_and_refuses_what_it_cannot_count() -> None:
    assert [white_handicap_bonus(n, rule) for rule in ("0", "N", "N-1") for n in (0, 2, 5)] == [0, 0, 0, 0, 2, 5,
                                                                                               0, 1, 4]
    assert handicap_bonus_rule(Rules.gomoku()) == "0"
    with pytest.raises(ValueError, match="N-2"):
        white_handicap_bonus(3, "N-2")
    with pytest.raises(ValueError, match="number of stones"):
        white_handicap_bonus(-1, "N")
