"""Renju matches replayed through the rules core: our black never plays a forbidden point.

The same check runs on any match's SGF output: ``engine check-games SGF_DIR --rules renju``
(``experiments/gomoku15/run.sh`` runs it after every renju match).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.rules import Rules
from engine.formats.sgf import dump_sgf
from engine.nn.loading import EvaluatorOptions
from training.match import make_agent, play_match
from training.match_config import MatchConfig
from training.models import BootstrapConfig, bootstrap
from training.replay import check_games
from training.settings import replace_paths

RENJU9 = Rules.gomoku(9, 5, "renju")
# After these moves black's H5 is a forbidden point under renju (freestyle allows it).
MOVES = ["H2", "E1", "F2", "C7", "H3", "A9", "D2", "F7", "E2", "G2", "G4", "D7"]


def test_a_renju_match_never_has_our_black_on_a_forbidden_point(tmp_path: Path) -> None:
    """A random 9x9 network (near-uniform priors, so it would try forbidden points if the search let it) plays
    both colours against random moves; every game is replayed under renju and black met forbidden points."""
    model = bootstrap(tmp_path / "renju9.safetensors", BootstrapConfig("gomoku", 9, blocks=1, filters=8, seed=3))
    config = replace_paths(MatchConfig(games=6, parallel_games=6, seed=1),
                           {"player.visits": 16, "player.resign_threshold": None})
    # Without decisive moves or the threat guard, which would end the games before black meets a forbidden
    # point, and with the symmetries seeded, so that the games are the same on every run.
    agent = make_agent(str(model), RENJU9, config, EvaluatorOptions(random_symmetry=True, seed=5, runtime="eager",
                                                                     decisive=False))
    ours = replace(agent, config=replace(agent.config, threat_guard=False))
    opponent = make_agent("random", RENJU9, config)
    play_match(ours, opponent, RENJU9, config, tmp_path / "games")
    summary = check_games(tmp_path / "games", RENJU9)
    assert summary.ok, summary.describe()
    assert summary.games == 6 and summary.black_moves_facing_forbidden > 0, summary.describe()


def test_the_check_fails_on_a_forbidden_black_move(tmp_path: Path) -> None:
    game = Game(Rules.gomoku(9, 5, "freestyle"))
    for vertex in [*MOVES, "H5"]:
        game.play(gtp_to_action(vertex, 9))
    (tmp_path / "game.sgf").write_text(dump_sgf(game))
    assert check_games(tmp_path).ok  # legal under the file's own rules, freestyle
    summary = check_games(tmp_path, RENJU9)
    assert not summary.ok and "move 13 (B H5) is illegal" in summary.problems[0]
    outcome = CliRunner().invoke(main, ["check-games", str(tmp_path), "--rules", "renju"])
    assert outcome.exit_code == 1 and "move 13 (B H5)" in outcome.output


@pytest.mark.parametrize("variant", ["renju", "freestyle"])
def test_the_check_passes_legal_games_and_reads_each_files_rules(tmp_path: Path, variant: str) -> None:
    game = Game(Rules.gomoku(9, 5, variant))
    for vertex in MOVES:
        game.play(gtp_to_action(vertex, 9))
    (tmp_path / "game.sgf").write_text(dump_sgf(game))
    outcome = CliRunner().invoke(main, ["check-games", str(tmp_path), "--json"])
    assert outcome.exit_code == 0, outcome.output
    assert '"games": 1' in outcome.output and '"black_moves": 6' in outcome.output
