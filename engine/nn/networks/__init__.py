"""Networks that ship with the engine, so that ``engine gtp`` and ``engine gomocup`` play real moves on a fresh
install.

One model file per rules family at most, named here: ``go`` (learnt on 9x9),
``go-large`` (learnt on 19x19: boards from :data:`LARGE_GO_BOARD` up, where one
ships; elsewhere ``go`` plays every size), ``gomoku-freestyle`` (freestyle and standard, five or more and
exactly five) and ``gomoku-renju`` (black's forbidden points change what a good
move is, so renju gets its own network). :func:`bundled_model` is what the front ends use when no ``--model``
is given, for the rules in play; where nothing ships for them they play without
a network. How each file was made (data, recipe, compute, strength) is in its
model card, docs/models/NAME.md.
"""

from __future__ import annotations

from pathlib import Path

from engine.core.rules import Rules

__all__ = ["BUNDLED", "LARGE_GO_BOARD", "NETWORK_FREE", "bundled_model", "network_family"]

#: The bundled model file of each rules family (a file name in this folder); a family missing here has none.
BUNDLED = {"go": "go-selfplay9-b6c64-pooled.safetensors",
           "go-large": "go-tygem19-b6c64-pooled.safetensors",
           "gomoku-freestyle": "gomoku-freestyle-engines15-b6c64-pooled.safetensors",
           "gomoku-renju": "gomoku-renju-selfplay15-b4c48-pooled.safetensors"}


NETWORK_FREE = ("rollouts", "uniform")
"""What ``--model`` may name instead of a file: play without a network, by random playouts or uniform priors."""

LARGE_GO_BOARD = 13
"""Go boards from this size up play ``go-large`` where it ships: a network learnt on 19x19 reads the big
board's openings and frameworks, which 9x9 never shows."""


def network_family(rules: Rules | str) -> str | None:
    """The key of :data:`BUNDLED` for ``rules`` (a game's name alone means its default rules: 19x19 Go,
    freestyle Gomoku); None for Gomoku other than five in a row and for Chain Reaction, which no network is
    trained for."""
    if isinstance(rules, str):
        rules = Rules.parse({"go": "chinese", "gomoku": "freestyle"}.get(rules, rules))
    if rules.game == "go":
        return "go-large" if rules.size >= LARGE_GO_BOARD and "go-large" in BUNDLED else "go"
    if rules.game != "gomoku" or rules.win_length != 5:
        return None
    return "gomoku-renju" if rules.variant == "renju" else "gomoku-freestyle"


def bundled_model(rules: Rules | str) -> Path | None:
    """The model file bundled for ``rules`` (or a game's default rules), or None when none ships (or the file
    is missing)."""
    family = network_family(rules)
    name = None if family is None else BUNDLED.get(family)
    if name is None:
        return None
    path = Path(__file__).parent / name
    return path if path.is_file() else None
