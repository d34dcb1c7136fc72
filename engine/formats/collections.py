"""Game collections: many games in one file, read as a stream of :class:`GameRecord`.

Three kinds of file hold a collection, told apart by their name and first line:

``one-line`` (the compact format of github.com/yenw/computer-go-dataset)
    one game a line, ``ID<TAB>;B[pd];W[dd];...``: an ID, then the moves in SGF
    point letters (``[]`` or ``[tt]`` a pass), nothing else. Its results
    live in a separate index (:func:`read_index`), one game a line,
    tab-separated: ``ID, date, white name, white English name, white nation,
    black name, black English name, black nation, result, number of moves,
    time control``, the date as ``[C]YYYY.MM.DD hh:mm`` and the result as
    ``B+Resign``, ``W+3.5``, ``B+Time`` or ``W+Offline``. The rules (komi
    above all) are not in the file: the caller names them.
SGF archives
    ``.sgf`` files inside a ``.zip`` or a tar (``.tar``, ``.tar.gz``, ``.tgz``,
    ``.tar.bz2``, ``.tar.xz``), one game a file.
Piskvork games
    ``.psq`` and ``.rec`` files (:mod:`engine.formats.piskvork`), loose or
    inside a ``.zip`` or a tar, one Gomoku game a file; their result is the
    replayed game's five.
plain files
    a ``.sgf`` file, or a text file (or a ``.zip`` of text files) in the
    one-line format.

Reading streams: a zip member or tar entry is read line by line or file by
file, never the whole archive at once, so memory stays bounded however large
the collection. A game that cannot be used is not an error: it comes out as a
:class:`CollectedGame` whose ``skipped`` says why (a broken move string, an
unreadable SGF, no result in the index, a result that says nothing about the
position, a Gomoku game with no five), so that a reader counts the reasons and
goes on.

:func:`fit_onto` moves a Gomoku game onto a smaller board where every stone
fits, for collections played on a board larger than the network's.
"""

from __future__ import annotations

import io
import os
import re
import tarfile
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from engine.core.coords import sgf_to_action
from engine.core.game import Move
from engine.core.rules import Rules
from engine.core.types import Color, EngineError, InvalidVertexError, Outcome, SGFError
from engine.formats.piskvork import PISKVORK_SUFFIXES, PiskvorkError, read_piskvork
from engine.formats.sgf import GameRecord, load_sgf

__all__ = ["CollectedGame", "IndexEntry", "ResultIndex", "read_index", "read_collection", "list_collections",
           "collection_kind", "parse_one_line_moves", "fit_onto", "COLLECTION_SUFFIXES", "UNINFORMATIVE_RESULTS"]

COLLECTION_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".sgf", ".txt", ".kifu",
                       *PISKVORK_SUFFIXES)
# Results that say nothing about the position: the game was lost on the clock or by leaving it.
UNINFORMATIVE_RESULTS = {"time": "lost on time", "forfeit": "lost by disconnection or forfeit"}
MAX_SGF_BYTES = 4 << 20       # one game's SGF file; larger ones are skipped (a game is a few kB)
MAX_LINE_CHARS = 64 << 10     # one game's line in the one-line format (a 19x19 game is under 4 kB)
_ONE_LINE_MOVE = re.compile(r";([BW])\[([a-z]{0,2})\]")
_INDEX_DATE = re.compile(r"(\d{4})[.\-/](\d{2})")
_SGF_DATE = re.compile(r"(\d{4})-(\d{2})")
_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")
_ONE_GAME_SUFFIXES = (".sgf", *PISKVORK_SUFFIXES)


@dataclass(frozen=True)
class CollectedGame:
    """One game of a collection: ``key`` names it within the collection (its ID, or its member's
    name), ``month`` is ``YYYY-MM`` when its date is known, and either ``record`` holds the game or
    ``skipped`` says why it cannot be used (``record`` is then None)."""

    key: str
    month: str | None
    record: GameRecord | None = None
    skipped: str | None = None


