"""``gather``: game records and SGF files in, shuffled training chunks out.

Every input is replayed move by move through :class:`~engine.core.game.Game` (so
an illegal move is caught) and encoded with the target encoder. A self-play
record yields one sample per full-search move (pi: its visit distribution);
an SGF record yields one sample per move (pi: the move played, one-hot). z is
the recorded result from the side to move's point of view.

The ownership and score targets are those of the game's scored final board
(:mod:`training.territory`), seen from each sample's side to move. A self-play
record carries its final board. An SGF game has one when two passes end it and
its scoring is known: its last node's territory markers (``TB``/``TW``, as
``engine gnugo-games`` writes GNU Go's verdict) name the dead stones, or, without
markers, an ``RE`` margin confirms the board as it stands. When ``RE`` has a
margin that the board with those dead stones removed does not give, the
targets are masked and the game counted (:attr:`GatherSummary.disagreements`).
Every other game's samples are masked out of those targets, not dropped.

Inputs are taken in name order (``window``: only the newest N) and grouped:
a group's samples are shuffled and written as one chunk whose metadata lists
the group's inputs by SHA-256, and ``manifest.json`` in the output folder is
then updated. A re-run skips every input the manifest (or a chunk the
manifest has not caught up with, after a kill) already holds, so gathering
is idempotent and a kill loses at most the group in flight. Inputs without
samples, or rejected (another board; an SGF that does not read or replay), are
listed in the manifest too, with the reason, and not read again.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from engine import (
    Color,
    Game,
    GameRecord,
    IllegalMoveError,
    Outcome,
    Rules,
    SGFError,
    load_sgf_file,
    read_info,
    read_json,
    write_json,
)
from training.chunks import (
    CHUNK_SUFFIX,
    ChunkInfo,
    Samples,
    list_chunks,
    pack_ownership,
    pack_planes,
    read_chunk_info,
    shared_komi,
    write_chunk,
)
from training.errors import ChunkFormatError, RecordFormatError
from training.records import SelfPlayRecord, list_records, read_record
from training.territory import FinalBoard, dead_from_territory, final_board

__all__ = ["GatherTarget", "GatherConfig", "GatherSummary", "Arrays", "gather", "gather_target", "list_inputs",
           "MANIFEST", "load_manifest", "file_sha256", "shuffled_chunk", "samples_from_record", "samples_from_sgf",
           "sgf_final_board"]

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
MANIFEST_FORMAT = "engine-gather-manifest"
MANIFEST_VERSION = 1


@dataclass(frozen=True)
class GatherTarget:
    """The game, board size and encoder the chunks are for (a model's, or named on the command line)."""

    game: str
    board_size: int
    encoder: str

    def describe(self) -> str:
        return f"{self.game} {self.board_size}x{self.board_size} with encoder {self.encoder}"


@dataclass(frozen=True)
class GatherConfig:
    """``kind``: ``records`` (self-play) or ``sgf``; ``window``: only the newest N inputs;
    ``chunk_samples``: samples per chunk (a group of inputs is closed once it has that many);
    ``skip_moves``: SGF moves before this number give no samples (random openings, say)."""

    kind: str = "records"
    window: int | None = None
    chunk_samples: int = 8192
    seed: int | None = None
    skip_moves: int = 0


@dataclass
class GatherSummary:
    """Inputs gathered now, seen by an earlier run, without samples (no full-search move), rejected
    (another board, an unreadable or illegal SGF); samples and chunks written now; of the inputs
    gathered now, those with ownership and score targets (``scored``) and the SGF games whose
    scoring disagreed with their ``RE`` (``disagreements``, masked)."""

    inputs: int = 0
    already_gathered: int = 0
    empty: int = 0
    rejected: int = 0
    samples: int = 0
    chunks: list[Path] = field(default_factory=list)
    scored: int = 0
    disagreements: int = 0

    def describe(self) -> str:
        return (f"{self.inputs} new inputs gathered into {len(self.chunks)} chunks ({self.samples} samples); "
                f"{self.already_gathered} already gathered, {self.empty} without samples, {self.rejected} rejected; "
                f"ownership and score targets from {self.scored} games ({self.disagreements} masked: their "
                f"scoring disagrees with RE)")


class Arrays(NamedTuple):
    """An input's samples before packing, every target from the sample's side to move."""

    planes: np.ndarray      # [M, C, N, N], the encoder's dtype
    policy: np.ndarray      # float32[M, A]
    value: np.ndarray       # float32[M]
    ownership: np.ndarray   # int8[M, N*N]: +1 own, -1 the opponent's, 0 nobody's (all 0 where masked)
    score: np.ndarray       # float32[M]: points, komi included (0 where masked)
    aux_mask: np.ndarray    # bool[M]: the game has a scored final board
    komi: np.ndarray        # float32[M]: the komi the game was played at, NaN where it has none (not Go)


def _arrays(encoder: Any, states: list[Game], policy: np.ndarray, movers: list[Color], result: Outcome,
            final: FinalBoard | None, rules: Rules) -> Arrays:
    """The samples of ``states`` (``movers[i]`` to move in ``states[i]``) with their targets: z from the
    game's ``result``, ownership and score from its ``final`` board (None: masked), played under ``rules``."""
    count, points = len(states), encoder.rules.num_points
    ownership, score = np.zeros((count, points), np.int8), np.zeros(count, np.float32)
    if final is not None:
        for i, color in enumerate(movers):
            ownership[i] = final.ownership_for(color)
            score[i] = final.score_for(color)
    planes = encoder.encode_batch(states) if states else np.zeros((0, *encoder.shape), dtype=encoder.dtype)
    values = np.asarray([result.value_for(color) for color in movers], np.float32)
    komi = np.full(count, rules.komi if rules.game == "go" else np.nan, np.float32)
    return Arrays(planes, policy, values, ownership, score, np.full(count, final is not None), komi)


def file_sha256(path: Path) -> str:
    """The file's SHA-256, read a block at a time (a game collection may be large)."""
    with open(path, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def list_inputs(directory: str | os.PathLike[str], kind: str) -> list[Path]:
    """Records directly in ``directory``, or ``*.sgf`` files anywhere below it, in name order."""
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"input folder {directory} does not exist")
    if kind == "records":
        return list_records(directory)
    return sorted(p for p in directory.rglob("*") if p.suffix.lower() == ".sgf" and p.is_file())


def gather_target(inputs: Sequence[Path], kind: str, model_path: str | os.PathLike[str] | None = None,
                  encoder: str | None = None, size: int | None = None) -> GatherTarget:
    """What the chunks are for: ``model_path``'s game, encoder and board (``size`` for a size-independent
    model), else ``encoder`` on the first input's game and board (``size`` overrides the board).

    Give one of ``model_path`` and ``encoder``; ValueError when nothing says the board.
    """
    if (model_path is None) == (encoder is None):
        raise ValueError("give one of a model and an encoder")
    if model_path is not None:
        info = read_info(model_path)
        board = size or info.board_size
        if board is None:
            raise ValueError("this model fits every board size: give the size")
        return GatherTarget(info.game, board, info.encoder)
    if not inputs:
        raise ValueError("no inputs to take the game and board size from: give a model")
    rules = read_record(inputs[0]).rules if kind == "records" else load_sgf_file(inputs[0]).rules
    assert encoder is not None
    return GatherTarget(rules.game, size or rules.size, encoder.strip().lower())


# ------------------------------------------------------------------ replay
def samples_from_record(record: SelfPlayRecord, encoder: Any, name: str = "record") -> Arrays:
    """The full-search moves of a self-play record as samples, with the record's final board as the
    ownership and score targets; RecordFormatError on an illegal move."""
    rules = record.rules
    if record.result is None:
        raise RecordFormatError(f"game record {name}: no result")
    game = Game(rules)
    states, policies, movers = [], [], []
    for number, (action, target, weights) in enumerate(zip(record.actions, record.targets, record.policy), 1):
        if target and weights:
            policy = np.zeros(rules.num_actions, dtype=np.float32)
            for a, weight in weights:
                policy[a] += weight
            if policy.sum() > 0:
                states.append(game.copy())
                policies.append(policy / policy.sum())
                movers.append(game.to_play)
        try:
            game.play(action)
        except IllegalMoveError as error:
            raise RecordFormatError(f"game record {name}: move {number} is illegal ({error})") from error
    policy = np.asarray(policies, np.float32).reshape(-1, rules.num_actions)
    return _arrays(encoder, states, policy, movers, record.result, record.final, rules)


def sgf_final_board(record: GameRecord) -> tuple[FinalBoard | None, bool]:
    """The scored final board of an SGF game, and whether its scoring disagrees with ``RE``.

    The stones on the last node's territory markers (``record.territory``) are
    the dead ones; without markers the board counts as it stands, but only when an ``RE``
    margin confirms it. No board for a game that two passes did not end, one
    whose scoring nothing confirms, or one that disagrees with an ``RE`` margin.
    """
    game = record.replay()
    territory = record.territory
    result = record.result
    has_margin = result is not None and result.reason == "score" and result.margin is not None
    if territory is None and not has_margin:
        return None, False
    final = final_board(game, dead_from_territory(game, *territory) if territory else ())
    if final is None or not has_margin or Outcome.from_lead(final.score) == result:
        return final, False
    return None, True


def samples_from_sgf(record: GameRecord, encoder: Any, skip_moves: int = 0, final: FinalBoard | None = None
                     ) -> Arrays:
    """Every move of an SGF record after the first ``skip_moves`` as a sample: pi the move played, z the
    recorded result, ownership and score from ``final`` (:func:`sgf_final_board`; None: masked).
    Skipped moves are still played (and checked)."""
    if record.result is None:
        raise SGFError("no result (RE) to learn the value from")
    rules = record.rules
    game = record.replay(upto=0)
    states, actions, movers = [], [], []
    for number, move in enumerate(record.moves, 1):
        if number > skip_moves:
            state = game if move.color == game.to_play else game.with_side_to_move(move.color)
            states.append(state.copy())
            actions.append(move.action)
            movers.append(move.color)
        try:
            game.play(move.action, move.color)
        except IllegalMoveError as error:
            raise SGFError(f"move {number} is illegal: {error.reason}") from error
    policy = np.zeros((len(actions), rules.num_actions), dtype=np.float32)
    policy[np.arange(len(actions)), actions] = 1.0
    return _arrays(encoder, states, policy, movers, record.result, final, rules)


# ---------------------------------------------------------------- manifest
def _new_manifest(target: GatherTarget) -> dict[str, Any]:
    return {"format": MANIFEST_FORMAT, "format_version": MANIFEST_VERSION, "game": target.game,
            "board_size": target.board_size, "encoder": target.encoder, "inputs": {}, "chunks": []}


def load_manifest(output: Path, target: GatherTarget) -> dict[str, Any]:
    """The output folder's manifest (new if absent), caught up with chunks a kill left unlisted (chunks
    of game collections, whose sources name games as ``<sha256>#<ordinals>``, are caught up by
    :mod:`training.gather_collections` from the chunks themselves)."""
    path = output / MANIFEST
    if path.exists():
        try:
            manifest = read_json(path)
            if manifest.get("format") != MANIFEST_FORMAT or manifest.get("format_version") != MANIFEST_VERSION:
                raise ValueError("not a gather manifest of format version 1")
            if not isinstance(manifest.get("chunks"), list) or not isinstance(manifest.get("inputs"), dict):
                raise ValueError("its chunks must be a list and its inputs an object")
            described = GatherTarget(manifest["game"], int(manifest["board_size"]), manifest["encoder"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError, OverflowError) as error:
            raise ChunkFormatError(f"gather manifest {path}: {error}") from error
        if described != target:
            raise ChunkFormatError(f"{output} holds chunks for {described.describe()}, not {target.describe()}: "
                                   f"gather into another folder")
    else:
        manifest = _new_manifest(target)
    listed = set(manifest["chunks"])
    for chunk in list_chunks([output]) if output.is_dir() else []:
        if chunk.name not in listed:
            info = read_chunk_info(chunk)
            manifest["chunks"].append(chunk.name)
            for digest in info.sources:
                if "#" not in digest:
                    manifest["inputs"].setdefault(digest, {"chunk": chunk.name})
    return manifest


def _next_chunk_path(output: Path, manifest: dict[str, Any]) -> Path:
    numbers = [int(name[6:12]) for name in manifest["chunks"] if name.startswith("chunk-") and name[6:12].isdigit()]
    return output / f"chunk-{max(numbers, default=-1) + 1:06d}{CHUNK_SUFFIX}"


# ------------------------------------------------------------------ gather
def _samples_of(path: Path, config: GatherConfig, encoder: Any, target: GatherTarget,
                summary: GatherSummary) -> Arrays | str:
    """The samples of one input, or why it is rejected (logged as a warning); counts SGF games whose
    scoring disagrees with their RE in ``summary``."""
    try:
        if config.kind == "records":
            record = read_record(path)
            rules = record.rules
        else:
            sgf = load_sgf_file(path)
            rules = sgf.rules
        if rules.game != target.game or rules.size != target.board_size:
            size = target.board_size
            reason = f"{rules.game} {rules.size}x{rules.size}, not {target.game} {size}x{size}"
        else:
            if config.kind == "records":
                return samples_from_record(record, encoder, str(path))
            final, disagrees = sgf_final_board(sgf)
            if disagrees:
                log.debug("%s: its scoring disagrees with RE[%s]: ownership and score masked", path,
                          sgf.result.to_sgf() if sgf.result else "")
                summary.disagreements += 1
            return samples_from_sgf(sgf, encoder, config.skip_moves, final)
    except SGFError as error:
        reason = str(error)
    log.warning("skipping %s: %s", path, reason)
    return reason


def gather(inputs: Sequence[Path], output: str | os.PathLike[str], target: GatherTarget,
           config: GatherConfig = GatherConfig(),
           progress: Callable[[int], None] | None = None) -> GatherSummary:
    """Gather ``inputs`` (record or SGF files, see :func:`list_inputs`) into chunks in ``output``.

    Self-play records that do not read or replay raise RecordFormatError
    naming the file; SGF files with problems are skipped with a warning, as
    collections from elsewhere often hold a few. ``progress(n)`` is told of
    every n inputs handled.
    """
    from encoders import get_encoder
    output = Path(output)
    encoder = get_encoder(target.encoder, Rules.default(target.game, target.board_size))
    manifest = load_manifest(output, target)
    inputs = list(inputs)[-config.window:] if config.window else list(inputs)
    summary = GatherSummary()
    rng = np.random.default_rng(config.seed)
    group: list[tuple[str, Path, Arrays]] = []
    for path in inputs:
        digest = file_sha256(path)
        if digest in manifest["inputs"] or any(digest == d for d, _, _ in group):
            summary.already_gathered += 1
        else:
            samples = _samples_of(path, config, encoder, target, summary)
            if isinstance(samples, str):
                summary.rejected += 1
                manifest["inputs"][digest] = {"chunk": None, "name": path.name, "samples": 0, "rejected": samples}
            elif len(samples.value) == 0:
                summary.empty += 1
                manifest["inputs"][digest] = {"chunk": None, "name": path.name, "samples": 0}
            else:
                summary.scored += bool(samples.aux_mask.any())
                group.append((digest, path, samples))
                if sum(len(s.value) for _, _, s in group) >= config.chunk_samples:
                    _write_group(output, manifest, group, encoder, target, rng, summary)
                    group = []
        if progress is not None:
            progress(1)
    if group:
        _write_group(output, manifest, group, encoder, target, rng, summary)
    output.mkdir(parents=True, exist_ok=True)
    write_json(output / MANIFEST, manifest)
    if summary.disagreements:
        log.warning("%d of %d games scored on the board disagree with their RE: their ownership and score "
                    "targets are masked", summary.disagreements, summary.scored + summary.disagreements)
    return summary


def shuffled_chunk(parts: Sequence[Arrays], encoder: Any, target: GatherTarget, rng: np.random.Generator,
                   sources: tuple[str, ...]) -> Samples:
    """The samples of ``parts`` in one random order as a chunk for ``target``, planes packed, naming
    ``sources`` in its metadata."""
    joined = Arrays(*(np.concatenate(columns) for columns in zip(*parts)))
    order = rng.permutation(len(joined.value))
    shuffled = Arrays(*(array[order] for array in joined))
    packed, coding = pack_planes(shuffled.planes)
    info = ChunkInfo(target.game, target.board_size, encoder.name, encoder.num_planes, coding, len(order), sources,
                     komi=shared_komi(joined.komi))
    return Samples(info, packed, shuffled.policy, shuffled.value, pack_ownership(shuffled.ownership),
                   shuffled.score, shuffled.aux_mask)


def _write_group(output: Path, manifest: dict[str, Any], group: list[tuple[str, Path, Arrays]], encoder: Any,
                 target: GatherTarget, rng: np.random.Generator, summary: GatherSummary) -> None:
    """Shuffle the group's samples into one chunk, then record its inputs in the manifest."""
    chunk = shuffled_chunk([samples for _, _, samples in group], encoder, target, rng,
                           tuple(digest for digest, _, _ in group))
    path = write_chunk(_next_chunk_path(output, manifest), chunk)
    manifest["chunks"].append(path.name)
    for digest, source, samples in group:
        manifest["inputs"][digest] = {"chunk": path.name, "name": source.name, "samples": len(samples.value)}
    write_json(output / MANIFEST, manifest)
    summary.inputs += len(group)
    summary.samples += len(chunk)
    summary.chunks.append(path)
