"""A front end's output after the client has gone: one warning, no exception, nothing more written, and the GTP
session stops reading commands."""

from __future__ import annotations

import io
import logging

import pytest

from gtp.outbox import Outbox
from gtp.registry import Registry, Request
from gtp.session import Session
from tests.gtp.helpers import ClosedOutput


class Counter:
    """A context whose only command counts how often it ran."""

    def __init__(self) -> None:
        self.runs = 0

    def wait_ready(self) -> None:
        pass

    def snapshot(self) -> object:
        return None

    def restore(self, snapshot: object) -> None:
        pass


def test_an_open_output_gets_every_write_whole() -> None:
    stream = io.BytesIO()
    outbox = Outbox(stream)
    outbox.write(b"= one\n\n")
    outbox.write(b"= two\n\n")
    assert stream.getvalue() == b"= one\n\n= two\n\n" and not outbox.closed


def test_a_closed_output_is_noted_once_and_later_writes_are_dropped(caplog: pytest.LogCaptureFixture) -> None:
    stream = ClosedOutput()
    outbox = Outbox(stream)  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="gtp.outbox"):
        outbox.write(b"= one\n\n")
        outbox.write(b"= two\n\n")
    assert outbox.closed and stream.attempts == 1
    assert [record.getMessage() for record in caplog.records] == ["output closed; stopping"]


def test_a_gtp_session_stops_at_a_closed_output() -> None:
    registry = Registry()

    def count(context: Counter, request: Request) -> str:
        context.runs += 1
        return str(context.runs)

    registry.add("count", count)
    context, stream = Counter(), ClosedOutput()
    Session(registry, context, io.BytesIO(b"count\ncount\ncount\n"), stream).run()  # type: ignore[arg-type]
    assert context.runs == 1 and stream.attempts == 1
