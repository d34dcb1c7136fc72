"""The whole pipeline through the commands, on 5x5 Go in a temporary folder (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.core.game import Game
from engine.core.rules import Rules
from engine.nn.loading import EvaluatorOptions, load_evaluator
from engine.nn.model_file import read_info
from engine.search.config import PlayerConfig
from engine.search.player import Player
from training.records import list_records

pytestmark = pytest.mark.slow


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


def test_bootstrap_selfplay_gather_train_validate_genmove(tmp_path: Path) -> None:
    first, second = str(tmp_path / "000000.safetensors"), str(tmp_path / "000001.safetensors")
    _run("bootstrap", first, "--game", "go", "--size", "5", "--blocks", "1", "--filters", "8")
    games, sgf, chunks, holdout = (str(tmp_path / name) for name in ("games", "sgf", "chunks", "holdout"))
    summary = json.loads(_run("selfplay", first, "--readouts", "16", "--games", "2", "--output-dir", games,
                              "--output-sgf", sgf, "--full-search-pct", "100", "--holdout-pct", "50",
                              "--runtime", "eager", "--seed", "7", "--json"))
    assert summary["games"] == 2 and summary["moves"] == summary["targets"] > 0
    assert len(list(Path(sgf).glob("*.sgf"))) == 2
    gathered = 0
    for source, target in ((games, chunks), (str(Path(games) / "holdout"), holdout)):
        if list_records(source):
            gathered += json.loads(_run("gather", "--input-directory", source, "--output-directory", target,
                                        "--model", first, "--json"))["samples"]
    assert gathered == summary["targets"]
    data = chunks if Path(chunks).is_dir() else holdout
    trained = json.loads(_run("train", data, second, "--load-file", first, "--steps", "5", "--batch-size", "8",
                              "--threads", "1", "--logdir", str(tmp_path / "tb"), "--json"))
    assert trained["steps"] == 5 and read_info(second).generation == 1
    check = holdout if Path(holdout).is_dir() else chunks
    scores = json.loads(_run("validate", check, "--load-file", second, "--json"))
    assert scores["model"] == "000001-b1c8" and scores["file"] == second
    assert 0 <= scores["top1"] <= 1 and scores["policy_loss"] > 0
    rules = Rules.go(5)
    evaluator = load_evaluator(rules, second, EvaluatorOptions(runtime="eager"))
    game = Game(rules)
    decision = Player(evaluator, PlayerConfig(visits=16, resign_threshold=None)).choose(game)
    assert decision.action is not None and game.is_legal(decision.action)
    match = json.loads(_run("evaluate", second, "random", "--games", "2", "--visits", "8", "--runtime", "eager",
                            "--json"))
    assert match["games"] == 2 and match["a"] == "000001-b1c8"


def test_selfplay_workers_split_the_games(tmp_path: Path) -> None:
    model = str(tmp_path / "m.safetensors")
    _run("bootstrap", model, "--game", "gomoku", "--size", "6", "--blocks", "1", "--filters", "8")
    summary = json.loads(_run("selfplay", model, "--rules", "freestyle size=6 k=4", "--readouts", "8", "--games",
                              "3", "--workers", "2", "--output-dir", str(tmp_path / "games"), "--holdout-pct", "0",
                              "--runtime", "eager", "--json"))
    assert summary["games"] == 3 and len(list_records(tmp_path / "games")) == 3
