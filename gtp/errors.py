"""The one place where the engine's exceptions become GTP's canonical failure messages.

Handlers raise :class:`~gtp.protocol.GtpError` for what they check
themselves; whatever else escapes a handler comes here. A known engine error
gets its canonical message (``illegal move``, ``bad vertex``, ...); anything
unexpected gets None and the session answers ``? internal error: ...`` and
logs the traceback.
"""

from __future__ import annotations

from engine import EngineError, HandicapError, IllegalMoveError, InvalidVertexError, RulesError, SGFError
from gtp.protocol import BAD_VERTEX, CANNOT_LOAD, ILLEGAL_MOVE, INVALID_STONES

__all__ = ["describe_error"]

_CANONICAL: tuple[tuple[type[BaseException], str], ...] = (
    (IllegalMoveError, ILLEGAL_MOVE),
    (InvalidVertexError, BAD_VERTEX),
    (HandicapError, INVALID_STONES),
    (SGFError, CANNOT_LOAD),
)


def describe_error(exc: BaseException) -> str | None:
    """The failure message for an exception a handler let through, None if it is a bug."""
    for kind, message in _CANONICAL:
        if isinstance(exc, kind):
            return message
    if isinstance(exc, (RulesError, EngineError)):
        return str(exc) or type(exc).__name__
    return None
