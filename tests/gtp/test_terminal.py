"""``engine play``: a human against the engine in the terminal, bad input answered and the board unchanged."""

from __future__ import annotations

import io
import itertools

import numpy as np
from click.testing import CliRunner

from engine import Color
from engine.cli import main
from gtp.state import EngineState
from gtp.terminal import TerminalGame
from tests.gtp.helpers import front_end_config


def play(lines: str, human: Color = Color.BLACK, size: int = 3, **fields: object) -> tuple[TerminalGame, str]:
    """A terminal game of Chain Reaction against the engine (uniform priors, 8 visits) fed ``lines``."""
    state = EngineState(front_end_config(visits=8, batch=4, seed=1, game="chain-reaction", size=size, **fields))
    state.start(background=False)
    output = io.StringIO()
    session = TerminalGame(state, human, io.StringIO(lines), output)
    session.run()
    return session, output.getvalue()


def test_bad_input_is_answered_and_changes_nothing() -> None:
    session, output = play("z9\nb2\npass\nundo\nfoo\n")
    errors = [answer.splitlines()[0] for answer in output.split("your move (X): ") if answer.startswith("error")]
    assert errors == ["error: vertex 'z9' is off a 3x3 board",
                      "error: illegal move pass: there is no pass in this game",
                      "error: invalid vertex 'foo': expected a letter A-Z (no I) and a row number"]
    assert "you have no move to take back" not in output   # the undo took back b2 and the engine's reply
    assert session.state.game.moves == []


def test_a_move_on_the_opponents_cell_is_refused() -> None:
    session, output = play("b2\n", human=Color.WHITE)
    engine_move = session.state.game.moves[0]
    vertex = session.state.vertex(engine_move.action)
    _, output = play(f"{vertex}\n", human=Color.WHITE)
    assert f"illegal move {vertex}: occupied" in output
    assert "undo" in output and " X1 " in output   # the help, and the engine's orb on the board


def test_undo_without_a_move_of_ones_own_is_refused() -> None:
    _, output = play("undo\n", human=Color.WHITE)
    assert "error: you have no move to take back" in output


def test_a_game_is_played_to_its_end() -> None:
    cells = "".join(f"{c}{r}\n" for c, r in itertools.product("ab", "12"))
    session, output = play(cells * 40, size=2)
    outcome = session.state.game.outcome()
    assert outcome is not None and outcome.reason == "elimination"
    assert output.rstrip().endswith(("you win by elimination", "the engine wins by elimination"))
    owners = session.state.game.position.board()
    assert np.count_nonzero(owners == outcome.winner) > 0 and not (owners == outcome.winner.opponent).any()


def test_the_play_command_draws_the_board_and_quits() -> None:
    result = CliRunner().invoke(main, ["play", "--size", "4", "--model", "uniform", "--visits", "4", "--color",
                                       "white"], input="a1\nquit\n")
    assert result.exit_code == 0, result.output
    assert "engine (X) plays" in result.output and "O1" in result.output and "move 3, X to play" in result.output
    result = CliRunner().invoke(main, ["play", "--rules", "chain-reaction size=5x7"])
    assert result.exit_code != 0 and "not square" in result.output
