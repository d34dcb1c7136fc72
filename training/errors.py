"""The errors of the training package: each names the file it is about and says what to do."""

from __future__ import annotations

from engine import EngineError

__all__ = ["TrainingError", "RecordFormatError", "ChunkFormatError", "CheckpointError", "RunStateError", "PlayerError"]


class TrainingError(EngineError):
    """Base class of the errors the training commands raise on purpose."""


class RecordFormatError(TrainingError, ValueError):
    """A self-play game record that cannot be read, has another format version, or does not replay."""


class ChunkFormatError(TrainingError, ValueError):
    """A training chunk that cannot be read, or that does not fit the encoder or board asked for."""


class CheckpointError(TrainingError, ValueError):
    """A training checkpoint that cannot be read or belongs to another network."""


class RunStateError(TrainingError, ValueError):
    """A run directory whose state or configuration file is unreadable or disagrees with the command."""


class PlayerError(TrainingError, RuntimeError):
    """A match player that cannot start, refused a move, hung, died or played an illegal move; the message names
    it."""
