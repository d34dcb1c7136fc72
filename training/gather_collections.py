"""``gather --collection``: game collections in, shuffled training chunks out, on every core.

A collection (:mod:`engine.formats.collections`: the one-line format with
its index of results, SGF archives, plain files) is read as a stream, one
collection per worker process, so memory stays bounded and the cores share
the work. Each usable game is replayed through the rules core and encoded as
an SGF game is (:func:`training.gather.samples_from_sgf`: pi the move played,
z the result); a counted game also gets ownership and score targets from its
final board, the dead stones estimated by playouts and the board kept only
when its score agrees with the recorded count
(:func:`training.territory.estimated_final_board`).

Held out: games whose month is in ``holdout_months``, or whose name
(``COLLECTION/MEMBER``, e.g. ``games.zip/5/0x1-29(14).rec``) or collection's file
name matches one of the ``holdout_games`` patterns (shell wildcards), go to
``OUTPUT/holdout/`` instead of ``OUTPUT``, so held-out games are whole months,
files or folders never trained on, not positions of trained games.

Games of another board are skipped ("another board"), except Gomoku games of
a larger board under ``fit_board``: those whose stones all fit on the target
board are moved onto it (:func:`engine.formats.collections.fit_onto`).

Chunks are named ``chunk-STEM-DIGEST-NNNNN.npz`` after their collection;
each lists in its metadata the collection's SHA-256 and the ordinals of the
games it holds (``<sha256>#0-17,19-40``). That is the whole resume state: a
re-run reads each unfinished collection again, passes over the games its
chunks already hold, and so loses at most the chunk in flight; a finished
collection is recorded in ``manifest.json`` with its counts (games used, and
games skipped by reason) and is not read again.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from engine import Rules, SGFError, write_json
from training.chunks import CHUNK_SUFFIX, read_chunk_info, write_chunk
from training.errors import ChunkFormatError
from training.gather import (
    MANIFEST,
    Arrays,
    GatherTarget,
    file_sha256,
    load_manifest,
    samples_from_sgf,
    shuffled_chunk,
)

__all__ = ["CollectionConfig", "CollectionSummary", "gather_collections", "HOLDOUT_DIR"]

log = logging.getLogger(__name__)

HOLDOUT_DIR = "holdout"
COLLECTIONS_KEY = "collections"


@dataclass(frozen=True)
class CollectionConfig:
    """``rules``: the one-line and Piskvork games' rules (their files do not say; the public Tygem
    collection is komi 6.5); ``holdout_months``: ``YYYY-MM`` months whose games go to ``holdout/``;
    ``holdout_games``: wildcard patterns of game or collection names that go there too;
    ``fit_board``: Gomoku games of a larger board are moved onto the target board where they fit;
    ``skip_moves``: the first N moves of each game give no samples; ``scoring_playouts``: playouts
    that estimate a counted game's dead stones (0: no ownership or score targets)."""

    rules: str = "chinese komi=6.5 ko=simple"
    holdout_months: tuple[str, ...] = ()
    holdout_games: tuple[str, ...] = ()
    fit_board: bool = False
    skip_moves: int = 0
    chunk_samples: int = 8192
    workers: int = 1
    seed: int | None = None
    scoring_playouts: int = 200


@dataclass
class CollectionSummary:
    """Collections gathered now (``finished``) and earlier; games used and skipped by reason (of the
    collections finished now), and the counted games whose estimated board did not confirm the count
    (``unconfirmed``: their ownership and score targets masked); samples and chunks written now,
    held-out ones apart."""

    finished: int = 0
    already_gathered: int = 0
    games: int = 0
    used: int = 0
    skipped: Counter = field(default_factory=Counter)
    samples: int = 0
    holdout_samples: int = 0
    scored: int = 0
    unconfirmed: int = 0
    chunks: list[Path] = field(default_factory=list)

    def describe(self) -> str:
        reasons = "; ".join(f"{count} {reason}" for reason, count in self.skipped.most_common())
        return (f"{self.finished} collections gathered ({self.already_gathered} already), {self.games} games: "
                f"{self.used} used ({self.scored} with ownership and score targets; {self.unconfirmed} counted games "
                f"masked, their board did not confirm the count), "
                f"{sum(self.skipped.values())} skipped{': ' + reasons if reasons else ''}; "
                f"{self.samples} samples and {self.holdout_samples} held out in {len(self.chunks)} chunks")


