"""Chain Reaction in the rules core: critical masses, chains, the end of the game, undo, hashing, and random
games checked move by move against a plain-Python reference written from the rules."""

from __future__ import annotations

import os
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import EngineError, Game, IllegalMoveError, Position, Rules, RulesError, gtp_to_action
from engine.core import board as layout
from engine.core.chain_reaction import critical_masses
from engine.core.dispatch import game_result, is_terminal, pack_rules, terminal_value
from engine.core.playout import random_playout
from engine.core.rng import new_rng
from engine.core.types import BLACK, EMPTY, WHITE, Color, Outcome
from engine.formats.diagram import parse_orb_diagram, to_orb_diagram
from tests.engine.core.consistency import check_consistency

NOJIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"
NEIGHBOURS = ((-1, 0), (0, -1), (0, 1), (1, 0))   # up, left, right, down: the order the chain takes them in


def game_from(diagram: str, to_play: int = BLACK) -> Game:
    owners, orbs = parse_orb_diagram(diagram)
    return Game.from_board(Rules.chain_reaction(owners.shape[0]), owners, to_play, orbs)


def play(game: Game, *vertices: str) -> None:
    for vertex in vertices:
        game.play(gtp_to_action(vertex, game.rules.size))


def assert_cells(game: Game, diagram: str) -> None:
    owners, orbs = parse_orb_diagram(diagram)
    found = to_orb_diagram(game.position, labels=False)
    assert np.array_equal(game.position.board(), owners) and np.array_equal(game.position.orbs(), orbs), found


# ------------------------------------------------------------------- reference
class Reference:
    """Chain Reaction from the rules alone, on nested lists: owner and orbs per cell, no padding, no hash."""

    def __init__(self, size: int, owners: np.ndarray | None = None, orbs: np.ndarray | None = None) -> None:
        self.size = size
        self.owners = [[0] * size for _ in range(size)] if owners is None else owners.tolist()
        self.orbs = [[0] * size for _ in range(size)] if orbs is None else orbs.tolist()
        self.to_play = BLACK
        self.winner = 0

    def cells(self) -> list[tuple[int, int]]:
        return [(r, c) for r in range(self.size) for c in range(self.size)]

    def neighbours(self, r: int, c: int) -> list[tuple[int, int]]:
        return [(r + dr, c + dc) for dr, dc in NEIGHBOURS if 0 <= r + dr < self.size and 0 <= c + dc < self.size]

    def total(self, color: int) -> int:
        return sum(self.orbs[r][c] for r, c in self.cells() if self.owners[r][c] == color)

    def legal(self) -> list[bool]:
        return [not self.winner and self.owners[r][c] != 3 - self.to_play for r, c in self.cells()]

    def play(self, action: int) -> None:
        color, enemy = self.to_play, 3 - self.to_play
        had_enemy = self.total(enemy) > 0
        r, c = divmod(action, self.size)
        self.owners[r][c] = color
        self.orbs[r][c] += 1
        waiting = deque([(r, c)] if self.orbs[r][c] >= len(self.neighbours(r, c)) else [])
        while waiting:
            r, c = waiting.popleft()
            self.orbs[r][c] -= len(self.neighbours(r, c))
            if self.orbs[r][c] == 0:
                self.owners[r][c] = EMPTY
            for q in self.neighbours(r, c):
                self.owners[q[0]][q[1]] = color
                self.orbs[q[0]][q[1]] += 1
                if q not in waiting and self.orbs[q[0]][q[1]] >= len(self.neighbours(*q)):
                    waiting.append(q)
            if self.total(enemy) == 0:
                break
            if (r, c) not in waiting and self.orbs[r][c] >= len(self.neighbours(r, c)):
                waiting.append((r, c))
        if had_enemy and self.total(enemy) == 0:
            self.winner = color
        self.to_play = enemy


def assert_matches(game: Game, reference: Reference) -> None:
    position = game.position
    check_consistency(position)   # the hash, the orb totals and the winner, from the cells
    assert position.board().tolist() == reference.owners
    assert position.orbs().tolist() == reference.orbs
    assert int(position.to_play) == reference.to_play
    assert int(position.info[layout.WINNER]) == reference.winner
    assert position.legal_mask()[:-1].tolist() == reference.legal() and not position.legal_mask()[-1]


