"""Handicap matches: the taker black with GTP's fixed stones in every game, how each engine is told them, how the
games are scored and recorded; and the resignations a match's result lists."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.core.handicap import fixed_handicap
from engine.core.rules import Rules
from engine.core.types import Color, Outcome
from engine.formats.sgf import load_sgf_file
from training.errors import PlayerError
from training.gtp_client import GTPClient
from training.gtp_player import GtpPlayer
from training.match import contestant, play_match
from training.match_config import MatchConfig
from training.players import Agent, LocalPlayer, play_through
from training.referee import referee_game

GO9 = Rules.go(9, "chinese", komi=0.5)


def _scripted_engine(log: Path, answers: dict[str, str]) -> str:
    """The command line of a GTP engine that writes every command it hears to ``log`` and answers a command's
    first word from ``answers`` (``=`` to any other)."""
    code = (
        "import sys\n"
        f"answers = {answers!r}\n"
        f"with open({str(log)!r}, 'a') as log:\n"
        "    for line in sys.stdin:\n"
        "        log.write(line); log.flush()\n"
        "        word = line.split()[0] if line.split() else ''\n"
        "        print(answers.get(word, '='), end='\\n\\n', flush=True)\n"
        "        if word == 'quit': break\n")
    return shlex.join([sys.executable, "-c", code])


def _match(*arguments: str) -> dict:
    result = CliRunner().invoke(main, ["match", *arguments, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _passer(name: str) -> Agent:
    return Agent(name, mover=lambda game, rng: game.rules.pass_action)


@pytest.mark.parametrize("taker", ["a", "b"])
def test_the_taker_is_black_with_the_fixed_stones_in_every_game_and_white_moves_first(taker: str,
                                                                                      tmp_path: Path) -> None:
    config = MatchConfig(games=3, parallel_games=2, seed=2, random_moves=2, handicap=3, handicap_taker=taker)
    result = play_match(Agent("first"), Agent("second"), GO9, config, tmp_path)
    assert result.games == 3 and result.a_black_games == (3 if taker == "a" else 0)
    records = [load_sgf_file(path) for path in sorted(tmp_path.glob("*.sgf"))]
    assert len(records) == 3
    taker_name = "first" if taker == "a" else "second"
    for record in records:
        assert record.black_name == taker_name and record.handicap == 3 and record.is_handicap
        assert sorted(record.setup_black) == sorted(fixed_handicap(3, 9))
        assert record.rules == GO9, "the record keeps the komi as given"
        assert record.moves[0].color == Color.WHITE and len(record.moves) > 2
        assert record.replay().handicap == 3
    assert len({tuple(record.moves[:2]) for record in records}) > 1, "the random moves differ game by game"


def test_bad_handicaps_are_refused_before_any_game(tmp_path: Path) -> None:
    for settings in ({"handicap": 1}, {"handicap": 10}, {"handicap": 2, "handicap_taker": "c"},
                     {"handicap": 2, "openings": ("0,0",)}):
        with pytest.raises(ValueError, match="handicap"):
            MatchConfig(**settings)  # type: ignore[arg-type]
    for rules, message in ((Rules.go(8, "chinese"), "a 8x8 board takes 2 to 4"), (Rules.go(5, "chinese"),
                           "no fixed handicap on a 5x5 board"), (Rules.gomoku(9, 5), "a handicap is for Go")):
        with pytest.raises(ValueError, match=message):
            play_match(Agent("a"), Agent("b"), rules, MatchConfig(games=1, handicap=5), tmp_path)
    assert not list(tmp_path.iterdir())
    refused = CliRunner().invoke(main, ["match", "random", "random", "--handicap", "2", "--size", "5"])
    assert refused.exit_code == 1 and "no fixed handicap on a 5x5 board" in refused.output


def test_a_handicap_game_is_scored_with_whites_bonus_and_its_player_searches_with_it() -> None:
    # both pass at once: black's two stones own the board, 81 points to a komi of 80 (B+1); Chinese counting
    # gives White 2 more for the handicap (W+1)
    rules = Rules.go(9, "chinese", komi=80)
    black, white = LocalPlayer(_passer("black")), LocalPlayer(_passer("white"))
    refereed = play_through(referee_game(black, white, rules, 0, np.random.default_rng(0),
                                         handicap=fixed_handicap(2, 9)))
    assert refereed.outcome == Outcome.from_sgf("W+1") and refereed.game.rules.komi == 80
    assert black.game.rules.komi == white.game.rules.komi == 82 and black.game.handicap == 2
    even = play_through(referee_game(black, white, rules, 0, np.random.default_rng(0)))
    assert even.outcome.winner == Color.WHITE and white.game.rules.komi == 80 and white.game.handicap == 0
    japanese = play_through(referee_game(black, white, Rules.go(9, "japanese", komi=78.5), 0,
                                         np.random.default_rng(0), handicap=fixed_handicap(2, 9)))
    assert japanese.outcome == Outcome.from_sgf("B+0.5"), "no bonus under territory scoring: 79 points to 78.5"


def test_gtp_engines_get_set_free_handicap_without_fixed_handicap_and_so_does_the_referee(tmp_path: Path) -> None:
    engines = {side: _scripted_engine(tmp_path / f"{side}.log", {"genmove": "= pass"}) for side in ("a", "b")}
    referee = _scripted_engine(tmp_path / "referee.log", {"final_score": "= W+3"})
    summary = _match(engines["a"], engines["b"], "--games", "2", "--handicap", "3", "--komi", "0.5",
                     "--referee", referee, "--sgf-dir", str(tmp_path / "games"))
    assert summary["games"] == 2 and summary["a_black_games"] == 0 and summary["wins"] == 2  # A is white
    for side in ("a", "b", "referee"):
        heard = (tmp_path / f"{side}.log").read_text().splitlines()
        stones = [sorted(line.split()[1:]) for line in heard if line.startswith("set_free_handicap")]
        assert stones == [["C3", "C7", "G7"]] * 2, (side, heard)
        assert heard.index("komi 0.5") < min(i for i, line in enumerate(heard) if line.startswith("set_free"))
    first_moves = [line for line in (tmp_path / "a.log").read_text().splitlines() if line.startswith("genmove")]
    assert first_moves == ["genmove W", "genmove W"], "white moves first after the stones"


def test_an_engine_that_places_other_fixed_stones_is_named(tmp_path: Path) -> None:
    wrong = _scripted_engine(tmp_path / "wrong.log", {"known_command": "= true", "fixed_handicap": "= A1 B1"})
    with GTPClient(shlex.split(wrong), name="wrong") as client:
        player = GtpPlayer(client)
        player.new_game(GO9, 0)
        with pytest.raises(PlayerError, match="wrong placed A1 B1 for fixed_handicap 2, not C3 G7"):
            player.place_handicap(fixed_handicap(2, 9))


@pytest.mark.gnugo
def test_gnugo_and_our_engine_place_the_same_fixed_stones(gnugo_path: str, tmp_path: Path) -> None:
    ours = f"{sys.executable} -c 'from engine.cli import main; main()' gtp --model uniform --visits 4"
    summary = _match(f"{gnugo_path} --mode gtp --level 0", ours, "--games", "1", "--handicap", "9",
                     "--handicap-taker", "a", "--komi", "0.5", "--sgf-dir", str(tmp_path))
    assert summary["games"] == 1 and summary["a_black_games"] == 1
    record = load_sgf_file(tmp_path / "game-0001.sgf")
    assert record.handicap == 9 and record.black_name == "A" and record.moves[0].color == Color.WHITE


def test_resignations_are_listed_by_game_side_colour_and_move_and_survive_a_resume(tmp_path: Path) -> None:
    resigner = _scripted_engine(tmp_path / "resigner.log", {"genmove": "= resign"})
    passer = _scripted_engine(tmp_path / "passer.log", {"genmove": "= pass"})
    games = ["--size", "5", "--sgf-dir", str(tmp_path / "games")]
    summary = _match(resigner, passer, "--games", "2", *games)
    # game 1: A black resigns at once; game 2: B black passes, A resigns at move 2
    expected = [{"game": 1, "by": "A", "color": "B", "move": 1}, {"game": 2, "by": "A", "color": "W", "move": 2}]
    assert summary["resignations"] == expected and (summary["a_resigned"], summary["b_resigned"]) == (2, 0)
    resumed = _match(resigner, passer, "--games", "3", "--resume", *games)
    assert resumed["resumed"] == 2 and resumed["resignations"] == [*expected, {**expected[0], "game": 3}]
    handicap = _match(passer, resigner, "--games", "1", "--handicap", "2", "--size", "9")
    assert handicap["resignations"] == [{"game": 1, "by": "B", "color": "B", "move": 2}]   # W passed, B resigned
    text = CliRunner().invoke(main, ["match", resigner, passer, "--games", "1", "--size", "5"])
    assert "resigned: A 1, B 0" in text.output


def test_a_resumed_handicap_match_refuses_games_of_another_handicap(tmp_path: Path) -> None:
    passer = _scripted_engine(tmp_path / "passer.log", {"genmove": "= pass"})
    games = ["--sgf-dir", str(tmp_path / "games"), "--random-moves", "2"]
    first = _match(passer, passer, "--games", "1", "--handicap", "4", *games)
    again = _match(passer, passer, "--games", "2", "--handicap", "4", "--resume", *games)
    assert first["games"] == 1 and again["games"] == 2 and again["resumed"] == 1
    refused = CliRunner().invoke(main, ["match", passer, passer, "--games", "2", "--resume", *games])
    assert refused.exit_code == 1 and "game-0001.sgf is not a finished game of this match" in refused.output
    assert "handicap 4" in refused.output


def test_players_in_child_processes_take_the_stones_too(tmp_path: Path) -> None:
    config = MatchConfig(games=2, seed=3, jobs=2, handicap=2, handicap_taker="a")
    a, b = contestant("random", "A", GO9, config), contestant("random", "B", GO9, config)
    result = play_match(a, b, GO9, config, tmp_path)
    assert result.games == 2 and result.a_black_games == 2
    for path in sorted(tmp_path.glob("*.sgf")):
        record = load_sgf_file(path)
        assert record.is_handicap and record.black_name.startswith("A ") and record.replay().is_over
