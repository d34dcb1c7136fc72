"""Work a front end does after it is ready, in one background thread, so that no command waits for it.

The session plays on the eager network at once (``EvaluatorOptions(eager_until_compiled=True)``)
and this worker compiles the network for each board size it is given, one job at a time; the
evaluator switches that size to the compiled form when its compile is done (both give the same
outputs to float tolerance). Jobs that only make later commands faster, such as compiling the
random playouts' kernels, queue behind it. Progress goes to stderr through :mod:`logging`.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

from engine import Evaluator, NetEvaluator

__all__ = ["BackgroundWarmUp"]

log = logging.getLogger(__name__)


class BackgroundWarmUp:
    """A queue of warm-up jobs run in turn by one daemon thread, started with the first job."""

    def __init__(self) -> None:
        self._jobs: queue.Queue[tuple[str, Callable[[], object]]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._compiling: set[tuple[int, int]] = set()   # (id of the evaluator, board size) already queued
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

    def compile_network(self, evaluator: Evaluator, size: int) -> None:
        """Compile ``evaluator``'s network for ``size`` x ``size`` boards, if it runs compiled and is not yet."""
        if not isinstance(evaluator, NetEvaluator) or evaluator.runtime != "compile":
            return
        key = (id(evaluator), size)
        with self._lock:
            if size in evaluator.compiled_sizes or key in self._compiling:
                return
            self._compiling.add(key)
        log.info("moves on %dx%d run on the eager network until its compiled form is ready", size, size)
        self.run(f"compiling the network for {size}x{size}", lambda: evaluator.warm_up(size))

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
