"""Input lines read ahead on a thread, for the front ends that must notice what arrives while they think.

A front end's main thread takes lines from the :class:`Inbox` one at a time;
the reader thread numbers every line as it arrives, so that a stop line (GTP's
``# interrupt``, Gomocup's ``STOP``) can stop the commands read before it at
once, whether they are running or still waiting. While the inbox is empty the
front end may run a ponder job (its search on the opponent's time) until the
next line arrives.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import BinaryIO

from gtp.protocol import MAX_LINE_BYTES, read_line

__all__ = ["Inbox", "PonderJob", "EOF"]

log = logging.getLogger(__name__)

EOF = object()
"""The item after the last line."""

PonderJob = Callable[[Callable[[], bool]], None]
"""``job(stop)``: work to do until ``stop()`` is true (it is polled, so the job returns soon after)."""


class Inbox:
    """Raw lines of ``stream`` as ``(number, raw)`` items (numbered from 1), then :data:`EOF`.

    ``is_stop(raw)`` tells a stop line: it is not queued, and :meth:`stopped` is then true for every line
    read before it. ``limit``: the longest line in bytes (:func:`~gtp.protocol.read_line`).
    """

    def __init__(self, stream: BinaryIO, is_stop: Callable[[bytes], bool] = lambda raw: False,
                 limit: int = MAX_LINE_BYTES) -> None:
        self._stream, self._is_stop, self._limit = stream, is_stop, limit
        self._queue: queue.Queue[object] = queue.Queue()
        self.lines_read = 0
        self._stopped_upto = 0

    def start(self) -> Inbox:
        """Read the lines on a thread, as they arrive."""
        threading.Thread(target=self.read_all, name="front-end-reader", daemon=True).start()
        return self

    def read_all(self) -> None:
        """Read every line to the end of the stream in this thread (instead of :meth:`start`)."""
        try:
            while raw := read_line(self._stream, self._limit):
                self.lines_read += 1
                if self._is_stop(raw):
                    self._stopped_upto = self.lines_read
                    continue
                self._queue.put((self.lines_read, raw))
        except (OSError, ValueError) as exc:
            log.warning("input closed: %s", exc)
        finally:
            self._queue.put(EOF)

    def stopped(self, number: int) -> bool:
        """Whether a stop line arrived after line ``number``."""
        return self._stopped_upto > number

    def get(self, block: bool = True) -> object:
        """The next item; without ``block``, None when none has arrived yet."""
        try:
            return self._queue.get(block=block)
        except queue.Empty:
            return None

    def next(self, ponder: Callable[[], PonderJob | None] | None = None) -> object:
        """The next item; while none has arrived, the ponder job ``ponder()`` gives (if any) runs on a thread,
        and is stopped and joined before the item is returned."""
        job = None
        if ponder is not None and self._queue.empty():
            try:
                job = ponder()
            except Exception:  # noqa: BLE001 -- pondering is a bonus: log it and answer the next command
                log.exception("pondering failed")
        if job is None:
            return self._queue.get()
        stop = threading.Event()

        def work() -> None:
            try:
                job(stop.is_set)
            except Exception:  # noqa: BLE001 -- pondering is a bonus: log it and answer the next command
                log.exception("pondering failed")

        worker = threading.Thread(target=work, name="front-end-ponder", daemon=True)
        worker.start()
        item = self._queue.get()
        stop.set()
        worker.join()
        return item
