"""Self-play game records: what one game produced, written as one gzip-compressed JSON file.

A record is ``NAME.game.json.gz`` (gzip's CRC catches truncation and bit
rot). Format version 3 is one JSON object::

    {"format": "engine-game", "format_version": 3,
     "rules": "freestyle size=6 k=4",     # Rules.parse reads it back
     "model": "000003-b6c64",             # the network that played both sides
     "created": "2025-01-31T12:00:00+00:00",
     "readouts": 400, "cheap_readouts": 64,
     "resign_disabled": false,            # this game could not resign (false-resign measurement)
     "would_resign": null,                # resign-disabled games: "B"/"W", the first side that would have
     "result": {"sgf": "B+R", "winner": "B", "margin": null, "reason": "resign"},
                                          # winner "B"/"W"/null (draw); margin in points when scored;
                                          # reason: score, resign, five, full-board, elimination,
                                          # move-cap (engine.core.types.Outcome)
     "final": {"ownership": "BBW.W...", "score": -2.5},
                                          # a Go game that two passes ended: the owner of every point
                                          # (B, W or . for nobody; row-major, row 0 at the top) and
                                          # black's lead with komi, as the result was scored
                                          # (training.territory.final_board); null for any other game
     "actions": [14, 21, ...],            # every move from the empty board, side to move playing; pass = N*N
     "targets": [true, false, ...],       # full-search moves: policy targets (Playout Cap Randomization)
     "policy": [[[14, 250], [21, 90]], null, ...],   # per move: [action, weight] pairs of a full search's
                                          # policy target (gather normalises them): visit counts, the
                                          # pruned visits of forced playouts, or a Gumbel search's
                                          # completed-Q policy; null for a cheap-search move
     "values": [0.05, -0.12, ...]}        # root value of each search, from the mover's point of view

Every list has one entry per move. Version 2 names ``policy`` ``visits`` (integer
counts); version 1 is version 2 without ``final`` (read as null). Both still read.
:func:`read_record` checks the format, the version, the
lengths, the action range and the final board's size, and raises
:class:`~training.errors.RecordFormatError` naming the file; legality is
checked when ``gather`` replays the moves through :class:`~engine.core.game.Game`.
"""

from __future__ import annotations

import datetime
import gzip
import json
import os
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import BLACK, WHITE, Color, Outcome, Rules, RulesError, utc_timestamp, write_bytes
from training.errors import RecordFormatError
from training.territory import FinalBoard

__all__ = ["RECORD_FORMAT", "RECORD_VERSION", "RECORD_SUFFIX", "SelfPlayRecord", "write_record", "read_record",
           "record_name", "new_game_id", "record_bytes",
           "list_records"]

RECORD_FORMAT = "engine-game"
RECORD_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
RECORD_SUFFIX = ".game.json.gz"
MAX_RECORD_BYTES = 64 << 20
"""Most JSON read from one record (a long 19x19 game with every visit distribution takes about a megabyte)."""