@dataclass(frozen=True)
class IndexEntry:
    """A game's line in a one-line collection's index: its month (``YYYY-MM``, None if the date does
    not read) and its result as written (``B+Resign``, ``W+3.5``, ...)."""

    month: str | None
    result: str


ResultIndex = dict[str, IndexEntry]


# ------------------------------------------------------------------- opening
def collection_kind(path: str | os.PathLike[str]) -> str:
    """``zip``, ``tar``, ``sgf``, ``piskvork`` or ``text`` by the file's name; ValueError for anything else."""
    kind = _kind_by_name(Path(path).name)
    if kind is None:
        raise ValueError(f"{path}: not a game collection (expected one of {', '.join(COLLECTION_SUFFIXES)})")
    return kind


def _kind_by_name(name: str) -> str | None:
    name = name.lower()
    if name.endswith(".zip"):
        return "zip"
    if name.endswith(_TAR_SUFFIXES):
        return "tar"
    if name.endswith(".sgf"):
        return "sgf"
    if name.endswith(PISKVORK_SUFFIXES):
        return "piskvork"
    if "." not in name or name.endswith((".txt", ".kifu", ".index")):
        return "text"
    return None


def list_collections(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Collection files named by ``paths``: files as given, folders expanded to the collections
    anywhere below them, in name order. FileNotFoundError for a path that does not exist."""
    found: list[Path] = []
    for item in map(Path, paths):
        if item.is_dir():
            for path in sorted(item.rglob("*")):
                if path.is_file() and not path.name.startswith(".") and _kind_by_name(path.name) is not None:
                    found.append(path)
        elif item.is_file():
            collection_kind(item)
            found.append(item)
        else:
            raise FileNotFoundError(f"game collection {item} does not exist")
    return found


def _text_lines(stream: IO[bytes]) -> Iterator[str]:
    """The lines of a byte stream as UTF-8 text (undecodable bytes replaced), one at a time."""
    yield from io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline=None)


# --------------------------------------------------------------------- index
def _month_of_index_date(text: str) -> str | None:
    match = _INDEX_DATE.search(text)
    return f"{match.group(1)}-{match.group(2)}" if match else None


def read_index(paths: Iterable[str | os.PathLike[str]]) -> ResultIndex:
    """The results of one-line collections by game ID, from index files (plain, or a ``.zip`` of
    them; folders expanded). Lines with fewer than nine fields are ignored (a header, a blank line)."""
    index: ResultIndex = {}
    for path in list_collections(paths):
        for line in _archive_lines(path):
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) >= 9 and fields[0].strip():
                index[fields[0].strip()] = IndexEntry(_month_of_index_date(fields[1]), fields[8].strip())
    return index


def _archive_lines(path: Path) -> Iterator[str]:
    """Every text line of a plain file or of every member of a zip, streamed."""
    if collection_kind(path) == "zip":
        with zipfile.ZipFile(path) as archive:
            for member in sorted(archive.infolist(), key=lambda m: m.filename):
                if not member.is_dir():
                    with archive.open(member) as stream:
                        yield from _text_lines(stream)
    else:
        with open(path, "rb") as stream:
            yield from _text_lines(stream)


def read_result(text: str) -> Outcome | None:
    """An index result (``B+Resign``, ``W+3.5``, ``B+Time``, ``W+Offline``) as an Outcome; None when
    it does not read."""
    winner, _, rest = text.strip().partition("+")
    if winner.upper() not in ("B", "W") or not rest:
        return None
    color = Color.BLACK if winner.upper() == "B" else Color.WHITE
    reason = {"resign": "resign", "r": "resign", "time": "time", "t": "time", "offline": "forfeit",
              "forfeit": "forfeit", "f": "forfeit"}.get(rest.strip().lower())
    if reason is not None:
        return Outcome(color, None, reason)
    try:
        margin = float(rest)
    except ValueError:
        return None
    return Outcome(color, margin, "score") if margin >= 0 else None


# ------------------------------------------------------------------ one-line
def parse_one_line_moves(text: str, size: int) -> tuple[Move, ...]:
    """The moves of a one-line game (``;B[pd];W[dd]...``) as Moves on a ``size`` board; ``[]`` and
    ``[tt]`` (on boards up to 19) are passes. SGFError naming the first thing that does not read."""
    moves: list[Move] = []
    position = 0
    text = text.strip()
    for match in _ONE_LINE_MOVE.finditer(text):
        if match.start() != position:
            raise SGFError(f"move {len(moves) + 1}: cannot read {text[position:match.start() + 8]!r}")
        color = Color.BLACK if match.group(1) == "B" else Color.WHITE
        point = match.group(2)
        try:
            action = sgf_to_action(point, size)
        except InvalidVertexError as error:
            raise SGFError(f"move {len(moves) + 1}: {error}") from error
        moves.append(Move(color, action))
        position = match.end()
    if position != len(text):
        raise SGFError(f"move {len(moves) + 1}: cannot read {text[position:position + 8]!r}")
    if not moves:
        raise SGFError("no moves")
    return tuple(moves)


def _one_line_game(line: str, index: ResultIndex | None, rules: Rules) -> CollectedGame | None:
    """The game of one line (None for a blank line)."""
    key, tab, moves_text = line.rstrip("\r\n").partition("\t")
    key = key.strip()
    if not key and not moves_text.strip():
        return None
    entry = index.get(key) if index is not None else None
    month = entry.month if entry else None
    if not tab:
        return CollectedGame(key[:40], month, skipped="unreadable: no tab between the ID and the moves")
    if entry is None:
        return CollectedGame(key, month, skipped="no result: the game is not in the index")
    result = read_result(entry.result)
    if result is None:
        return CollectedGame(key, month, skipped=f"no result: {entry.result[:20]!r} does not read")
    if result.reason in UNINFORMATIVE_RESULTS:
        return CollectedGame(key, month, skipped=UNINFORMATIVE_RESULTS[result.reason])
    if len(moves_text) > MAX_LINE_CHARS:
        return CollectedGame(key, month, skipped=f"unreadable: a line over {MAX_LINE_CHARS} characters")
    try:
        moves = parse_one_line_moves(moves_text, rules.size)
    except SGFError as error:
        return CollectedGame(key, month, skipped=f"unreadable: {error}")
    return CollectedGame(key, month, GameRecord(rules=rules, moves=moves, result=result))


# ----------------------------------------------------------------------- SGF
def _sgf_game(name: str, data: bytes) -> CollectedGame:
    """The game of one SGF file in an archive."""
    if len(data) > MAX_SGF_BYTES:
        return CollectedGame(name, None, skipped=f"unreadable: an SGF file over {MAX_SGF_BYTES >> 20} MB")
    try:
        record = load_sgf(data)
    except (EngineError, ValueError, RecursionError) as error:
        return CollectedGame(name, None, skipped=f"unreadable: {str(error)[:200]}")
    dates = record.properties.get("DT", ())
    match = _SGF_DATE.search(dates[0]) if dates else None
    month = f"{match.group(1)}-{match.group(2)}" if match else None
    if record.result is None:
        return CollectedGame(name, month, skipped="no result: the record has no RE")
    if record.result.reason in UNINFORMATIVE_RESULTS:
        return CollectedGame(name, month, skipped=UNINFORMATIVE_RESULTS[record.result.reason])
    return CollectedGame(name, month, record)


def _read_limited(stream: IO[bytes]) -> bytes:
    return stream.read(MAX_SGF_BYTES + 1)


# ------------------------------------------------------------------ Piskvork
def _piskvork_game(name: str, data: bytes, rules: Rules) -> CollectedGame:
    """The game of one Piskvork file in a collection."""
    try:
        return CollectedGame(name, None, read_piskvork(name, data, rules))
    except PiskvorkError as error:
        return CollectedGame(name, None, skipped=str(error))


def fit_onto(record: GameRecord, size: int) -> GameRecord | None:
    """A Gomoku ``record`` moved onto a ``size`` board, or None when its stones do not all fit there.

    The shift keeps the game's place relative to the centre where it can, and moves it the least
    that brings every stone on the board otherwise; the moves, their order and the result are kept.
    """
    old = record.rules.size
    if old == size:
        return record
    if record.rules.game != "gomoku" or record.setup_black or record.setup_white:
        raise ValueError("only Gomoku games without setup stones can be moved to another board")
    rows = [move.action // old for move in record.moves]
    columns = [move.action % old for move in record.moves]
    if not rows:
        return replace(record, rules=record.rules.resized(size))
    shifts = []
    for low, high in ((min(rows), max(rows)), (min(columns), max(columns))):
        if high - low >= size:
            return None
        centred = size // 2 - old // 2
        shifts.append(min(max(centred, -low), size - 1 - high))
    row_shift, column_shift = shifts
    moves = tuple(replace(move, action=(row + row_shift) * size + column + column_shift)
                  for move, row, column in zip(record.moves, rows, columns))
    return replace(record, rules=record.rules.resized(size), moves=moves)


# ------------------------------------------------------------------ archives
def _member_game(name: str, stream: IO[bytes], rules: Rules) -> CollectedGame | None:
    """The game of an archive member that holds one game a file (SGF, Piskvork); None for others."""
    lower = name.lower()
    if lower.endswith(".sgf"):
        return _sgf_game(name, _read_limited(stream))
    if lower.endswith(PISKVORK_SUFFIXES):
        return _piskvork_game(name, _read_limited(stream), rules)
    return None


def _zip_games(path: Path, index: ResultIndex | None, rules: Rules) -> Iterator[CollectedGame]:
    """A zip's games: one a member (SGF, Piskvork), or one a line in its text members; in a zip of
    one-game files, the text members are the collection's notes (a tournament table, its openings)."""
    with zipfile.ZipFile(path) as archive:
        members = sorted((m for m in archive.infolist() if not m.is_dir()), key=lambda m: m.filename)
        one_game_files = any(m.filename.lower().endswith(_ONE_GAME_SUFFIXES) for m in members)
        for member in members:
            with archive.open(member) as stream:
                game = _member_game(member.filename, stream, rules)
                if game is not None:
                    yield game
                elif not one_game_files:
                    yield from _line_games(_text_lines(stream), index, rules)


def _tar_games(path: Path, rules: Rules) -> Iterator[CollectedGame]:
    with tarfile.open(path, "r|*") as archive:
        for member in archive:
            stream = archive.extractfile(member) if member.isfile() else None
            game = _member_game(member.name, stream, rules) if stream is not None else None
            if game is not None:
                yield game


def _line_games(lines: Iterable[str], index: ResultIndex | None, rules: Rules) -> Iterator[CollectedGame]:
    for line in lines:
        game = _one_line_game(line, index, rules)
        if game is not None:
            yield game


def read_collection(path: str | os.PathLike[str], index: ResultIndex | None = None,
                    rules: Rules | None = None) -> Iterator[CollectedGame]:
    """The games of the collection at ``path``, in file order.

    ``index`` gives one-line games their results (without it each is skipped: "no result");
    ``rules`` are the one-line games' rules (default: Chinese, komi 6.5, the komi of the public
    Tygem and KGS-era collections) and the Piskvork games' (a Gomoku variant; ``.rec`` games are
    on its board, ``.psq`` games on their own); SGF games carry their own. Raises ValueError for a file that
    is not a collection, OSError / zipfile.BadZipFile / tarfile.TarError when the archive itself
    is broken; every problem with one game is reported in its ``skipped``.
    """
    path = Path(path)
    rules = rules or Rules.go(19, "chinese", komi=6.5)
    kind = collection_kind(path)
    if kind == "zip":
        games: Iterator[CollectedGame] = _zip_games(path, index, rules)
    elif kind == "tar":
        games = _tar_games(path, rules)
    elif kind in ("sgf", "piskvork"):
        with open(path, "rb") as stream:
            games = iter([_member_game(path.name, stream, rules)])
    else:
        games = _text_games(path, index, rules)
    yield from games


def _text_games(path: Path, index: ResultIndex | None, rules: Rules) -> Iterator[CollectedGame]:
    with open(path, "rb") as stream:
        yield from _line_games(_text_lines(stream), index, rules)
