"""Victory by continuous fours (``engine.core.threats.vcf``): every line it claims is replayed through the
rules core, and the renju cases where black may not make or stop a four."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.board import STONES, TO_PLAY, geometry
from engine.core.coords import action_to_gtp, gtp_to_action
from engine.core.dispatch import pack_rules, vcf_point, winning_point
from engine.core.game import Game
from engine.core.gomoku import VARIANT_CODES
from engine.core.rules import Rules
from engine.core.threats import vcf
from engine.core.types import BLACK, WHITE, opponent

FREESTYLE = Rules.gomoku(15, 5, "freestyle")
RENJU = Rules.gomoku(15, 5, "renju")


def _game(black: list[str], white: list[str], rules: Rules, white_first: bool = False) -> Game:
    """The stones played alternately from black (from white if ``white_first``, black opening elsewhere)."""
    game = Game(rules)
    first, second = (white, black) if white_first else (black, white)
    if white_first:
        game.play(gtp_to_action("O1", rules.size))
    for vertex in (v for pair in zip(first, second + [""]) for v in pair if v):
        game.play(gtp_to_action(vertex, rules.size))
    return game


def _vcf(game: Game, depth: int = 12, budget: int = 10_000) -> str | None:
    geo, position = geometry(game.rules.size), game.position
    point = vcf_point(position.cells, position.info, geo.width, geo.action_point, pack_rules(game.rules),
                      int(position.info[TO_PLAY]), depth, budget)
    return None if point < 0 else action_to_gtp(int(geo.point_action[point]), game.rules.size)


# Black to move: F8 makes four on row 8 (C8-F8, B8 white) and on column F (F8-F11, F12 white): two threats.
FOUR_FOUR = (["C8", "D8", "E8", "F9", "F10", "F11"], ["B8", "F12", "A1", "A3", "A5", "A7"])


def test_a_double_four_is_a_victory_in_one_four() -> None:
    game = _game(*FOUR_FOUR, FREESTYLE)
    assert _vcf(game) == "F8"
    assert _vcf(game, depth=0) is None


def test_renju_black_may_not_win_by_a_double_four_but_white_may() -> None:
    assert _vcf(_game(*FOUR_FOUR, RENJU)) is None   # F8 is a double four: forbidden to black
    black, white = FOUR_FOUR
    assert _vcf(_game(white, black, RENJU, white_first=True)) == "F8"


def test_a_four_black_may_not_stop_wins_for_white_under_renju() -> None:
    """White's H9 makes four H9-H12 (H13 black) whose one stopping point, H8, would give black six in a
    row (E8-K8): renju forbids it, so the four wins; under standard rules black stops it there."""
    black, white = ["E8", "F8", "G8", "J8", "K8", "H13"], ["H10", "H11", "H12", "A1", "A3", "A5"]
    renju = _game(black, white, RENJU, white_first=True)
    assert renju.position.to_play == WHITE
    assert _vcf(renju, depth=1) == "H9"
    assert _vcf(_game(black, white, Rules.gomoku(15, 5, "standard"), white_first=True), depth=1) is None


def test_the_kernel_restores_the_board() -> None:
    game = _game(*FOUR_FOUR, FREESTYLE)
    geo, position = geometry(15), game.position
    stones = position.cells[STONES].copy()
    before = stones.copy()
    vcf(stones, geo.width, geo.action_point, BLACK, 5, VARIANT_CODES["freestyle"], 12, 10_000)
    vcf(stones, geo.width, geo.action_point, WHITE, 5, VARIANT_CODES["freestyle"], 12, 10_000)
    np.testing.assert_array_equal(stones, before)


def _random_positions(rules: Rules, count: int, seed: int) -> list[Game]:
    """Games of random legal moves, kept where nobody has won yet."""
    rng = np.random.default_rng(seed)
    games = []
    while len(games) < count:
        game = Game(rules)
        for _ in range(int(rng.integers(8, 40))):
            if game.position.is_over:
                break
            game.play(int(rng.choice(np.flatnonzero(game.legal_mask()[:-1]))))
        if not game.position.is_over:
            games.append(game)
    return games


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
    for game in _random_positions(rules, 150, seed=3):
        before = game.position.cells.copy()
        first = _vcf(game, depth=8)
        np.testing.assert_array_equal(game.position.cells, before)
        if first is not None:
            found += 1
            longest = max(longest, _replay(game, first, depth=8))
    assert found >= 20
    assert longest >= 2, "no line of more than two fours was read: the test does not reach deep VCFs"
