"""``Deadline``: the time left and the shares of it that the steps of a move get."""

from __future__ import annotations

import time

import pytest

from engine.search.deadline import Deadline


def test_the_time_left_runs_down_to_zero_and_passes() -> None:
    deadline = Deadline.after(0.05)
    assert 0 < deadline.remaining() <= 0.05 and not deadline.passed
    time.sleep(0.06)
    assert deadline.remaining() == 0.0 and deadline.passed
    assert Deadline.after(-1.0).passed


def test_a_share_is_a_fraction_of_the_time_left_from_now() -> None:
    deadline = Deadline(time.monotonic() + 10.0)
    half = deadline.share(0.5)
    assert 4.9 < half.remaining() <= 5.0
    assert deadline.share(1.0).at <= deadline.at and deadline.share(0.0).passed
    assert Deadline(time.monotonic() - 1.0).share(0.5).passed   # nothing left: the share is nothing too
    with pytest.raises(ValueError, match="between 0 and 1"):
        deadline.share(1.5)