# ------------------------------------------------------------------- the rules value
def test_rules_strings():
    rules = Rules.parse("chain-reaction size=5x5")
    assert rules == Rules.chain_reaction(5) == Rules.parse("chain-reaction") == Rules.default("chain-reaction", 5)
    assert str(rules) == "chain-reaction size=5" and Rules.parse(str(rules)) == rules
    assert rules.move_cap == 56 and rules.num_actions == 26   # 3*25 - 20 orbs fit on a settled board, plus one
    capped = Rules.parse("chain-reaction size=4 cap=9")
    assert capped.move_cap == 9 and Rules.parse(str(capped)) == capped
    assert Rules.parse("chain-reaction", size=7).resized(6) == Rules.chain_reaction(6)
    with pytest.raises(RulesError, match="not square"):
        Rules.parse("chain-reaction size=5x7")
    with pytest.raises(RulesError, match="no rules option 'komi'"):
        Rules.parse("chain-reaction komi=5")
    with pytest.raises(RulesError, match="2..25"):
        Rules.chain_reaction(1)


def test_critical_masses():
    assert critical_masses(3).tolist() == [[2, 3, 2], [3, 4, 3], [2, 3, 2]]
    assert critical_masses(2).tolist() == [[2, 2], [2, 2]]


# ------------------------------------------------------------------- explosions
def test_a_corner_explodes_at_two_orbs():
    game = game_from("""
        X1 .  .
        .  .  .
        .  .  O1""")
    play(game, "A3")
    assert_cells(game, """
        .  X1 .
        X1 .  .
        .  .  O1""")


def test_an_edge_explodes_at_three_orbs_and_captures():
    game = game_from("""
        O1 X2 .
        .  O2 .
        .  .  .""")
    play(game, "B3")
    assert_cells(game, """
        X2 .  X1
        .  X3 .
        .  .  .""")
    assert game.is_over and game.outcome() == Outcome(Color.BLACK, None, "elimination")


def test_the_middle_explodes_at_four_orbs():
    game = game_from("""
        .  .  .
        .  X3 .
        .  .  O1""", to_play=BLACK)
    play(game, "B2")
    assert_cells(game, """
        .  X1 .
        X1 .  X1
        .  X1 O1""")
    assert not game.is_over


def test_below_the_critical_mass_nothing_explodes():
    game = game_from("""
        .  X1 .
        .  X2 .
        .  .  O1""")
    play(game, "B3", "A1", "B2")   # edge to 2 of 3, middle to 3 of 4
    assert_cells(game, """
        .  X2 .
        .  X3 .
        O1 .  O1""")


def test_a_chain_spreads_across_the_board():
    game = game_from("""
        X1 X2 X1
        .  .  .
        .  .  O1""")
    play(game, "A3")   # the corner, then the edge it fills, then the far corner
    assert_cells(game, """
        X1 X1 .
        X1 X1 X1
        .  .  O1""")
    assert not game.is_over and game.to_play == Color.WHITE


def test_a_win_in_the_middle_of_a_chain_ends_the_game():
    """A board one orb short of its capacity: the next orb starts a chain that never settles; it stops when
    white's last orb is taken."""
    size = 5
    masses = critical_masses(size)
    owners = np.full((size, size), BLACK, dtype=np.int8)
    owners[-1, -1] = WHITE
    game = Game.from_board(Rules.chain_reaction(size), owners, BLACK, masses - 1)
    game.play(0)
    position = game.position
    assert game.is_over and game.outcome() == Outcome(Color.BLACK, None, "elimination")
    assert not (position.board() == WHITE).any()
    assert position.orbs().sum() == (masses - 1).sum() + 1   # orbs are conserved
    assert (position.orbs() >= masses).any()                  # the chain was cut off, not settled
    assert not position.legal_mask().any()
    with pytest.raises(IllegalMoveError, match="game over"):
        game.play(1)
    assert game.undo().action == 0 and not game.is_over


def test_the_opening_moves_do_not_end_the_game():
    game = Game(Rules.chain_reaction(3))
    play(game, "A1")
    assert not game.is_over   # white has no orbs, but has not moved yet
    play(game, "C3")
    assert not game.is_over and game.position.winner is None


