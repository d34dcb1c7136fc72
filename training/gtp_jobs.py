"""Games between GTP engines on several processes at once: a few threads, each with its own engines.

GTP engines are processes, so a thread per job is enough to keep them all busy;
the GIL is free while a thread waits on its engine's pipe. A match's in-process
players (baselines, model files) are run as processes too when jobs run side by
side (:class:`~training.local_engine.LocalEngineProcess`): as threads they would
share one core. Used by GNU Go's self-play data and by matches.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TypeVar

__all__ = ["run_jobs"]

_Engines = TypeVar("_Engines")
_Played = TypeVar("_Played")


def run_jobs(items: list[int], jobs: int, open_engines: Callable[[int], AbstractContextManager[_Engines]],
             play: Callable[[_Engines, int], _Played], done: Callable[[int, _Played], None]) -> None:
    """Play every item of ``items`` (game numbers), taken in order by ``jobs`` threads.

    Thread ``j`` opens its engines once (``open_engines(j)``, a context manager closed when it
    finishes) and calls ``play(engines, item)`` for each item it takes; ``done(item, played)`` is
    called with the result, one call at a time. The first error of any thread stops the others
    after their current item and is raised here.
    """
    todo = list(items)
    lock = threading.Lock()
    failures: list[BaseException] = []

    def work(job: int) -> None:
        try:
            with open_engines(job) as engines:
                while True:
                    with lock:
                        if not todo or failures:
                            return
                        item = todo.pop(0)
                    played = play(engines, item)
                    with lock:
                        done(item, played)
        except BaseException as error:  # noqa: BLE001 -- re-raised in the calling thread
            failures.append(error)

    threads = [threading.Thread(target=work, args=(job,)) for job in range(max(1, min(jobs, len(todo))))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
