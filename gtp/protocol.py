"""The GTP 2 codec: command lines in, response text out. No engine import; no I/O but bounded line reads.

Input follows the GTP 2 specification, section 3.1: every control character
except HT and LF is removed (CR included, so CRLF lines work), text from
``#`` to the end of the line is a comment, HT becomes a space, and lines that
are then empty are skipped. A command is ``[id] name [arguments...]`` where
the optional ``id`` is a non-negative integer that the response echoes::

    12 play b D4      ->   =12 \\n\\n
    genmove w         ->   = Q16\\n\\n
    13 plya b D4      ->   ?13 unknown command\\n\\n

Lines arrive as bytes: a line longer than :data:`MAX_LINE_BYTES` or one that
is not UTF-8 is refused with ``? line too long`` / ``? invalid UTF-8`` (the
id is echoed when the line starts with one). The canonical failure messages
of the specification are the constants below; handlers raise
:class:`GtpError` with one of them (or another short message).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import metadata
from typing import BinaryIO

__all__ = [
    "MAX_LINE_BYTES", "Command", "GtpError", "read_line", "preprocess", "parse_line", "decode_line", "leading_id",
    "is_interrupt", "success", "failure", "stream_header", "UNKNOWN_COMMAND", "SYNTAX_ERROR",
    "ILLEGAL_MOVE", "UNACCEPTABLE_SIZE", "CANNOT_UNDO", "CANNOT_SCORE", "INVALID_COLOR", "BAD_VERTEX",
    "BAD_VERTEX_LIST", "BOARD_NOT_EMPTY", "INVALID_STONES", "CANNOT_LOAD", "LINE_TOO_LONG", "INVALID_UTF8",
    "package_version",
]

MAX_LINE_BYTES = 64 * 1024
"""Longest accepted command line in bytes (the line feed included)."""

UNKNOWN_COMMAND = "unknown command"
SYNTAX_ERROR = "syntax error"
ILLEGAL_MOVE = "illegal move"
UNACCEPTABLE_SIZE = "unacceptable size"
CANNOT_UNDO = "cannot undo"
CANNOT_SCORE = "cannot score"
INVALID_COLOR = "invalid color"
BAD_VERTEX = "bad vertex"
BAD_VERTEX_LIST = "bad vertex list"
BOARD_NOT_EMPTY = "board not empty"
INVALID_STONES = "invalid number of stones"
CANNOT_LOAD = "cannot load file"
LINE_TOO_LONG = "line too long"
INVALID_UTF8 = "invalid UTF-8"

# Control characters other than HT (0x09) and LF (0x0a), DEL included.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_ID = re.compile(rb"\s*([0-9]+)")


class GtpError(Exception):
    """A command failed; ``message`` is the text after ``?`` (one line)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Command:
    """One parsed command. ``id`` is the digits as sent (echoed verbatim), or None."""

    id: str | None
    name: str
    args: tuple[str, ...] = ()


def read_line(stream: BinaryIO, limit: int = MAX_LINE_BYTES) -> bytes:
    """The next raw line of ``stream`` (b"" at its end), read in bounded memory, for every front end.

    A line longer than ``limit`` bytes is read to its end, so that the next
    read starts at the next line, and comes back cut to ``limit + 1`` bytes:
    ``len(line) > limit`` says it was too long.
    """
    line = stream.readline(limit + 1)
    rest = line
    while len(rest) > limit and not rest.endswith(b"\n"):
        rest = stream.readline(limit + 1)
    return line


def preprocess(text: str) -> str:
    """GTP 3.1 preprocessing of one line: control characters, comment, tabs; surrounding space stripped."""
    text = _CONTROL.sub("", text)
    text = text.split("#", 1)[0]
    return text.replace("\t", " ").strip()


def is_interrupt(text: str) -> bool:
    """Whether a line is GoGui's ``# interrupt`` comment (it asks the running command to stop)."""
    return _CONTROL.sub("", text).replace("\t", " ").strip() == "# interrupt"


def parse_line(text: str) -> Command | None:
    """The command on a decoded line, or None for a line that is empty after preprocessing.

    Raises :class:`GtpError` (``syntax error``) for a line holding only an id.
    """
    words = preprocess(text).split()
    if not words:
        return None
    ident = None
    if words[0].isascii() and words[0].isdigit():
        ident = words.pop(0)
        if not words:
            raise GtpError(SYNTAX_ERROR)
    return Command(ident, words[0], tuple(words[1:]))


def decode_line(raw: bytes) -> str:
    """The text of one raw input line; :class:`GtpError` if it is too long or not UTF-8."""
    if len(raw) > MAX_LINE_BYTES:
        raise GtpError(LINE_TOO_LONG)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise GtpError(INVALID_UTF8) from None


def leading_id(raw: bytes) -> str | None:
    """The id a raw line starts with (to echo in the failure of a line that cannot be read)."""
    match = _ID.match(raw[:64])
    if match is None:
        return None
    end = match.end()
    if end < len(raw) and not raw[end:end + 1].isspace():
        return None
    return match.group(1).decode("ascii")


def _body(text: str) -> str:
    """Response text without blank lines (a blank line ends a GTP response) or stray control characters."""
    lines = [_CONTROL.sub("", line).rstrip() for line in text.split("\n")]
    kept = [line for line in lines if line]
    if not kept:
        return ""
    return ("\n" if not lines[0] else "") + "\n".join(kept)


def success(ident: str | None, text: str = "") -> str:
    """A complete success response: ``=id text`` and the blank line that ends it."""
    return f"={ident or ''} {_body(text)}\n\n"


def failure(ident: str | None, message: str) -> str:
    """A complete failure response: ``?id message`` on one line and the blank line."""
    line = " ".join(_body(message).split()) or "failed"
    return f"?{ident or ''} {line}\n\n"


def stream_header(ident: str | None) -> str:
    """The first line of a streamed response (analysis): ``=id`` alone, as Leela Zero writes it."""
    return f"={ident or ''}\n"


def package_version() -> str:
    """The installed package's version (``unknown`` when run from a tree that is not installed), for ``version``
    commands of every front end."""
    try:
        return metadata.version("engine")
    except metadata.PackageNotFoundError:
        return "unknown"
