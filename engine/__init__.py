"""An AlphaZero-style engine for Go, Gomoku and Chain Reaction: rules core, formats, search, network.

The layers, each a subpackage that imports only those before it:

* ``engine.core``: the rules of every game as compiled kernels behind ``Position`` and ``Game``.
* ``engine.formats``: SGF records and ASCII diagrams.
* ``engine.search``: the array tree, PUCT search, the evaluator protocol and the ``Player``.
* ``engine.nn``: the network, model files, the network's evaluator and the bundled networks
  (the only layer that imports torch).

This module is the public surface: ``gtp`` and ``training`` import from ``engine`` only the names
in ``__all__`` (a test holds them to it). Names load on first use, so ``engine --help`` imports
neither numba nor torch::

    from engine import Rules, Game, gtp_to_action
    game = Game(Rules.go(9, "chinese"))
    game.play(gtp_to_action("E5", 9))
"""

from __future__ import annotations

from engine.lazy import lazy_getattr

_HOMES = {
    # engine.core.types
    "BLACK": "engine.core.types",
    "Color": "engine.core.types",
    "EngineError": "engine.core.types",
    "GameOverError": "engine.core.types",
    "IllegalMoveError": "engine.core.types",
    "InvalidVertexError": "engine.core.types",
    "Outcome": "engine.core.types",
    "RulesError": "engine.core.types",
    "SGFError": "engine.core.types",
    "WHITE": "engine.core.types",
    # engine.core.rules
    "Rules": "engine.core.rules",
    # engine.core.coords
    "action_to_gtp": "engine.core.coords",
    "action_to_sgf": "engine.core.coords",
    "gtp_to_action": "engine.core.coords",
    "sgf_to_action": "engine.core.coords",
    # engine.core.position
    "Position": "engine.core.position",
    "PositionBatch": "engine.core.position",
    # engine.core.game
    "Game": "engine.core.game",
    "Move": "engine.core.game",
    # engine.core.handicap
    "HandicapError": "engine.core.handicap",
    "fixed_handicap": "engine.core.handicap",
    "free_handicap": "engine.core.handicap",
    # engine.core.ownership
    "DEFAULT_PLAYOUTS": "engine.core.ownership",
    "StoneStatus": "engine.core.ownership",
    "playout_ownership": "engine.core.ownership",
    "stone_status": "engine.core.ownership",
    # engine.formats.sgf
    "GameRecord": "engine.formats.sgf",
    "dump_sgf": "engine.formats.sgf",
    "load_sgf": "engine.formats.sgf",
    "load_sgf_file": "engine.formats.sgf",
    # engine.formats.collections
    "COLLECTION_SUFFIXES": "engine.formats.collections",
    "list_collections": "engine.formats.collections",
    "read_collection": "engine.formats.collections",
    "fit_onto": "engine.formats.collections",
    "read_piskvork": "engine.formats.piskvork",
    "PiskvorkError": "engine.formats.piskvork",
    "read_index": "engine.formats.collections",
    # engine.formats.openings
    "read_openings": "engine.formats.openings",
    "opening_actions": "engine.formats.openings",
    "fitting_openings": "engine.formats.openings",
    # engine.formats.diagram
    "to_diagram": "engine.formats.diagram",
    "to_orb_diagram": "engine.formats.diagram",
    # engine.search.evaluator
    "Evaluation": "engine.search.evaluator",
    "Evaluator": "engine.search.evaluator",
    "RolloutEvaluator": "engine.search.evaluator",
    "masked_softmax": "engine.search.evaluator",
    # engine.search.batching
    "step": "engine.search.batching",
    "submit_step": "engine.search.batching",
    "Submitted": "engine.search.batching",
    "overlaps": "engine.search.batching",
    # engine.search.mcts
    "Search": "engine.search.mcts",
    "SearchJob": "engine.search.mcts",
    "SearchConfig": "engine.search.mcts",
    "SearchResult": "engine.search.mcts",
    "nodes_within": "engine.search.mcts",
    # engine.search.ownership
    "black_view": "engine.search.ownership",
    "estimate_ownership": "engine.search.ownership",
    "judged_outcome": "engine.search.ownership",
    # engine.search.player
    "Decision": "engine.search.player",
    "Player": "engine.search.player",
    "PlayerConfig": "engine.search.player",
    # engine.search.resign
    "ResignationWatch": "engine.search.resign",
    # engine.nn.config (no torch)
    "NetConfig": "engine.nn.config",
    "parse_aux_heads": "engine.nn.config",
    # engine.nn.net
    "PolicyValueNet": "engine.nn.net",
    # engine.nn.model_format (no torch)
    "MODEL_SUFFIX": "engine.nn.model_format",
    "ModelFormatError": "engine.nn.model_format",
    "ModelInfo": "engine.nn.model_format",
    "model_name": "engine.nn.model_format",
    # engine.nn.model_file
    "Model": "engine.nn.model_file",
    "save_model": "engine.nn.model_file",
    # engine.nn.evaluator
    "NetEvaluator": "engine.nn.evaluator",
    "set_cpu_threads": "engine.nn.evaluator",
    "pick_device": "engine.nn.evaluator",
    "pick_dtype": "engine.nn.evaluator",
    # engine.nn.numpy_evaluator (no torch)
    "NumpyEvaluator": "engine.nn.numpy_evaluator",
    # engine.nn.blas
    "set_blas_threads": "engine.nn.blas",
    # engine.nn.loading
    "EvaluatorOptions": "engine.nn.loading",
    "load_evaluator": "engine.nn.loading",
    "compile_ahead": "engine.nn.loading",
    "load_model": "engine.nn.loading",
    "read_info": "engine.nn.loading",
    # engine.nn.cold_start (no torch)
    "start_kernel_compiler": "engine.nn.cold_start",
    # engine.nn.networks
    "bundled_model": "engine.nn.networks",
    "LARGE_GO_BOARD": "engine.nn.networks",
    "NETWORK_FREE": "engine.nn.networks",
    # engine.atomic
    "atomic_path": "engine.atomic",
    "read_json": "engine.atomic",
    "utc_timestamp": "engine.atomic",
    "write_bytes": "engine.atomic",
    "write_json": "engine.atomic",
    "write_text": "engine.atomic",
}

__all__ = sorted(_HOMES)

__getattr__ = lazy_getattr("engine", _HOMES)
