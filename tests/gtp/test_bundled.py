"""The network bundled for the rules in play: Go's by board size, renju's for renju, freestyle's for freestyle and
standard, random-playout MCTS where none ships; chosen again when the board or the rules change."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

import engine.nn.networks as networks
from engine import EvaluatorOptions, RolloutEvaluator
from engine.core.rules import Rules
from engine.nn.cached_evaluator import CachedNetEvaluator
from engine.nn.networks import LARGE_GO_BOARD, bundled_model, network_family
from gtp.gomocup import GomocupBrain
from gtp.state import EngineState
from tests.gtp.helpers import front_end_config, run_session
from training.models import BootstrapConfig, bootstrap


@pytest.fixture(scope="module")
def gomoku_networks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two tiny size-independent Gomoku networks, one per rules family."""
    folder = tmp_path_factory.mktemp("bundled")
    return {family: bootstrap(folder / f"{family}.safetensors",
                              BootstrapConfig("gomoku", 15, blocks=1, filters=8, heads="pooled", seed=seed))
            for seed, family in enumerate(("gomoku-freestyle", "gomoku-renju"))}


@pytest.fixture
def bundled(monkeypatch: pytest.MonkeyPatch, gomoku_networks: dict[str, Path]) -> dict[str, Path]:
    monkeypatch.setattr(networks, "BUNDLED", {**networks.BUNDLED, **{k: str(v) for k, v in gomoku_networks.items()}})
    return gomoku_networks


@pytest.fixture(scope="module")
def large_go_network(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny size-independent Go network standing for the one learnt on 19x19."""
    folder = tmp_path_factory.mktemp("bundled-go")
    return bootstrap(folder / "go-large.safetensors", BootstrapConfig("go", 19, blocks=1, filters=8, heads="pooled"))


def test_families() -> None:
    assert network_family("gomoku") == "gomoku-freestyle"
    assert network_family(Rules.gomoku(15, 5, "renju")) == "gomoku-renju"
    assert network_family(Rules.gomoku(19, 5, "standard")) == "gomoku-freestyle"
    assert network_family(Rules.gomoku(6, 4)) is None  # no network is trained for four in a row
    assert network_family(Rules.go(9)) == "go" and bundled_model(Rules.go(9)) is not None


def test_go_plays_the_network_of_its_board_size(monkeypatch: pytest.MonkeyPatch, large_go_network: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    if "go-large" not in networks.BUNDLED:   # without a large-board network the 9x9 one plays every size
        assert network_family(Rules.go(19)) == "go"
    monkeypatch.setattr(networks, "BUNDLED", {**networks.BUNDLED, "go-large": str(large_go_network)})
    assert network_family(Rules.go(12)) == "go" and network_family(Rules.go(LARGE_GO_BOARD)) == "go-large"
    assert network_family("go") == "go-large"   # the game's default board is 19x19
    with caplog.at_level(logging.INFO, logger="gtp.state"):
        output = run_session("boardsize 19\ngenmove b\nboardsize 9\ngenmove w\nboardsize 13\ngenmove b\n",
                             bundled=True, network_free="rollouts", visits=8,
                             evaluator=EvaluatorOptions(seed=1, runtime="eager"))   # no compile left at exit
    assert "?" not in output
    assert f"network: {large_go_network}" in caplog.text
    assert f"network: {bundled_model(Rules.go(9))} (for 9x9)" in caplog.text
    assert f"{bundled_model(Rules.go(9))} below 13x13, {large_go_network} from there up" in caplog.text


@pytest.mark.parametrize(("rules", "family"), [("renju", "gomoku-renju"), ("freestyle", "gomoku-freestyle"),
                                               ("standard", "gomoku-freestyle"), ("freestyle k=4", None)])
def test_gtp_plays_the_network_of_its_rules(bundled: dict[str, Path], caplog: pytest.LogCaptureFixture,
                                            rules: str, family: str | None) -> None:
    config = front_end_config(game="gomoku", rules=rules, network_free="rollouts", bundled=True, visits=8)
    state = EngineState(config)
    with caplog.at_level(logging.INFO, logger="gtp.state"):
        state.start(background=False)
    expected = f"network: {bundled[family]}" if family else "none bundled for gomoku"
    assert expected in caplog.text
    assert isinstance(state.player.evaluator, CachedNetEvaluator if family else RolloutEvaluator)


def test_without_a_bundled_gomoku_network_it_plays_rollouts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(networks, "BUNDLED", {"go": networks.BUNDLED["go"]})
    state = EngineState(front_end_config(game="gomoku", network_free="rollouts", bundled=True, visits=8))
    state.start(background=False)
    assert type(state.player.evaluator).__name__ == "RolloutEvaluator"


def test_gomocup_rule_changes_switch_networks(bundled: dict[str, Path]) -> None:
    config = front_end_config(game="gomoku", network_free="rollouts", bundled=True, visits=8, seed=1)
    out = io.BytesIO()
    brain = GomocupBrain(config, io.BytesIO(b"START 15\nINFO rule 4\nBEGIN\n"), out)
    brain.run()
    assert out.getvalue().decode().splitlines()[0] == "OK"
    assert brain.state.rules.variant == "renju"
    assert brain.state.config.model_for(brain.state.rules) == str(bundled["gomoku-renju"])
    assert brain.state.player.evaluator is brain.state._evaluator_for(brain.state.rules)
