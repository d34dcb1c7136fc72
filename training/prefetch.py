"""Minibatches drawn ahead of the training step, in a thread, so that a fast accelerator never waits for them.

Drawing a minibatch (indexing the samples, unpacking, a symmetry per sample)
is numpy work that releases the GIL for most of its time; a step on a GPU is
mostly waiting for kernels. Drawing the next ``depth`` batches while the
current step runs keeps the accelerator fed. Each batch depends only on its
step number (:func:`~training.train.draw_batch`), so prefetching changes no
result: a resumed run still sees the batches an uninterrupted one saw.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["Prefetcher"]

_DONE = object()


class Prefetcher:
    """Iterate over ``draw(step)`` for ``steps``, computed up to ``depth`` steps ahead in a daemon thread.

    An exception in ``draw`` is raised by the iteration at the step that failed. :meth:`close` (or leaving
    the ``with`` block) stops the thread without waiting for the steps not yet drawn.
    """

    def __init__(self, draw: Callable[[int], Any], steps: range, depth: int = 2) -> None:
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=max(depth, 1))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(draw, steps), name="minibatches", daemon=True)
        self._thread.start()

    def _run(self, draw: Callable[[int], Any], steps: range) -> None:
        try:
            for step in steps:
                if self._stop.is_set():
                    return
                self._put(draw(step))
        except BaseException as error:   # handed to the consumer, raised at the step that failed
            self._put(error)
            return
        self._put(_DONE)

    def _put(self, item: Any) -> None:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def __iter__(self) -> Iterator[Any]:
        while True:
            item = self._queue.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    def close(self) -> None:
        self._stop.set()
        self._thread.join()

    def __enter__(self) -> Prefetcher:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