# ---------------------------------------------------------------- ordinals
def _ranges(ordinals: Sequence[int]) -> str:
    """``[0, 1, 2, 5, 7, 8]`` as ``0-2,5,7-8``."""
    parts, ordered = [], sorted(ordinals)
    start = previous = ordered[0]
    for number in ordered[1:] + [None]:   # type: ignore[operator]
        if number is None or number != previous + 1:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
            start = number
        previous = number
    return ",".join(parts)


def _parse_ranges(text: str) -> set[int]:
    found: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return found


def _source(digest: str, ordinals: Sequence[int]) -> str:
    return f"{digest}#{_ranges(ordinals)}"


def _done_games(folders: Sequence[Path]) -> dict[str, set[int]]:
    """The game ordinals the chunks in ``folders`` already hold, by collection digest."""
    done: dict[str, set[int]] = {}
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob(f"chunk-*{CHUNK_SUFFIX}")):
            for source in read_chunk_info(path).sources:
                digest, hash_mark, ranges = source.partition("#")
                if hash_mark:
                    try:
                        done.setdefault(digest, set()).update(_parse_ranges(ranges))
                    except ValueError as error:
                        raise ChunkFormatError(f"chunk {path}: source {source[:80]!r} does not read") from error
    return done


# ----------------------------------------------------------------- manifest
def _stem(path: Path) -> str:
    """The collection's file name without its collection suffix (``2010-01`` of ``2010-01.zip``)."""
    from engine import COLLECTION_SUFFIXES

    suffix = max((s for s in COLLECTION_SUFFIXES if path.name.lower().endswith(s)), key=len, default="")
    return path.name[: len(path.name) - len(suffix)] or "collection"


# ------------------------------------------------------------------ worker
@dataclass(frozen=True)
class _Task:
    path: Path
    digest: str
    index_paths: tuple[Path, ...]
    output: Path
    target: GatherTarget
    config: CollectionConfig
    done: frozenset[int]
    parent: int   # the gathering process: a worker whose parent is gone stops (a killed run leaves no writer)


class _Sink:
    """Samples bound for one folder, written a chunk at a time."""

    def __init__(self, task: _Task, folder: Path, encoder: Any, rng: np.random.Generator) -> None:
        self.task, self.folder, self.encoder, self.rng = task, folder, encoder, rng
        self.parts: list[Arrays] = []
        self.ordinals: list[int] = []
        self.chunks: list[Path] = []
        self.samples = 0
        prefix = f"chunk-{_stem(task.path)}-{task.digest[:8]}-"
        numbers = [int(p.name[len(prefix):-len(CHUNK_SUFFIX)]) for p in folder.glob(f"{prefix}*{CHUNK_SUFFIX}")
                   if p.name[len(prefix):-len(CHUNK_SUFFIX)].isdigit()] if folder.is_dir() else []
        self.prefix, self.next_number = prefix, max(numbers, default=-1) + 1

    def add(self, ordinal: int, arrays: Arrays) -> None:
        self.parts.append(arrays)
        self.ordinals.append(ordinal)
        if sum(len(part.value) for part in self.parts) >= self.task.config.chunk_samples:
            self.flush()

    def flush(self) -> None:
        if not self.parts:
            return
        chunk = shuffled_chunk(self.parts, self.encoder, self.task.target, self.rng,
                               (_source(self.task.digest, self.ordinals),))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.chunks.append(write_chunk(self.folder / f"{self.prefix}{self.next_number:05d}{CHUNK_SUFFIX}", chunk))
        self.next_number += 1
        self.samples += len(chunk)
        self.parts, self.ordinals = [], []


