"""KaTrain as the host, headless: its own engine class (``katrain.core.engine.KataGoEngine``) and game, run on
``engine analysis`` from this tree, with every error it would show a user collected.

For the suite's KaTrain tests and for the full games of KaTrain's AIs (experiments/katrain-ais). KaTrain is a
dev dependency; it is imported here only when a host is made, after the settings that keep kivy from reading
arguments, writing a console log or opening a window.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

__all__ = ["KaTrainHost", "engine_command"]

ROOT = Path(__file__).resolve().parents[1]
"""The tree whose ``engine`` KaTrain starts."""


def engine_command(folder: Path) -> Path:
    """An ``engine`` executable in ``folder`` for KaTrain's KataGo path, running this tree's code on one thread."""
    path = folder / "engine"
    path.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -c "
                    f"'from engine.cli import main; main()' \"$@\" --threads 1\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


class KaTrainHost:
    """KaTrain without its window, its engine on ``model`` with ``settings`` over KaTrain's own engine settings
    (``max_visits``, ``fast_visits``, ...); ``errors``: every message KaTrain logs as an error or would show
    in a popup. ``folder`` holds KaTrain's settings and the ``engine`` executable. Close it with :meth:`close`."""

    def __init__(self, folder: Path, model: Path, **settings: Any) -> None:
        os.environ.setdefault("KIVY_NO_ARGS", "1")
        os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
        os.environ["KIVY_HOME"] = str(folder / "kivy")
        from katrain.core.base_katrain import KaTrainBase
        from katrain.core.constants import OUTPUT_ERROR
        from katrain.core.engine import KataGoEngine

        errors: list[str] = []

        class Headless(KaTrainBase):  # type: ignore[misc]
            def log(self, message: str, level: int = 0) -> None:
                if level == OUTPUT_ERROR:
                    errors.append(str(message))

            def __call__(self, *args: object) -> None:  # KaTrain's GUI messages (recovery popups)
                errors.append(f"GUI message {args}")

        self.errors = errors
        self.katrain = Headless(force_package_config=True, debug_level=0)
        self.katrain.controls = SimpleNamespace(set_status=lambda *args, **kwargs: None)
        config = {**self.katrain.config("engine"), "katago": str(engine_command(folder)), "model": str(model),
                  **settings}
        self.engine = KataGoEngine(self.katrain, config)

    def game(self, properties: dict[str, Any]) -> Any:
        """A new KaTrain game on this host's engine, its root holding the SGF ``properties`` (``SZ``, ``KM``,
        ``RU``, ...)."""
        from katrain.core.game import Game
        from katrain.core.game_node import GameNode

        return Game(self.katrain, self.engine, move_tree=GameNode(properties=properties))

    def wait(self, nodes: Iterable[Any], seconds: float) -> None:
        """Wait until the engine is idle and every node's analysis is complete; an AssertionError naming what
        KaTrain still waits for if that takes over ``seconds``, or at once if the engine process has died."""
        nodes = list(nodes)
        deadline = time.monotonic() + seconds
        while not (self.engine.is_idle() and all(node.analysis_complete for node in nodes)):
            assert time.monotonic() < deadline, f"KaTrain is still waiting: {self.engine.queries} {self.errors}"
            assert self.engine.katago_process is not None and self.engine.katago_process.poll() is None, self.errors
            time.sleep(0.2)

    def close(self) -> None:
        """Stop the engine without waiting for the queries still open."""
        self.engine.shutdown(finish=False)
