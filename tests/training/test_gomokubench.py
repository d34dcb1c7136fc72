"""gomokubench's alpha-beta player as a named baseline: the package's own moves, renju's forbidden points
kept out, and the name in ``engine evaluate`` and ``engine match``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.core.coords import action_to_gtp, gtp_to_action
from engine.core.game import Game
from engine.core.rules import Rules
from training.match import contestant, make_agent, play_match
from training.match_config import MatchConfig

ai = pytest.importorskip("libs.ai", reason="gomokubench is not installed (pip install gomokubench)")
from training.gomokubench import GomokubenchPlayer  # noqa: E402  (after the skip)

# A 9x9 freestyle game (seed 13 of a search for such positions) after which gomokubench's choice for black,
# H5, is a forbidden point under renju.
MOVES = ["H2", "E1", "F2", "C7", "H3", "A9", "D2", "F7", "E2", "G2", "G4", "D7"]


def _game(variant: str, moves: list[str] = MOVES, size: int = 9) -> Game:
    game = Game(Rules.gomoku(size, 5, variant))
    for vertex in moves:
        game.play(gtp_to_action(vertex, size))
    return game


@pytest.mark.parametrize(("level", "moves"), [("standard", 12), ("hard", 2)])  # hard: 3 plies, few stones
def test_it_plays_the_packages_own_move_under_freestyle(level: str, moves: int) -> None:
    """The root we run is gomokubench's get_best_move: the same move on the same board."""
    game = _game("freestyle", MOVES[:moves])
    player = GomokubenchPlayer(level)
    ours = player(game, np.random.default_rng(0))
    theirs, _ = ai.get_best_move(player._state(game), player.settings["depth"], True,
                                 player.settings["candidate_count"], player.settings["random_top_n"])
    assert ours == theirs[0] * 9 + theirs[1]


def test_under_renju_black_never_plays_a_forbidden_point() -> None:
    free, renju = _game("freestyle"), _game("renju")
    player = GomokubenchPlayer("standard")
    wanted = player(free, np.random.default_rng(0))
    assert action_to_gtp(wanted, 9) == "H5" and not renju.is_legal(wanted)  # the position still means something
    chosen = player(renju, np.random.default_rng(0))
    assert renju.is_legal(chosen) and chosen != wanted


def test_its_randomness_is_the_match_generators() -> None:
    player = GomokubenchPlayer("easy")
    empty = Game(Rules.gomoku(15))
    firsts = {player(empty, np.random.default_rng(seed)) for seed in range(20)}
    assert firsts <= {gtp_to_action(v, 15) for v in ("G7", "G8", "G9", "H7", "H8", "H9", "J7", "J8", "J9")}
    assert len(firsts) > 1
    game = _game("freestyle")
    assert player(game, np.random.default_rng(5)) == player(game, np.random.default_rng(5))


def test_names_levels_and_rules() -> None:
    rules = Rules.gomoku(9, 5, "renju")
    assert make_agent("gomokubench", rules, MatchConfig()).name == "gomokubench:hard"
    assert make_agent("Gomokubench:easy", rules, MatchConfig()).name == "gomokubench:easy"
    with pytest.raises(ValueError, match="easy, standard, hard"):
        make_agent("gomokubench:expert", rules, MatchConfig())
    with pytest.raises(ValueError, match="five in a row"):
        make_agent("gomokubench", Rules.go(9), MatchConfig())
    with pytest.raises(ValueError, match="five in a row"):
        make_agent("gomokubench", Rules.gomoku(9, 4), MatchConfig())


def test_a_renju_match_in_process_and_through_engine_match(tmp_path: Path) -> None:
    rules = Rules.gomoku(9, 5, "renju")
    config = MatchConfig(games=2, parallel_games=2)
    a, b = make_agent("gomokubench:easy", rules, config), make_agent("random", rules, config)
    result = play_match(a, b, rules, config, tmp_path / "evaluate")
    assert result.games == 2 and len(list((tmp_path / "evaluate").glob("*.sgf"))) == 2
    sides = replace(config, random_moves=2, scorer="b")
    a, b = contestant("gomokubench:easy", "A", rules, sides), contestant("mcts-rollouts:8", "B", rules, sides)
    gtp = play_match(a, b, rules, sides)
    assert gtp.games == 2 and gtp.a_move_seconds > 0 and gtp.b_move_seconds > 0 and gtp.b == "mcts-rollouts:8"


def test_engine_match_takes_baseline_names_and_gomoku_rules(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(main, ["match", "gomokubench:easy", "random", "--rules", "renju", "--size", "9",
                                        "--games", "2", "--random-moves", "2", "--sgf-dir", str(tmp_path), "--json"])
    assert outcome.exit_code == 0, outcome.output
    result = json.loads(outcome.stdout.strip().splitlines()[-1])
    assert result["rules"] == "renju size=9 k=5" and result["games"] == 2
    assert result["a"] == "gomokubench:easy" and result["b"] == "random"


def test_gomokubench_games_are_legal_varied_and_resumable(tmp_path: Path) -> None:
    from training.gomokubench_games import GomokubenchGamesConfig, write_gomokubench_games
    from training.replay import check_games

    config = GomokubenchGamesConfig(games=3, rules=Rules.gomoku(9, 5, "renju"), levels=("easy",), seed=4)
    assert write_gomokubench_games(tmp_path, config).written == 3
    again = write_gomokubench_games(tmp_path, GomokubenchGamesConfig(**{**config.__dict__, "games": 4}))
    assert (again.written, again.already) == (1, 3)
    files = sorted(tmp_path.glob("gomokubench-4-*.sgf"))
    assert len(files) == 4 and len({f.read_text() for f in files}) == 4
    assert "PB[gomokubench:easy]" in files[0].read_text()
    summary = check_games(tmp_path)
    assert summary.ok and summary.games == 4, summary.describe()
    outcome = CliRunner().invoke(main, ["gomokubench-games", str(tmp_path / "cli"), "--games", "1", "--rules",
                                        "freestyle size=9", "--levels", "easy"])
    assert outcome.exit_code == 0 and "1 games written" in outcome.output, outcome.output


def test_gomokubench_games_in_worker_processes_are_the_games_of_one_process(tmp_path: Path) -> None:
    from training.gomokubench_games import GomokubenchGamesConfig, write_gomokubench_games

    config = GomokubenchGamesConfig(games=4, rules=Rules.gomoku(9), levels=("easy",), seed=7)
    write_gomokubench_games(tmp_path / "one", config)
    ticks: list[None] = []
    summary = write_gomokubench_games(tmp_path / "two", replace(config, jobs=2), lambda: ticks.append(None))
    assert summary.written == 4 and len(ticks) == 4
    one = {f.name: f.read_text() for f in (tmp_path / "one").glob("*.sgf")}
    two = {f.name: f.read_text() for f in (tmp_path / "two").glob("*.sgf")}
    assert len(one) == 4 and one == two


def test_gomokubench_games_refuse_what_gomokubench_cannot_play_before_any_job(tmp_path: Path) -> None:
    from training.gomokubench_games import GomokubenchGamesConfig, write_gomokubench_games

    with pytest.raises(ValueError, match="unknown gomokubench level 'grandmaster'"):
        write_gomokubench_games(tmp_path, GomokubenchGamesConfig(games=2, rules=Rules.gomoku(9),
                                                                 levels=("grandmaster",), jobs=2))
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        GomokubenchGamesConfig(jobs=0)
    assert not list(tmp_path.iterdir())