def _with_count(record: Any) -> Any:
    """A counted game as the count ended it: with two passes after its last move."""
    from engine import Move

    size = record.rules.size
    last = record.moves[-1].color if record.moves else None
    first = record.start_color() if last is None else last.opponent
    passes = (Move(first, size * size), Move(first.opponent, size * size))
    return replace(record, moves=record.moves + passes)


def _on_target_board(record: Any, target: GatherTarget, fit_board: bool) -> tuple[Any, str | None]:
    """The record on the target's board, or why it cannot be (``another board: ...``)."""
    from engine import fit_onto

    rules = record.rules
    if rules.game == target.game and rules.size == target.board_size:
        return record, None
    reason = f"another board: {rules.game} {rules.size}x{rules.size}"
    if not (fit_board and rules.game == target.game == "gomoku" and rules.size > target.board_size):
        return None, reason
    fitted = fit_onto(record, target.board_size)
    return (fitted, None) if fitted is not None else (None, f"{reason}, its stones do not fit")


def _matches(collection: str, key: str, patterns: Sequence[str]) -> bool:
    """Whether the collection's file name, or the game's ``COLLECTION/KEY`` name, matches a pattern."""
    from fnmatch import fnmatchcase

    return any(fnmatchcase(collection, p) or fnmatchcase(f"{collection}/{key}", p) for p in patterns)


def _gather_one(task: _Task, progress: Callable[[int], Any] | None = None) -> dict[str, Any]:
    """Gather one collection (in this process or a worker); returns its counts and chunks.
    ``progress(n)``: n more games read."""
    from encoders import get_encoder
    from engine import read_collection, read_index
    from training.territory import estimated_final_board

    config, target = task.config, task.target
    rules = Rules.parse(config.rules, size=target.board_size)
    encoder = get_encoder(target.encoder, Rules.default(target.game, target.board_size))
    index = read_index(task.index_paths) if task.index_paths else None
    seed = int(task.digest[:8], 16) if config.seed is None else [config.seed, int(task.digest[:8], 16)]
    rng = np.random.default_rng(seed)
    sinks = {False: _Sink(task, task.output, encoder, rng),
             True: _Sink(task, task.output / HOLDOUT_DIR, encoder, rng)}
    counts: Counter = Counter()
    games = used = scored = unconfirmed = 0
    pending = 0
    for ordinal, game in enumerate(read_collection(task.path, index, rules)):
        games += 1
        pending += 1
        if pending >= 200:
            if os.getppid() != task.parent and os.getpid() != task.parent:
                raise SystemExit(f"gather of {task.path.name}: the gathering process is gone")
            if progress is not None:
                progress(pending)
            pending = 0
        if ordinal in task.done:
            used += 1
            continue
        record, reason = game.record, game.skipped
        if record is not None:
            record, reason = _on_target_board(record, target, config.fit_board)
        if reason is None:
            try:
                final = None
                if record.result.reason == "score" and target.game == "go":
                    record = _with_count(record)
                    if config.scoring_playouts:
                        final = estimated_final_board(record.replay(), record.result, config.scoring_playouts)
                        unconfirmed += final is None
                arrays = samples_from_sgf(record, encoder, config.skip_moves, final)
            except SGFError as error:
                reason = f"illegal: {str(error).split(':')[0]}"
            else:
                if len(arrays.value):
                    used += 1
                    scored += final is not None
                    held = game.month in config.holdout_months or _matches(task.path.name, game.key,
                                                                           config.holdout_games)
                    sinks[held].add(ordinal, arrays)
                else:
                    reason = "no samples: shorter than the moves skipped"
        if reason is not None:
            counts[reason.split(":")[0] if reason.startswith(("unreadable", "illegal")) else reason] += 1
    for sink in sinks.values():
        sink.flush()
    if progress is not None and pending:
        progress(pending)
    return {"games": games, "used": used, "scored": scored, "unconfirmed": unconfirmed, "skipped": dict(counts),
            "samples": sinks[False].samples, "holdout_samples": sinks[True].samples,
            "chunks": [str(p) for sink in sinks.values() for p in sink.chunks]}


