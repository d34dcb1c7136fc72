"""KaTrain drives ``engine analysis``: its own engine class (``katrain.core.engine.KataGoEngine``), headless,
through a short game and KaTrain's game review, with its KataGo path set to ``engine`` and its model to ours.

KaTrain is a dev dependency (docs/analysis.md, *Use with KaTrain*); ``test_kata_analysis`` replays the queries it
sent.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.core.rules import Rules
from engine.nn.networks import bundled_model

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("KIVY_NO_ARGS", "1")  # KaTrain's modules import kivy: no argument parsing, no console log,
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")  # and no window is ever opened
import katrain.core.engine as katrain_engine  # noqa: E402  (after the kivy settings above)


def _engine_command(folder: Path) -> Path:
    """An ``engine`` executable for KaTrain's KataGo path, running this tree's code."""
    path = folder / "engine"
    path.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -c "
                    f"'from engine.cli import main; main()' \"$@\" --threads 1\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_katrain_reviews_a_game_on_engine_analysis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIVY_HOME", str(tmp_path / "kivy"))
    from katrain.core.base_katrain import KaTrainBase
    from katrain.core.constants import OUTPUT_ERROR
    from katrain.core.game import Game
    from katrain.core.game_node import GameNode
    from pysgf import Move

    errors: list[str] = []

    class Headless(KaTrainBase):  # type: ignore[misc]
        def log(self, message: str, level: int = 0) -> None:
            if level == OUTPUT_ERROR:
                errors.append(str(message))

        def __call__(self, *args: object) -> None:  # KaTrain's GUI messages (recovery popups)
            errors.append(f"GUI message {args}")

    katrain = Headless(force_package_config=True, debug_level=0)
    katrain.controls = SimpleNamespace(set_status=lambda *args, **kwargs: None)
    config = {**katrain.config("engine"), "katago": str(_engine_command(tmp_path)),
              "model": str(bundled_model(Rules.go(9))),
              "max_visits": 16, "fast_visits": 8, "max_time": 20.0}
    engine = katrain_engine.KataGoEngine(katrain, config)
    try:
        game = Game(katrain, engine, move_tree=GameNode(properties={"SZ": 9, "KM": 6.5, "RU": "japanese"}))
        for number, vertex in enumerate(["E5", "C3", "G4", "C6", "F7", "D3"]):
            game.play(Move.from_gtp(vertex, player="BW"[number % 2]))
        game.analyze_extra("game", visits=24)  # KaTrain's game review: every node again, at the lowest priority
        nodes = game.root.nodes_in_tree
        deadline = time.monotonic() + 240
        while not (engine.is_idle() and all(node.analysis_complete for node in nodes)):
            assert time.monotonic() < deadline, f"KaTrain is still waiting: {engine.queries} {errors}"
            assert engine.katago_process is not None and engine.katago_process.poll() is None, errors
            time.sleep(0.2)
    finally:
        engine.shutdown(finish=False)
    assert errors == []
    for node in nodes:
        root = node.analysis["root"]
        assert root["visits"] >= 16 and "scoreLead" in root and 0 <= root["winrate"] <= 1
        assert len(node.ownership) == 81 and len(node.policy) == 82
        assert node.analysis["moves"] and all("scoreLead" in move for move in node.analysis["moves"].values())
    assert any(node.analysis["root"]["visits"] >= 24 for node in nodes)  # the review's deeper searches arrived
    assert game.root.children[0].points_lost is not None  # KaTrain's own review numbers come out of ours
