"""The minibatch prefetcher: every step in order, a failure raised at its step, an early stop that returns."""

from __future__ import annotations

import threading
import time

import pytest

from training.prefetch import Prefetcher


def test_every_step_comes_in_order_while_the_draws_run_in_another_thread() -> None:
    threads: set[str] = set()

    def draw(step: int) -> int:
        threads.add(threading.current_thread().name)
        return step * step

    with Prefetcher(draw, range(3, 40), depth=2) as batches:
        assert list(batches) == [step * step for step in range(3, 40)]
    assert threads == {"minibatches"}


def test_a_failed_draw_is_raised_at_its_step() -> None:
    def draw(step: int) -> int:
        if step == 5:
            raise ValueError("chunk 7 is corrupt")
        return step

    got = []
    with pytest.raises(ValueError, match="chunk 7 is corrupt"), Prefetcher(draw, range(10)) as batches:
        for item in batches:
            got.append(item)
    assert got == [0, 1, 2, 3, 4]


def test_closing_early_stops_the_thread_without_drawing_the_rest() -> None:
    drawn: list[int] = []

    def draw(step: int) -> int:
        drawn.append(step)
        return step

    prefetcher = Prefetcher(draw, range(1_000_000), depth=3)
    first = next(iter(prefetcher))
    started = time.perf_counter()
    prefetcher.close()
    assert first == 0 and time.perf_counter() - started < 5
    assert not prefetcher._thread.is_alive() and len(drawn) < 10