# ------------------------------------------------------------------ driver
def gather_collections(collections: Sequence[Path], index_paths: Sequence[Path], output: str | os.PathLike[str],
                       target: GatherTarget, config: CollectionConfig = CollectionConfig(),
                       progress: Callable[[int], None] | None = None) -> CollectionSummary:
    """Gather ``collections`` (files, see :func:`engine.formats.collections.list_collections`) into
    chunks in ``output`` (held-out months in ``output/holdout``), ``config.workers`` collections at a
    time. ``index_paths``: the one-line collections' result indexes. ``progress(n)``: n more games read.
    """
    Rules.parse(config.rules, size=target.board_size)   # a bad rules string fails here, not in a worker
    output = Path(output)
    manifest = load_manifest(output, target)
    finished = manifest.setdefault(COLLECTIONS_KEY, {})
    done = _done_games([output, output / HOLDOUT_DIR])
    summary = CollectionSummary()
    tasks = []
    for path in collections:
        digest = file_sha256(path)
        if digest in finished:
            summary.already_gathered += 1
            continue
        tasks.append(_Task(Path(path), digest, tuple(map(Path, index_paths)), output, target, config,
                           frozenset(done.get(digest, ())), os.getpid()))
    if not tasks:
        return summary
    output.mkdir(parents=True, exist_ok=True)
    if config.workers <= 1 or len(tasks) == 1:
        for task in tasks:
            _record(manifest, task, _gather_one(task, progress), summary)
            write_json(output / MANIFEST, manifest)
        return summary
    context = get_context("spawn")
    with context.Manager() as manager:
        ticks = manager.Queue()
        stop = threading.Event()
        reporter = threading.Thread(target=_report, args=(ticks, progress, stop), daemon=True)
        reporter.start()
        try:
            with ProcessPoolExecutor(max_workers=max(1, min(config.workers, len(tasks))), mp_context=context,
                                     initializer=_die_with_parent) as pool:
                futures = {pool.submit(_gather_one, task, ticks.put): task for task in tasks}
                for future, task in futures.items():
                    result = future.result()
                    _record(manifest, task, result, summary)
                    write_json(output / MANIFEST, manifest)
        finally:
            stop.set()
            reporter.join()
    return summary


def _die_with_parent() -> None:
    """Have the kernel end this worker when the gathering process dies (Linux), so that a killed gather
    leaves no worker writing chunks behind it; elsewhere the worker's own check of its parent does."""
    import ctypes
    import signal
    import sys

    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
        except OSError:
            pass


def _report(ticks: Any, progress: Callable[[int], None] | None, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            count = ticks.get(timeout=0.2)
        except (queue.Empty, EOFError, OSError):
            continue
        if progress is not None:
            progress(count)


def _record(manifest: dict[str, Any], task: _Task, result: dict[str, Any], summary: CollectionSummary) -> None:
    """Enter a finished collection in the manifest and the summary."""
    manifest[COLLECTIONS_KEY][task.digest] = {
        "name": task.path.name, "games": result["games"], "used": result["used"], "scored": result["scored"],
        "unconfirmed": result["unconfirmed"],
        "skipped": result["skipped"], "samples": result["samples"], "holdout_samples": result["holdout_samples"]}
    for chunk in result["chunks"]:
        name = str(Path(chunk).relative_to(task.output))
        if name not in manifest["chunks"]:
            manifest["chunks"].append(name)
    summary.finished += 1
    summary.games += result["games"]
    summary.used += result["used"]
    summary.scored += result["scored"]
    summary.unconfirmed += result["unconfirmed"]
    summary.skipped.update(result["skipped"])
    summary.samples += result["samples"]
    summary.holdout_samples += result["holdout_samples"]
    summary.chunks += [Path(chunk) for chunk in result["chunks"]]
