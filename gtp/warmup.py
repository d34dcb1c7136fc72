"""Work a front end does after it is ready, in one background thread, so that no command waits for it.

Jobs that only make later commands faster, such as compiling the random playouts' kernels, run
here one at a time. (The network is compiled by a separate process, never in this one:
``EvaluatorOptions(ahead_of_time=True)``.) Progress goes to stderr through :mod:`logging`.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

__all__ = ["BackgroundWarmUp"]

log = logging.getLogger(__name__)


class BackgroundWarmUp:
    """A queue of warm-up jobs run in turn by one daemon thread, started with the first job."""

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[str, Callable[[], object]]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._pending = 0   # jobs queued or running

    @property
    def busy(self) -> bool:
        """A job is queued or running: work that wants the CPU and the interpreter to itself (pondering)
        should wait, or it slows the job and the job slows its answers."""
        return self._pending > 0

    def run(self, what: str, job: Callable[[], object]) -> None:
        """Run ``job`` (``what`` says what it does, for the log) after the jobs queued before it."""
        with self._lock:   # analysis searches end in their own threads
            self._pending += 1
            self._jobs.put((what, job))
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="engine-background-warm-up", daemon=True)
                self._thread.start()

    def _work(self) -> None:
        while True:
            what, job = self._jobs.get()
            started = time.perf_counter()
            log.info("background: %s", what)
            try:
                job()
                log.info("background: %s: done in %.1f s", what, time.perf_counter() - started)
            except Exception:  # noqa: BLE001 -- a failed warm-up only leaves things slower; say so and go on
                log.warning("background: failed: %s", what, exc_info=True)
            finally:
                with self._lock:
                    self._pending -= 1
