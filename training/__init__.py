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

from engine.lazy import lazy_getattr

__all__ = [
    "BootstrapConfig", "bootstrap",
    "SelfPlayConfig", "SelfPlayOutput", "SelfPlaySummary", "play_games", "run_selfplay",
    "SelfPlayRecord", "read_record", "write_record",
    "GatherTarget", "GatherConfig", "list_inputs",
    "ChunkInfo", "Samples", "read_chunk", "load_samples", "SampleStream",
    "TrainConfig", "TrainResult", "ValidationResult",
    "MatchConfig", "MatchResult", "make_agent", "contestant", "play_match", "Agent", "MatchPlayer", "PlayerError",
    "LoopConfig", "run_loop", "replace_paths",
    "GTPClient", "find_gnugo", "GnuGoGamesConfig", "write_gnugo_games",
    "TrainingError", "RecordFormatError", "ChunkFormatError", "CheckpointError", "RunStateError",
]

_HOMES = {
    "BootstrapConfig": "models", "bootstrap": "models",
    "SelfPlayConfig": "selfplay", "SelfPlayOutput": "selfplay", "SelfPlaySummary": "selfplay",
    "play_games": "selfplay", "run_selfplay": "selfplay",
    "SelfPlayRecord": "records", "read_record": "records", "write_record": "records",
    "GatherTarget": "gather", "GatherConfig": "gather", "list_inputs": "gather",
    "ChunkInfo": "chunks", "Samples": "chunks", "read_chunk": "chunks", "load_samples": "chunks",
    "SampleStream": "stream",
    "TrainConfig": "train", "TrainResult": "train", "ValidationResult": "validate",
    "MatchConfig": "match", "MatchResult": "stats", "make_agent": "match", "contestant": "match",
    "play_match": "match", "Agent": "players", "MatchPlayer": "players",
    "LoopConfig": "loop", "run_loop": "loop",
    "replace_paths": "settings", "GTPClient": "gtp_client", "find_gnugo": "gtp_client",
    "GnuGoGamesConfig": "gnugo_games",
    "write_gnugo_games": "gnugo_games",
    "TrainingError": "errors", "PlayerError": "errors", "RecordFormatError": "errors", "ChunkFormatError": "errors",
    "CheckpointError": "errors", "RunStateError": "errors",
}


__getattr__ = lazy_getattr("training", {name: f"training.{home}" for name, home in _HOMES.items()})