@dataclass(frozen=True)
class SelfPlayRecord:
    """One self-play game. ``policy[i]`` (``(action, weight)`` pairs) is ``None`` unless ``targets[i]``;
    ``final`` is the scored final board of a game that ended on it (ownership and score targets); see
    the module docstring."""

    rules: Rules
    model: str
    actions: tuple[int, ...]
    targets: tuple[bool, ...]
    policy: tuple[tuple[tuple[int, float], ...] | None, ...]
    values: tuple[float, ...]
    result: Outcome | None
    final: FinalBoard | None = None
    resign_disabled: bool = False
    would_resign: str | None = None
    readouts: int = 0
    cheap_readouts: int = 0
    created: str = field(default_factory=utc_timestamp)

    def __post_init__(self) -> None:
        moves = len(self.actions)
        if not (len(self.targets) == len(self.policy) == len(self.values) == moves):
            raise ValueError(f"{moves} actions but {len(self.targets)} target flags, {len(self.policy)} policy "
                             f"lists and {len(self.values)} values")
        for index, (target, policy) in enumerate(zip(self.targets, self.policy)):
            if target != (policy is not None):
                raise ValueError(f"move {index + 1}: a policy target needs its policy, and only a target has one")
        if self.final is not None and len(self.final.owners) != self.rules.num_points:
            raise ValueError(f"the final board has {len(self.final.owners)} points, not {self.rules.num_points}")

    def to_dict(self) -> dict[str, Any]:
        return {"format": RECORD_FORMAT, "format_version": RECORD_VERSION, "rules": str(self.rules),
                "model": self.model, "created": self.created, "readouts": self.readouts,
                "cheap_readouts": self.cheap_readouts, "resign_disabled": bool(self.resign_disabled),
                "would_resign": self.would_resign, "result": _outcome_dict(self.result),
                "final": _final_dict(self.final),
                "actions": [int(a) for a in self.actions], "targets": [bool(t) for t in self.targets],
                "policy": [None if p is None else [[a, _weight(w)] for a, w in p] for p in self.policy],
                "values": [round(float(v), 4) for v in self.values]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SelfPlayRecord":
        """Parse a record; raises ValueError, KeyError or TypeError on anything malformed."""
        if data.get("format") != RECORD_FORMAT:
            raise ValueError(f"format is {data.get('format')!r}, not {RECORD_FORMAT!r}")
        version = data.get("format_version")
        if version not in READABLE_VERSIONS:
            raise ValueError(f"format version {version} is not supported (this engine reads "
                             f"{', '.join(map(str, READABLE_VERSIONS))})")
        rules = Rules.parse(str(data["rules"]))
        actions = tuple(int(a) for a in data["actions"])
        if any(not 0 <= a < rules.num_actions for a in actions):
            raise ValueError(f"an action is outside 0..{rules.num_actions - 1}")
        policy = tuple(None if p is None else tuple((int(a), float(w)) for a, w in p)
                       for p in data["policy" if version >= 3 else "visits"])
        for pairs in policy:
            if pairs is not None and any(not 0 <= a < rules.num_actions or not w >= 0 for a, w in pairs):
                raise ValueError("a policy weight names an action off the board or is negative")
        return cls(rules=rules, model=str(data["model"]), actions=actions,
                   targets=tuple(bool(t) for t in data["targets"]), policy=policy,
                   values=tuple(float(v) for v in data["values"]),
                   result=_outcome(data["result"]), final=_final(data["final"]) if version >= 2 else None,
                   resign_disabled=bool(data["resign_disabled"]), would_resign=data.get("would_resign"),
                   readouts=int(data.get("readouts", 0)), cheap_readouts=int(data.get("cheap_readouts", 0)),
                   created=str(data.get("created", "")))


def _weight(weight: float) -> int | float:
    """A policy weight for JSON: visit counts stay integers, probabilities keep 6 significant digits."""
    weight = float(weight)
    return int(weight) if weight.is_integer() else float(f"{weight:.6g}")


def _outcome_dict(outcome: Outcome | None) -> dict[str, Any] | None:
    if outcome is None:
        return None
    return {"sgf": outcome.to_sgf(), "winner": None if outcome.winner is None else outcome.winner.letter,
            "margin": outcome.margin, "reason": outcome.reason}


def _outcome(data: dict[str, Any] | None) -> Outcome | None:
    if data is None:
        return None
    winner = data["winner"]
    margin = data["margin"]
    return Outcome(None if winner is None else Color.parse(winner), None if margin is None else float(margin),
                   str(data["reason"]))


_OWNER_LETTERS = {0: ".", BLACK: "B", WHITE: "W"}
_OWNERS = {letter: owner for owner, letter in _OWNER_LETTERS.items()}


def _final_dict(final: FinalBoard | None) -> dict[str, Any] | None:
    if final is None:
        return None
    return {"ownership": "".join(_OWNER_LETTERS[owner] for owner in final.owners), "score": final.score}


def _final(data: dict[str, Any] | None) -> FinalBoard | None:
    if data is None:
        return None
    letters = str(data["ownership"])
    try:
        owners = tuple(_OWNERS[letter] for letter in letters)
    except KeyError as error:
        raise ValueError(f"final ownership holds {error}: expected B, W or .") from None
    return FinalBoard(owners, float(data["score"]))


def record_name(model: str, game_id: str | None = None) -> str:
    """A record's file name: model, then ``game_id`` (:func:`new_game_id` when None); names sort by model,
    then time. A game written twice under its id keeps one file."""
    return f"{model}-{game_id or new_game_id()}{RECORD_SUFFIX}"


def new_game_id() -> str:
    """A new game's id: the UTC time to the microsecond and a random tag (``20260131T120000123456-1a2b3c4d``)."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S%f")
    return f"{stamp}-{uuid.uuid4().hex[:8]}"


def record_bytes(record: SelfPlayRecord) -> bytes:
    """``record`` as its file's bytes (gzip-compressed JSON)."""
    data = json.dumps(record.to_dict(), separators=(",", ":")).encode("utf-8")
    return gzip.compress(data, mtime=0)


def write_record(directory: str | os.PathLike[str], record: SelfPlayRecord, game_id: str | None = None) -> Path:
    """Write ``record`` atomically into ``directory`` (named by ``game_id``, else a new name); return its path."""
    return write_bytes(Path(directory) / record_name(record.model, game_id), record_bytes(record))


def read_record(path: str | os.PathLike[str]) -> SelfPlayRecord:
    """Read a record, or raise :class:`RecordFormatError` naming the file and the problem."""
    path = Path(path)
    unreadable = f"game record {path}: not a readable gzip-compressed JSON record (corrupt or truncated)"
    try:
        with gzip.open(path, "rb") as handle:
            text = handle.read(MAX_RECORD_BYTES + 1)
    except (OSError, EOFError, zlib.error) as error:
        raise RecordFormatError(f"{unreadable}: {error}") from error
    if len(text) > MAX_RECORD_BYTES:
        raise RecordFormatError(f"game record {path}: more than {MAX_RECORD_BYTES >> 20} MiB of JSON")
    try:
        data = json.loads(text.decode("utf-8"))
    except (ValueError, RecursionError) as error:   # UnicodeDecodeError is a ValueError
        raise RecordFormatError(f"{unreadable}: {error}"[:500]) from error
    if not isinstance(data, dict):
        raise RecordFormatError(f"game record {path}: expected a JSON object")
    try:
        return SelfPlayRecord.from_dict(data)
    except (ValueError, KeyError, TypeError, OverflowError, RulesError) as error:
        raise RecordFormatError(f"game record {path}: {error}") from error


def list_records(directory: str | os.PathLike[str]) -> list[Path]:
    """The record files directly in ``directory`` (not its subfolders), in name order."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.name.endswith(RECORD_SUFFIX) and not p.name.startswith("."))