def test_moves_on_the_opponents_cells_and_passes_are_refused_and_change_nothing():
    game = game_from("""
        X1 .  .
        .  .  .
        .  .  O1""", to_play=WHITE)
    before = game.position.cells.copy(), game.position.info.copy()
    with pytest.raises(IllegalMoveError, match="occupied"):
        play(game, "A3")
    with pytest.raises(IllegalMoveError, match="no pass"):
        game.play(game.rules.pass_action)
    assert np.array_equal(game.position.cells, before[0]) and np.array_equal(game.position.info, before[1])
    assert game.legal_mask().tolist() == [False] + [True] * 8 + [False]


def test_the_move_cap_is_a_draw():
    game = Game(Rules.chain_reaction(4, move_cap=4))
    play(game, "A1", "D4", "B2", "C3")
    assert game.is_over and game.outcome() == Outcome(None, 0.0, "move-cap")
    cells, info = game.position.cells, game.position.info
    geo = game.position.geo
    spec = pack_rules(game.rules)
    assert game_result(cells, info, geo.width, geo.action_point, spec, 0.0) == (0, 0.0)
    assert terminal_value(cells, info, geo.width, geo.action_point, spec, 0.0) == 0.0


def test_setup_orbs_are_checked():
    rules = Rules.chain_reaction(3)
    owners = np.array([[1, 0, 0], [0, 0, 0], [0, 0, 2]])
    with pytest.raises(ValueError, match="1 to 999 on owned cells"):
        Position.from_board(rules, owners, orbs=np.array([[0, 0, 0], [0, 0, 0], [0, 0, 1]]))
    with pytest.raises(ValueError, match="empty cells"):
        Position.from_board(rules, owners, orbs=np.array([[1, 1, 0], [0, 0, 0], [0, 0, 1]]))
    with pytest.raises(ValueError, match="only chain-reaction"):
        Position.from_board(Rules.go(3), owners, orbs=np.ones((3, 3)))
    with pytest.raises(EngineError, match="no orbs"):
        Position(Rules.go(5)).orbs()


def test_undo_restores_every_earlier_state():
    game = Game(Rules.chain_reaction(4))
    rng = np.random.default_rng(3)
    states = []
    while not game.is_over:
        states.append((game.position.cells.copy(), game.position.info.copy()))
        game.play(int(rng.choice(np.flatnonzero(game.legal_mask()))))
    assert len(game.moves) > 12   # long enough to have had chains and captures
    while states:
        game.undo()
        cells, info = states.pop()
        assert np.array_equal(game.position.cells, cells) and np.array_equal(game.position.info, info)


# ------------------------------------------------------------------- random games
@settings(max_examples=min(12 if NOJIT else 60, settings.default.max_examples))
@given(size=st.integers(2, 5 if NOJIT else 7), seed=st.integers(0, 2**32 - 1))
def test_random_games_match_the_reference(size, seed):
    rules = Rules.chain_reaction(size)
    game = Game(rules)
    reference = Reference(size)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        action = int(rng.choice(np.flatnonzero(game.legal_mask())))
        game.play(action)
        reference.play(action)
        assert_matches(game, reference)
        if not game.is_over:   # a settled position rebuilt from its cells has the same hash
            rebuilt = Position.from_board(rules, game.position.board(), game.to_play, game.position.orbs())
            assert rebuilt.hash == game.position.hash
    assert reference.winner and game.outcome() == Outcome(Color(reference.winner), None, "elimination")
    assert len(game.moves) <= rules.move_cap


@settings(max_examples=min(6 if NOJIT else 30, settings.default.max_examples))
@given(size=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_random_playouts_replay_through_the_game(size, seed):
    """The compiled playout draws only legal moves, ends the game the way Game does, and never stalls."""
    rules = Rules.chain_reaction(size)
    position = Position(rules)
    geo = position.geo
    record = np.empty(rules.move_cap, dtype=np.int64)
    moves = random_playout(position.cells, position.info, geo.zobrist, geo.width, geo.action_point,
                           pack_rules(rules), True, new_rng(seed), np.empty(rules.num_points, np.int64), record)
    assert is_terminal(position.cells, position.info, pack_rules(rules))
    game = Game(rules)
    for point in record[:moves]:
        game.play(int(geo.point_action[point]))
    assert np.array_equal(game.position.cells, position.cells) and np.array_equal(game.position.info, position.info)
    assert game.outcome().reason == "elimination"
