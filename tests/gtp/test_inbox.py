"""The front ends' input read ahead: numbered lines, stop lines noted rather than queued, the line limit, and
nothing to take before anything has arrived."""

from __future__ import annotations

import io

from gtp.inbox import EOF, Inbox


def test_lines_come_numbered_and_a_stop_line_stops_those_before_it() -> None:
    inbox = Inbox(io.BytesIO(b"one\nSTOP\ntwo\n"), lambda raw: raw.strip() == b"STOP")
    inbox.read_all()
    assert [inbox.get(), inbox.get(), inbox.get()] == [(1, b"one\n"), (3, b"two\n"), EOF]
    assert inbox.stopped(1) and not inbox.stopped(3)


def test_a_line_past_the_limit_comes_cut_and_the_next_line_whole() -> None:
    inbox = Inbox(io.BytesIO(b"x" * 20 + b"\nnext\n"), limit=8)
    inbox.read_all()
    assert [inbox.get(), inbox.get()] == [(1, b"x" * 9), (2, b"next\n")]


def test_without_waiting_nothing_is_there_before_the_input_is_read() -> None:
    inbox = Inbox(io.BytesIO(b"one\n"))
    assert inbox.get(block=False) is None
    inbox.read_all()
    assert inbox.get(block=False) == (1, b"one\n")
