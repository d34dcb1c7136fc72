"""Victories by continuous fours and by continuous threats (``engine.core.threats.vcf``, ``vct``): every
line they claim is played out through the rules core, against every answer the defender may give (a VCF)
or against many random ones (a VCT), and the renju cases where black may not make or stop a threat."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.board import STONES, TO_PLAY, geometry
from engine.core.coords import action_to_gtp, gtp_to_action
from engine.core.dispatch import VARIANT, WIN_LENGTH, pack_rules, vcf_point, winning_point
from engine.core.game import Game
from engine.core.gomoku import VARIANT_CODES
from engine.core.rules import Rules
from engine.core.threats import read_vct, vcf, vct
from engine.core.types import BLACK, WHITE, opponent
from engine.search.guard import victory_point
from tests.support.games import play_stones, random_positions

FREESTYLE = Rules.gomoku(15, 5, "freestyle")
RENJU = Rules.gomoku(15, 5, "renju")


def _vcf(game: Game, depth: int = 12, budget: int = 10_000) -> str | None:
    geo, position = geometry(game.rules.size), game.position
    point = vcf_point(position.cells, position.info, geo.width, geo.action_point, pack_rules(game.rules),
                      int(position.info[TO_PLAY]), depth, budget)
    return None if point < 0 else action_to_gtp(int(geo.point_action[point]), game.rules.size)


# Black to move: F8 makes four on row 8 (C8-F8, B8 white) and on column F (F8-F11, F12 white): two threats.
FOUR_FOUR = (["C8", "D8", "E8", "F9", "F10", "F11"], ["B8", "F12", "A1", "A3", "A5", "A7"])


def test_a_double_four_is_a_victory_in_one_four() -> None:
    game = play_stones(FREESTYLE, *FOUR_FOUR)
    assert _vcf(game) == "F8"
    assert _vcf(game, depth=0) is None


def test_renju_black_may_not_win_by_a_double_four_but_white_may() -> None:
    assert _vcf(play_stones(RENJU, *FOUR_FOUR)) is None   # F8 is a double four: forbidden to black
    black, white = FOUR_FOUR
    assert _vcf(play_stones(RENJU, ["O1", *white], black)) == "F8"


def test_a_four_black_may_not_stop_wins_for_white_under_renju() -> None:
    """White's H9 makes four H9-H12 (H13 black) whose one stopping point, H8, would give black six in a
    row (E8-K8): renju forbids it, so the four wins; under standard rules black stops it there."""
    black, white = ["E8", "F8", "G8", "J8", "K8", "H13"], ["H10", "H11", "H12", "A1", "A3", "A5"]
    renju = play_stones(RENJU, ["O1", *black], white)
    assert renju.position.to_play == WHITE
    assert _vcf(renju, depth=1) == "H9"
    assert _vcf(play_stones(Rules.gomoku(15, 5, "standard"), ["O1", *black], white), depth=1) is None


def test_the_kernel_restores_the_board() -> None:
    game = play_stones(FREESTYLE, *FOUR_FOUR)
    geo, position = geometry(15), game.position
    stones = position.cells[STONES].copy()
    before = stones.copy()
    vcf(stones, geo.width, geo.action_point, BLACK, 5, VARIANT_CODES["freestyle"], 12, 10_000)
    vcf(stones, geo.width, geo.action_point, WHITE, 5, VARIANT_CODES["freestyle"], 12, 10_000)
    np.testing.assert_array_equal(stones, before)


def _replay(game: Game, first: str, depth: int) -> int:
    """Play the claimed VCF out through the rules core, the defender always stopping the attacker's
    threat (any other answer loses at once); return the fours it took. Fails unless the attacker wins."""
    geo, spec = geometry(game.rules.size), pack_rules(game.rules)
    attacker = game.position.to_play
    move: str | None = first
    for fours in range(depth + 1):
        assert move is not None, "the VCF lost its way"
        game.play(gtp_to_action(move, game.rules.size))
        if game.position.is_over:
            assert game.position.winner == attacker
            return fours
        position = game.position
        assert winning_point(position.cells, position.info, geo.width, geo.action_point, spec,
                             opponent(attacker)) < 0, "the defender could win at once"
        threat = winning_point(position.cells, position.info, geo.width, geo.action_point, spec, attacker)
        assert threat >= 0, f"{move} is not a four"
        stop = int(geo.point_action[threat])
        if not game.legal_mask()[stop]:   # renju: black may not stop it; the attacker wins wherever black plays
            game.play(int(np.flatnonzero(game.legal_mask())[0]))
            game.play(stop)
            assert game.position.winner == attacker
            return fours
        game.play(stop)
        move = _vcf(game, depth - fours - 1)
    raise AssertionError("the VCF ran past its depth")


@pytest.mark.parametrize("rules", [Rules.gomoku(9, 5, "freestyle"), Rules.gomoku(9, 5, "standard"),
                                   Rules.gomoku(9, 5, "renju")], ids=str)
def test_every_vcf_found_wins_when_played_out(rules: Rules) -> None:
    longest, found = 0, 0
    for game in random_positions(rules, 150, seed=3):
        before = game.position.cells.copy()
        first = _vcf(game, depth=8)
        np.testing.assert_array_equal(game.position.cells, before)
        if first is not None:
            found += 1
            longest = max(longest, _replay(game, first, depth=8))
    assert found >= 20
    assert longest >= 2, "no line of more than two fours was read: the test does not reach deep VCFs"


def _vct(game: Game, color: int | None = None, depth: int = 8, budget: int = 20_000) -> str | None:
    attacker = int(game.position.info[TO_PLAY]) if color is None else color
    action = victory_point(game, attacker, depth=depth, budget=budget)
    return None if action < 0 else action_to_gtp(action, game.rules.size)


def test_read_vct_counts_the_threats_it_read_within_its_budget() -> None:
    read_some = 0
    for game in random_positions(FREESTYLE, 40, seed=5):
        geo, spec = geometry(15), pack_rules(FREESTYLE)
        stones, mover = game.position.cells[STONES], int(game.position.info[TO_PLAY])
        args = (geo.width, geo.action_point, mover, spec[WIN_LENGTH], spec[VARIANT], 6)
        move, read = read_vct(stones.copy(), *args, 300)
        assert move == vct(stones.copy(), *args, 300) and 0 <= read <= 300
        if read > 2:
            read_some += 1
            assert read_vct(stones.copy(), *args, read // 2)[1] <= read // 2
    assert read_some >= 5


# Black to move: J8 makes two open threes (G8-J8 and J8-J10); no four is on the board.
DOUBLE_THREE = (["G8", "H8", "J10", "J9"], ["A1", "A15", "P1", "P15"])


def test_a_double_three_is_a_victory_by_threats_but_not_by_fours() -> None:
    game = play_stones(FREESTYLE, *DOUBLE_THREE)
    assert _vcf(game) is None
    first = _vct(game)
    assert first is not None
    assert _vct(game, depth=1) is None   # two threats at least: a three, then an open four
    assert _vct(game, color=WHITE) is None


def test_renju_forbids_black_the_double_three_but_not_white() -> None:
    black, white = DOUBLE_THREE
    assert _vct(play_stones(RENJU, *DOUBLE_THREE), depth=4, budget=2_000) != "J8"
    assert _vct(play_stones(RENJU, ["O1", *white], black)) is not None   # white's double three stands


def test_a_defenders_open_four_to_come_refutes_a_three() -> None:
    """White's A3-A5-A7 (A1 too) make an open four at A4 or A6 in one move: black's three would be
    answered by it, so black has no victory by threats, however it begins."""
    black, _ = DOUBLE_THREE
    game = play_stones(FREESTYLE, black, ["A1", "A3", "A5", "A7"])
    assert _vct(game, depth=4, budget=2_000) is None
    assert _vct(game, color=WHITE) is not None   # were white to move, A4 or A6 would win


def test_the_threat_kernel_restores_the_board() -> None:
    geo, position = geometry(15), play_stones(FREESTYLE, *DOUBLE_THREE).position
    stones = position.cells[STONES].copy()
    before = stones.copy()
    for color in (BLACK, WHITE):
        vct(stones, geo.width, geo.action_point, color, 5, VARIANT_CODES["freestyle"], 8, 5_000)
    np.testing.assert_array_equal(stones, before)


def _play_out_vct(game: Game, rng: np.random.Generator, depth: int) -> tuple[int, bool]:
    """Play a claimed VCT out: the attacker reads its VCT afresh at every turn, the defender answers at
    random, half the time near the attacker's last stone (where threats are answered), and takes a five
    of its own whenever it has one. Fails unless the attacker wins; returns the attacker's moves and
    whether a three (a move that is no four) was among them."""
    geo, spec = geometry(game.rules.size), pack_rules(game.rules)
    attacker, size = game.position.to_play, game.rules.size
    three = False
    for moves in range(1, 4 * depth):
        move = _vct(game, depth=depth)
        assert move is not None, "the VCT lost its way"
        position = game.position
        fives_before = winning_point(position.cells, position.info, geo.width, geo.action_point, spec, attacker)
        game.play(gtp_to_action(move, size))
        if game.is_over:
            assert game.position.winner == attacker
            return moves, three
        position = game.position
        assert winning_point(position.cells, position.info, geo.width, geo.action_point, spec,
                             opponent(attacker)) < 0, f"{move} leaves the defender a five"
        if fives_before < 0 and winning_point(position.cells, position.info, geo.width, geo.action_point, spec,
                                              attacker) < 0:
            three = True
        legal = np.flatnonzero(game.legal_mask()[:-1])
        row, col = divmod(gtp_to_action(move, size), size)
        near = [a for a in legal if max(abs(a // size - row), abs(a % size - col)) <= 2]
        game.play(int(rng.choice(near if near and rng.random() < 0.5 else legal)))
        assert not game.is_over, "the defender won"
    raise AssertionError("the VCT ran past its depth")


@pytest.mark.slow   # minutes in plain Python (NUMBA_DISABLE_JIT=1): the compiled suite plays them out
@pytest.mark.parametrize("rules", [Rules.gomoku(9, 5, "freestyle"), Rules.gomoku(9, 5, "standard"),
                                   Rules.gomoku(9, 5, "renju")], ids=str)
def test_every_vct_found_wins_against_random_defences(rules: Rules) -> None:
    rng = np.random.default_rng(5)
    found, with_three = 0, 0
    for game in random_positions(rules, 200, seed=4):
        before = game.position.cells.copy()
        if _vcf(game, depth=8) is not None or _vct(game, depth=6) is None:
            continue
        np.testing.assert_array_equal(game.position.cells, before)
        found += 1
        for _ in range(4):
            _, three = _play_out_vct(game.copy(), rng, depth=6)
            with_three += three
    assert found >= 10, "too few victories by threats alone: the test does not reach them"
    assert with_three >= 10
