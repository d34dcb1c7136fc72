"""Rules core, search and network of an AlphaZero-style engine for Go and Gomoku.

The public surface of the rules core::

    from engine import Rules, Game, Position, Color
    game = Game(Rules.go(9, "chinese"))
    game.play(gtp_to_action("E5", 9))

Importing ``engine`` loads the compiled rules core lazily: nothing heavy is
imported until an attribute is used, so ``engine --help`` stays fast.
"""

from __future__ import annotations

from engine.lazy import lazy_getattr

__all__ = [
    "Rules", "Game", "Move", "Position", "Color", "Outcome",
    "IllegalMoveError", "InvalidVertexError", "RulesError", "SGFError", "EngineError",
    "gtp_to_action", "action_to_gtp", "sgf_to_action", "action_to_sgf",
    "load_sgf", "load_sgf_file", "dump_sgf", "GameRecord",
]

_HOMES = {
    "Rules": "engine.rules",
    "Game": "engine.game",
    "Move": "engine.game",
    "Position": "engine.position",
    "Color": "engine.types",
    "Outcome": "engine.types",
    "IllegalMoveError": "engine.types",
    "InvalidVertexError": "engine.types",
    "RulesError": "engine.types",
    "SGFError": "engine.types",
    "EngineError": "engine.types",
    "gtp_to_action": "engine.coords",
    "action_to_gtp": "engine.coords",
    "sgf_to_action": "engine.coords",
    "action_to_sgf": "engine.coords",
    "load_sgf": "engine.sgf",
    "load_sgf_file": "engine.sgf",
    "dump_sgf": "engine.sgf",
    "GameRecord": "engine.sgf",
}


__getattr__ = lazy_getattr("engine", _HOMES)
