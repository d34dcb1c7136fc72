"""evaluate: Wilson intervals, Elo, baselines, colour alternation and SGF output."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from engine.core.position import Position
from engine.formats.diagram import parse_diagram
from engine.formats.sgf import load_sgf_file
from engine.search.evaluator import RolloutEvaluator
from tests.training.conftest import GO5, GOMOKU6, eager_evaluator
from training.baselines import random_move
from training.match import make_agent, play_match
from training.match_config import MatchConfig
from training.players import Agent
from training.settings import replace_paths
from training.stats import MatchResult, elo_difference, elo_interval, wilson_interval


def test_wilson_interval_matches_published_values() -> None:
    # Wilson 95% intervals as tabulated by Newcombe (1998): 0/10 -> (0, 0.2775); 5/10 -> (0.2366, 0.7634)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    low, high = wilson_interval(81, 263)
    assert (low, high) == pytest.approx((0.2553, 0.3662), abs=1e-4)


def test_elo_difference() -> None:
    assert elo_difference(0.5, 100) == pytest.approx(0.0)
    assert elo_difference(0.75, 100) == pytest.approx(400 * math.log10(3))
    assert elo_difference(0.25, 100) == pytest.approx(-400 * math.log10(3))
    assert math.isfinite(elo_difference(1.0, 10)) and elo_difference(1.0, 10) == pytest.approx(
        400 * math.log10(19))  # clipped to 1 - 1/20
    low, high = elo_interval(60, 100)
    assert low < elo_difference(0.6, 100) < high


def test_match_result_counts_draws_as_half() -> None:
    result = MatchResult("a", "b", wins=6, losses=2, draws=2)
    assert result.games == 10 and result.rate == pytest.approx(0.7)
    assert result.to_dict()["win_rate_interval"] == list(wilson_interval(7, 10))


def test_agents_by_name() -> None:
    config = MatchConfig()
    assert make_agent("random", GOMOKU6, config).evaluator is None
    default = make_agent("mcts-rollouts", GOMOKU6, config)
    assert default.config.visits == 1000 and isinstance(default.evaluator, RolloutEvaluator)
    assert (default.config.search.c_puct, default.config.search.batch_size) == (5.0, 1)  # the seeds' pure MCTS
    assert default.config.resign_threshold == config.player.resign_threshold
    assert make_agent("MCTS-Rollouts:64", GOMOKU6, config).name == "mcts-rollouts:64"
    with pytest.raises(ValueError, match="mcts-rollouts:N"):
        make_agent("mcts-rollouts:many", GOMOKU6, config)


def test_random_moves_are_legal_and_spread() -> None:
    from engine.core.game import Game

    rng = np.random.default_rng(0)
    game = Game(GO5)
    seen = {random_move(game, rng) for _ in range(200)}
    assert len(seen) == 25 and all(game.is_legal(a) for a in seen)


def test_rollouts_value_a_won_position_for_the_side_to_move() -> None:
    board = parse_diagram("""
        . . . . . .
        . . . . . .
        . X X X . .
        . . . . . .
        . O . . . .
        O . . . . .
    """)
    evaluator = RolloutEvaluator(rollouts=200, seed=1)
    black = Position.from_board(GOMOKU6, board, to_play=1)
    white = Position.from_board(GOMOKU6, board, to_play=2)
    evaluation = evaluator.evaluate([black, white])
    values, priors = evaluation.values, evaluation.priors
    assert values[0] > 0.5  # black completes the open three more often than not
    assert values[1] < values[0]
    assert np.allclose(priors.sum(axis=1), 1.0) and priors[0, 36] == 0


def test_colours_alternate_and_games_are_written(tmp_path: Path) -> None:
    config = MatchConfig(games=5, parallel_games=3, seed=4)
    result = play_match(Agent("random"), Agent("random2"), GOMOKU6, config, tmp_path)
    assert result.games == 5 and result.a_black_games == 3
    files = sorted(tmp_path.glob("*.sgf"))
    assert len(files) == 5
    first = load_sgf_file(files[0])
    assert first.black_name == "random" and first.white_name == "random2"
    assert load_sgf_file(files[1]).black_name == "random2"
    assert all(load_sgf_file(f).replay().is_over for f in files)


def test_each_opening_is_played_twice_with_colours_swapped_and_pairs_are_counted(tmp_path: Path) -> None:
    openings = ("0,0, 1,1, -1,1", "-2,-2, 2,2, 0,1")   # offsets from 6x6's centre point 3,3
    config = MatchConfig(games=6, parallel_games=2, seed=1, openings=openings)
    result = play_match(Agent("random"), Agent("random2"), GOMOKU6, config, tmp_path)
    records = [load_sgf_file(path) for path in sorted(tmp_path.glob("*.sgf"))]
    starts = [tuple(move.action for move in record.moves[:3]) for record in records]
    assert starts[0] == starts[1] == (3 * 6 + 3, 4 * 6 + 4, 4 * 6 + 2)
    assert starts[2] == starts[3] == (1 * 6 + 1, 5 * 6 + 5, 4 * 6 + 3)
    assert starts[4] == starts[0], "the list cycles"
    assert [record.black_name for record in records[:2]] == ["random", "random2"]
    counts = result.to_dict()["opening_pairs"]
    assert counts["pairs"] == 3 and sum(counts[k] for k in counts if k != "pairs") == 3
    assert sum(points for points, _ in result.pairs.values()) == result.score
    assert "3 opening pairs" in result.describe()


def test_engine_match_reads_an_opening_list(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from engine.cli import main

    path = tmp_path / "openings.txt"
    path.write_text("-8,-7, -6,-6, -5,-5\n0,0, 1,0, 0,1\n")
    arguments = ["evaluate", "random", "random", "--rules", "freestyle size=9", "--games", "2", "--json",
                 "--openings", str(path), "--sgf-dir", str(tmp_path / "games")]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    records = [load_sgf_file(p) for p in sorted((tmp_path / "games").glob("*.sgf"))]
    assert [m.action for m in records[1].moves[:3]] == [4 * 9 + 4, 4 * 9 + 5, 5 * 9 + 4]   # only one fits 9x9
    far = CliRunner().invoke(main, arguments[:-2] + ["--openings-within", "0"])
    assert far.exit_code == 1 and "no opening fits the 9x9 board within 0 points" in far.output


def test_pure_mcts_beats_the_random_player() -> None:
    config = MatchConfig(games=6, parallel_games=6, seed=5)
    mcts = make_agent("mcts-rollouts:100", GOMOKU6, config)
    result = play_match(mcts, make_agent("random", GOMOKU6, config), GOMOKU6, config)
    assert result.games == 6 and result.wins >= 5


def test_a_network_plays_a_baseline(go5_model: Path) -> None:
    config = replace_paths(MatchConfig(games=2, parallel_games=2, seed=6),
                           {"player.visits": 8, "player.search.batch_size": 4})
    agent = Agent("net", eager_evaluator(go5_model, GO5), config.player)
    result = play_match(agent, make_agent("random", GO5, config), GO5, config)
    assert result.games == 2 and result.moves > 0


def test_a_model_file_plays_in_this_process_in_engine_match(go5_model: Path, tmp_path: Path) -> None:
    import sys

    from click.testing import CliRunner

    from engine.cli import main
    from training.match import is_local

    assert is_local(str(go5_model)) and is_local("gomokubench:hard") and is_local("random")
    assert not is_local(sys.executable) and not is_local(f"{go5_model} --visits 8")  # a program, a command line
    assert not is_local(str(tmp_path))  # a folder is no model
    result = CliRunner().invoke(main, ["match", str(go5_model), "random", "--size", "5", "--games", "2", "--json",
                                       "--visits", "8", "--sgf-dir", str(tmp_path / "games")])
    assert result.exit_code == 0, result.output
    assert '"games": 2' in result.output
    records = [load_sgf_file(path) for path in sorted((tmp_path / "games").glob("*.sgf"))]
    assert [record.black_name for record in records] == ["A", "B"] and all(record.moves for record in records)


def test_engine_match_runs_a_model_file_as_told(go5_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--dtype, --runtime and --threads reach the network a model file plays with (on a loaded machine one
    thread can be several times faster)."""
    import torch
    from click.testing import CliRunner

    import engine
    from engine.cli import main

    seen = []
    load = engine.load_evaluator
    monkeypatch.setattr(engine, "load_evaluator", lambda rules, spec, options: seen.append(options) or load(
        rules, spec, options))
    threads = torch.get_num_threads()
    try:
        result = CliRunner().invoke(main, ["match", str(go5_model), "random", "--size", "5", "--games", "1",
                                           "--visits", "8", "--dtype", "fp32", "--runtime", "eager", "--threads", "1"])
        assert result.exit_code == 0, result.output
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(threads)
    assert [(options.dtype, options.runtime) for options in seen] == [("fp32", "eager")]
