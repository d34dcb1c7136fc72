"""``Game.from_board`` (a game from a board as it stands) and ``Game.play_on`` (going on after the end)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.core.coords import gtp_to_action
from engine.core.game import Game, Move
from engine.core.rules import Rules
from engine.core.types import BLACK, WHITE, Color, EngineError, IllegalMoveError
from tests.engine.core.consistency import check_consistency


def _play(game: Game, moves: str) -> None:
    """Play ``"B C3 W pass ..."`` through the checked path."""
    words = moves.split()
    for color, vertex in zip(words[::2], words[1::2]):
        game.play(gtp_to_action(vertex, game.rules.size), Color.parse(color))


def _ko_just_taken() -> Game:
    """5x5: black has just taken the white stone on B3 with C3; white may not take back at once."""
    game = Game(Rules.go(5, "chinese"))
    _play(game, "B B4 W C4 B A3 W D3 B B2 W C2 B E1 W B3 B C3")
    assert game.check(gtp_to_action("B3", 5), WHITE) != 0
    return game


# ------------------------------------------------------------ from_board
def test_from_board_in_go_keeps_the_stones_and_nothing_of_their_history() -> None:
    played = _ko_just_taken()
    board = played.position.board()
    game = Game.from_board(played.rules, board, played.to_play)
    assert np.array_equal(game.position.board(), board)
    assert game.to_play == Color.WHITE and game.moves == [] and not game.is_over
    assert game.setup_stones == [Move(Color(int(c)), int(a)) for a, c in enumerate(board.reshape(-1)) if c]
    assert played.position.captures(WHITE) == 1 and game.position.captures(WHITE) == 0
    check_consistency(game.position, after_move=False)
    game.play(gtp_to_action("B3", 5), WHITE)  # no ko carried over: the recapture is legal
    assert game.position.board()[2, 2] == 0  # it took C3 back
    game.undo()
    with pytest.raises(EngineError):
        game.undo()  # the rebuilt game starts at the board


def test_from_board_takes_a_flat_board_and_refuses_another_size() -> None:
    rules = Rules.go(5)
    stones = np.zeros(25, np.int8)
    stones[[0, 24]] = BLACK, WHITE
    game = Game.from_board(rules, stones, BLACK)
    assert np.array_equal(game.position.board().reshape(-1), stones)
    with pytest.raises(ValueError):
        Game.from_board(rules, np.zeros((4, 4), np.int8), BLACK)
    with pytest.raises(ValueError):
        Game.from_board(rules, np.full(25, 3, np.int8), BLACK)


def _four_to_five() -> Game:
    """Gomoku 9x9: black has four in a row on the fifth row from the top and moves next."""
    board = np.zeros((9, 9), np.int8)
    board[4, 2:6] = BLACK
    board[5, 2:5] = WHITE
    return Game.from_board(Rules.gomoku(9), board, BLACK)


def test_from_board_in_gomoku_plays_on_to_five() -> None:
    game = _four_to_five()
    assert game.to_play == Color.BLACK and not game.is_over
    game.play(4 * 9 + 6)
    outcome = game.outcome()
    assert outcome is not None and outcome.winner == Color.BLACK


# --------------------------------------------------------------- play_on
def test_play_on_after_two_passes_keeps_the_moves_and_undo_goes_back_through_them() -> None:
    game = Game(Rules.go(9))
    _play(game, "B E5 W pass B pass")
    assert game.is_over
    with pytest.raises(IllegalMoveError):
        game.play(gtp_to_action("C3", 9), WHITE)
    game.play_on()
    assert not game.is_over and game.position.passes == 0
    _play(game, "W C3 B pass")
    assert len(game.moves) == 5 and not game.is_over  # one pass after going on does not end the game
    before = game.position.copy()
    _play(game, "W D4")
    game.undo()
    assert np.array_equal(game.position.cells, before.cells) and game.position.key == before.key
    game.undo()
    game.undo()  # the first move after the end: the game is back at its end
    assert len(game.moves) == 3 and game.is_over
    game.undo()
    assert not game.is_over and game.moves[-1] == Move(Color.WHITE, game.rules.pass_action)


def test_play_on_after_the_move_cap_counts_the_cap_afresh_and_copies_know_it() -> None:
    game = Game(Rules.go(5, move_cap=2))
    _play(game, "B C3 W D4")
    assert game.is_over
    game.play_on()
    _play(game, "B B2")
    assert not game.is_over
    _play(game, "W B4")
    assert game.is_over
    copy = game.copy()
    for each in (game, copy):  # undo replays the moves, going on where play went on
        each.undo()
        assert not each.is_over and each.position.move_number == 1


def test_play_on_changes_nothing_in_a_game_that_has_not_ended_so() -> None:
    running = Game(Rules.go(9))
    _play(running, "B E5 W pass")
    resigned = running.copy()
    resigned.resign(WHITE)
    gomoku = _four_to_five()
    gomoku.play(4 * 9 + 6)
    assert gomoku.is_over
    for game in (running, resigned, gomoku):
        cells, over = game.position.cells.copy(), game.is_over
        game.play_on()
        assert np.array_equal(game.position.cells, cells) and game.is_over == over
