"""Training: self-play, SGF import, chunks, train, validate, matches and the loop that joins them;
GTP engines as match players and as GNU Go's data, through one GTP client.

::

    from training import bootstrap, BootstrapConfig, run_selfplay, SelfPlayConfig, SelfPlayOutput
    from training.gather import gather, GatherTarget
    from training.train import train, TrainConfig

Game records (:mod:`training.records`) and chunks (:mod:`training.chunks`) are
versioned files written atomically; the commands that run them live in :mod:`engine.cli`.
Names are imported on first use, so ``import training`` loads neither torch nor numba.
(``gather``, ``train`` and ``validate`` are also module names, so their functions are
imported from those modules.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import lazy_getattr

if TYPE_CHECKING:
    from training.chunks import ChunkInfo, Samples, load_samples, read_chunk
    from training.errors import (
        CheckpointError,
        ChunkFormatError,
        PlayerError,
        RecordFormatError,
        RunStateError,
        TrainingError,
    )
    from training.gather import GatherConfig, GatherTarget, list_inputs
    from training.gnugo_games import GnuGoGamesConfig, write_gnugo_games
    from training.gtp_client import GTPClient, find_gnugo
    from training.loop import LoopConfig, run_loop
    from training.match import contestant, make_agent, play_match
    from training.match_config import MatchConfig
    from training.models import BootstrapConfig, bootstrap
    from training.players import Agent, MatchPlayer
    from training.records import SelfPlayRecord, read_record, write_record
    from training.selfplay import SelfPlayOutput, SelfPlaySummary, play_games, run_selfplay
    from training.selfplay_config import SelfPlayConfig
    from training.settings import replace_paths
    from training.stats import MatchResult
    from training.stream import SampleStream
    from training.train import TrainConfig, TrainResult
    from training.validate import ValidationResult

__all__ = [
    "BootstrapConfig", "bootstrap", "SelfPlayConfig", "SelfPlayOutput", "SelfPlaySummary", "play_games",
    "run_selfplay", "SelfPlayRecord", "read_record", "write_record", "GatherTarget", "GatherConfig", "list_inputs",
    "ChunkInfo", "Samples", "read_chunk", "load_samples", "SampleStream", "TrainConfig", "TrainResult",
    "ValidationResult",
    "MatchConfig", "MatchResult", "make_agent", "contestant", "play_match", "Agent", "MatchPlayer", "PlayerError",
    "LoopConfig", "run_loop", "replace_paths", "GTPClient", "find_gnugo", "GnuGoGamesConfig", "write_gnugo_games",
    "TrainingError", "RecordFormatError", "ChunkFormatError", "CheckpointError", "RunStateError",
]

__getattr__ = lazy_getattr(__name__, __file__)
