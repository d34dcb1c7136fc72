"""An AlphaZero-style engine for Go, Gomoku and Chain Reaction: rules core, formats, search, network.

The layers, each a subpackage that imports only those before it:

* ``engine.core``: the rules of every game as compiled kernels behind ``Position`` and ``Game``.
* ``engine.formats``: SGF records and ASCII diagrams.
* ``engine.search``: the array tree, PUCT search, the evaluator protocol and the ``Player``.
* ``engine.nn``: the network, model files, the network's evaluator and the bundled networks
  (the only layer that imports torch).

This module is the public surface: ``gtp`` and ``training`` import from ``engine`` only the names
in ``__all__`` (a test holds them to it). The imports under ``TYPE_CHECKING`` name each one's module for
readers, type checkers and import-graph tools; at run time a name loads from there on first use
(:mod:`engine.lazy`), so ``engine --help`` imports neither numba nor torch::

    from engine import Rules, Game, gtp_to_action
    game = Game(Rules.go(9, "chinese"))
    game.play(gtp_to_action("E5", 9))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import lazy_getattr

if TYPE_CHECKING:
    from engine.atomic import atomic_path, read_json, utc_timestamp, write_bytes, write_json, write_text
    from engine.core.checks import check_choice, is_number
    from engine.core.coords import action_to_gtp, action_to_sgf, gtp_to_action, sgf_to_action
    from engine.core.game import Game, Move
    from engine.core.handicap import HandicapError, fixed_handicap, free_handicap
    from engine.core.ownership import DEFAULT_PLAYOUTS, StoneStatus, playout_ownership, stone_status
    from engine.core.position import Position, PositionBatch
    from engine.core.rules import Rules
    from engine.core.scoring import (
        HANDICAP_BONUS_RULES,
        handicap_bonus_rule,
        white_handicap_bonus,
        with_handicap_bonus,
    )
    from engine.core.types import (
        BLACK,
        WHITE,
        Color,
        EngineError,
        GameOverError,
        IllegalMoveError,
        InvalidVertexError,
        Outcome,
        RulesError,
        SGFError,
    )
    from engine.formats.collections import COLLECTION_SUFFIXES, fit_onto, list_collections, read_collection, read_index
    from engine.formats.diagram import to_diagram, to_orb_diagram
    from engine.formats.openings import fitting_openings, opening_actions, read_openings
    from engine.formats.piskvork import PiskvorkError, read_piskvork
    from engine.formats.sgf import GameRecord, dump_sgf, load_sgf, load_sgf_file
    from engine.nn.blas import set_blas_threads
    from engine.nn.cached_evaluator import CachedNetEvaluator
    from engine.nn.cold_start import start_kernel_compiler
    from engine.nn.config import NetConfig, parse_aux_heads
    from engine.nn.evaluator import NetEvaluator, pick_device, pick_dtype, set_cpu_threads
    from engine.nn.loading import EvaluatorOptions, compile_ahead, load_evaluator, load_model, read_info
    from engine.nn.model_file import Model, save_model
    from engine.nn.model_format import FORMAT_VERSION, MODEL_SUFFIX, ModelFormatError, ModelInfo, model_name
    from engine.nn.net import PolicyValueNet
    from engine.nn.networks import LARGE_GO_BOARD, NETWORK_FREE, bundled_model
    from engine.nn.numpy_evaluator import NumpyEvaluator
    from engine.search.batching import Submitted, overlaps, step, submit_step
    from engine.search.config import PlayerConfig, SearchConfig
    from engine.search.evaluator import Evaluation, Evaluator, RolloutEvaluator, masked_softmax
    from engine.search.levels import (
        FULL_STRENGTH,
        LEVELS,
        Level,
        level_named,
        nearest_level,
        rank_value,
        seen_at_level,
        without_blind_spots,
    )
    from engine.search.mcts import Search, SearchJob, SearchResult, nodes_within
    from engine.search.ownership.estimate import black_view, estimate_ownership, judged_outcome
    from engine.search.passing import pass_wins
    from engine.search.player import Decision, MoveSearch, Player
    from engine.search.resign import ResignationWatch

__all__ = [
    "BLACK", "COLLECTION_SUFFIXES", "CachedNetEvaluator", "Color", "DEFAULT_PLAYOUTS", "Decision", "EngineError",
    "Evaluation", "Evaluator", "EvaluatorOptions", "FORMAT_VERSION", "FULL_STRENGTH", "Game", "GameOverError",
    "GameRecord", "HANDICAP_BONUS_RULES", "HandicapError", "IllegalMoveError", "InvalidVertexError", "LARGE_GO_BOARD",
    "LEVELS", "Level", "MODEL_SUFFIX", "Model", "ModelFormatError", "ModelInfo", "Move", "MoveSearch", "NETWORK_FREE",
    "NetConfig", "NetEvaluator", "NumpyEvaluator", "Outcome", "PiskvorkError", "Player", "PlayerConfig",
    "PolicyValueNet", "Position", "PositionBatch", "ResignationWatch", "RolloutEvaluator", "Rules", "RulesError",
    "SGFError", "Search", "SearchConfig", "SearchJob", "SearchResult", "StoneStatus", "Submitted", "WHITE",
    "action_to_gtp", "action_to_sgf", "atomic_path", "black_view", "bundled_model", "check_choice", "compile_ahead",
    "dump_sgf", "estimate_ownership", "fit_onto", "fitting_openings", "fixed_handicap", "free_handicap",
    "gtp_to_action", "handicap_bonus_rule", "is_number", "judged_outcome", "level_named", "list_collections",
    "load_evaluator", "load_model", "load_sgf", "load_sgf_file", "masked_softmax", "model_name", "nearest_level",
    "nodes_within", "opening_actions", "overlaps", "parse_aux_heads", "pass_wins", "pick_device", "pick_dtype",
    "playout_ownership", "rank_value", "read_collection", "read_index", "read_info", "read_json", "read_openings",
    "read_piskvork", "save_model", "seen_at_level", "set_blas_threads", "set_cpu_threads", "sgf_to_action",
    "start_kernel_compiler", "step", "stone_status", "submit_step", "to_diagram", "to_orb_diagram", "utc_timestamp",
    "white_handicap_bonus", "with_handicap_bonus", "without_blind_spots", "write_bytes", "write_json", "write_text",
]

__getattr__ = lazy_getattr(__name__, __file__)
