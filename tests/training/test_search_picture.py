"""One search pictured: the tree's shape read back, drawn, and asked for from the command line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from click.testing import CliRunner

from engine.cli import main
from engine.core.game import Game
from engine.core.rules import Rules
from engine.search.config import SearchConfig
from engine.search.evaluator import UniformEvaluator
from engine.search.mcts import Search
from training.search_picture import draw_search, picture_search


def test_the_picture_reads_the_trees_visits_and_depths() -> None:
    game = Game(Rules.chain_reaction(4))
    config = SearchConfig(batch_size=4)
    picture = picture_search(game, UniformEvaluator(), 120, config, seed=3)
    result = Search(game, UniformEvaluator(), config, seed=3).run(120)   # the same search again
    assert np.array_equal(picture.visits, result.visits.astype(np.int64))
    assert picture.nodes_by_depth[0] == 1 and picture.nodes_by_depth[1] == np.count_nonzero(result.visits)
    assert picture.nodes_by_depth.sum() <= 1 + picture.visits.sum()   # a simulation visits one new node at most
    visited = picture.visits > 0
    assert (picture.deepest[visited] >= 1).all() and (picture.deepest[~visited] == 0).all()
    assert picture.deepest[result.pv[0]] >= len(result.pv)   # the principal line is one of the lines under its move
    assert picture.deepest.max() == picture.nodes_by_depth.shape[0] - 1


def test_draw_search_writes_a_png(tmp_path: Path) -> None:
    game = Game(Rules.go(5))
    game.play(12)
    path = draw_search(picture_search(game, UniformEvaluator(), 40), tmp_path / "search.png", "title")
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_the_command_pictures_a_models_search_and_refuses_a_bad_move(tmp_path: Path, go5_model: Path) -> None:
    output = tmp_path / "search.png"
    result = CliRunner().invoke(main, ["search-picture", str(go5_model), str(output), "--moves", "C3 B2",
                                       "--visits", "30", "--runtime", "eager"])
    assert result.exit_code == 0, result.output
    assert output.read_bytes()[:4] == b"\x89PNG" and "29 visits" in result.output
    bad = tmp_path / "bad.png"
    result = CliRunner().invoke(main, ["search-picture", str(go5_model), str(bad), "--moves", "C3 C3"])
    assert result.exit_code == 1 and "occupied" in result.output and not bad.exists()
