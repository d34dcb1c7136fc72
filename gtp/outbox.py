"""A front end's output: each write flushed at once, until the client closes its end.

A client that goes away (a GUI closed, a pipe broken) is the normal end of a session, not an error: the
first write that fails is logged once, later ones are dropped, and the session sees :attr:`Outbox.closed`
and stops.
"""

from __future__ import annotations

import logging
import threading
from typing import BinaryIO

__all__ = ["Outbox"]

log = logging.getLogger(__name__)


class Outbox:
    """Writes to ``stream`` from any thread, each write whole (a lock keeps streamed lines and answers
    apart)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.closed = False

    def write(self, data: bytes) -> None:
        """Write and flush ``data``; nothing once the output has closed."""
        with self._lock:
            if self.closed:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError):
                log.warning("output closed; stopping")
                self.closed = True
