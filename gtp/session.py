"""A GTP session: owns the input and output streams and runs commands one at a time.

A reader thread reads raw lines from the input so that the engine notices
what arrives while a command runs: GoGui's ``# interrupt`` comment stops the
running command's search at once, and any line stops a running analysis
(``lz-analyze``, ``kata-analyze``, ``analyze``), whose search runs in a
background thread while its ``info`` lines stream to the output; then the
new command runs. The main thread parses and dispatches commands through the
:class:`~gtp.registry.Registry`; nothing but GTP responses is written to the
output, diagnostics go to stderr through :mod:`logging`.

Any exception in a handler answers ``? message`` and the context is restored
from the snapshot taken before the handler ran, so a failed command changes
nothing and the engine stays alive; a guard around each input line answers
``? internal error: ...`` for anything else that fails while it is read or run.

Pondering: a session given ``ponder`` asks it, whenever it has answered
everything and waits for input, for a job to run meanwhile (the engine's
search on the opponent's time); the job runs in a background thread until the
next line arrives, and is stopped and joined before that line is handled.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import BinaryIO, Protocol

from gtp import protocol
from gtp.inbox import EOF, Inbox, PonderJob
from gtp.outbox import Outbox
from gtp.registry import Registry, Request, Stream

__all__ = ["Context", "Session"]

log = logging.getLogger(__name__)



class Context(Protocol):
    """What the session needs of the object its handlers work on."""

    def wait_ready(self) -> None:
        """Block until the engine is warm; raise GtpError if it could not start."""

    def snapshot(self) -> object:
        """State to go back to if the next command fails."""

    def restore(self, snapshot: object) -> None:
        ...


class Session:
    """One GTP conversation over binary streams (``sys.stdin.buffer`` / ``sys.stdout.buffer`` or pipes).

    ``describe_error(exc)`` gives the failure message for an exception a
    handler let through, or None for an unexpected one (answered
    ``internal error: ...`` and logged with its traceback). ``# interrupt``
    stops every command read before it that is still running or waiting.
    ``ponder()`` gives the job to run while the session waits for input, or None.
    """

    def __init__(self, registry: Registry, context: Context, stdin: BinaryIO, stdout: BinaryIO,
                 describe_error: Callable[[BaseException], str | None] = lambda exc: None,
                 ponder: Callable[[], PonderJob | None] | None = None) -> None:
        self.registry = registry
        self.context = context
        self._inbox = Inbox(stdin, lambda raw: protocol.is_interrupt(raw[:64].decode("utf-8", "replace")))
        self._out = Outbox(stdout)
        self._describe = describe_error
        self._ponder = ponder

    # ------------------------------------------------------------- writing
    def _write(self, text: str) -> None:
        self._out.write(text.encode("utf-8"))

    # ------------------------------------------------------------- running
    def run(self) -> None:
        """Answer commands until ``quit``, the end of the input, or a closed output."""
        self._inbox.start()
        item = self._next()
        while item is not EOF and not self._out.closed:
            seq, raw = item  # type: ignore[misc]
            item = self._guarded(seq, raw)
            if item is None:
                item = self._next()

    def _guarded(self, seq: int, raw: bytes) -> object | None:
        """One input line under the session's guard: whatever goes wrong in parsing or handling it, the line
        gets one failure response, the error is logged and the session goes on. Returns the queue item that
        ended a streamed response, EOF after ``quit``, else None."""
        try:
            return self._handle_line(seq, raw)
        except Exception as exc:  # noqa: BLE001 -- no input line may end the session
            log.error("input line %d failed", seq, exc_info=exc)
            self._write(protocol.failure(protocol.leading_id(raw), f"internal error: {type(exc).__name__}"))
            return None

    def _next(self) -> object:
        """The next input item; while none has arrived, the ponder job (if any) runs."""
        return self._inbox.next(self._ponder)

    def _handle_line(self, seq: int, raw: bytes) -> object | None:
        """Run one input line (see :meth:`_guarded` for what it returns)."""
        try:
            command = protocol.parse_line(protocol.decode_line(raw))
        except protocol.GtpError as exc:
            self._write(protocol.failure(protocol.leading_id(raw), exc.message))
            return None
        if command is None:
            return None
        return self._dispatch(command, seq)

    def _dispatch(self, command: protocol.Command, seq: int) -> object | None:
        spec = self.registry.get(command.name)
        if spec is None:
            self._write(protocol.failure(command.id, protocol.UNKNOWN_COMMAND))
            return None
        request = Request(command.args, interrupted=lambda: self._inbox.stopped(seq))
        snapshot = None
        try:
            if spec.needs_engine:
                self.context.wait_ready()
            snapshot = self.context.snapshot()
            reply = spec.handler(self.context, request)
        except Exception as exc:  # noqa: BLE001 -- every failure becomes "? message"
            self._fail(command, exc, snapshot)
            return None
        if isinstance(reply, Stream):
            return self._stream(command, reply, request)
        self._write(protocol.success(command.id, reply))
        return EOF if command.name == "quit" else None

    def _fail(self, command: protocol.Command, exc: Exception, snapshot: object) -> None:
        if snapshot is not None:
            self.context.restore(snapshot)
        if isinstance(exc, protocol.GtpError):
            message = exc.message
            log.debug("%s failed: %s", command.name, message)
        else:
            known = self._describe(exc)
            if known is None:
                log.error("%s failed", command.name, exc_info=exc)
                message = f"internal error: {type(exc).__name__}: {exc}"
            else:
                log.info("%s failed: %s", command.name, exc)
                message = known
        self._write(protocol.failure(command.id, message))

    # ----------------------------------------------------------- streaming
    def _stream(self, command: protocol.Command, stream: Stream, request: Request) -> object | None:
        """Run a streamed response; return the queue item that ended it (None if it ended by itself)."""
        stop = threading.Event()
        final: list[str | None] = [None]

        def emit(line: str) -> None:
            line = " ".join(line.split())
            if line and not stop.is_set():
                self._write(line + "\n")

        def work() -> None:
            try:
                last = stream.run(lambda: stop.is_set() or request.interrupted(), emit)
                final[0] = " ".join(last.split()) if last else None
            except Exception:  # noqa: BLE001 -- the header is out; log and end the response
                log.exception("%s failed while streaming", command.name)

        self._write(protocol.stream_header(command.id))
        worker = threading.Thread(target=work, name=f"gtp-{command.name}", daemon=True)
        worker.start()
        if stream.until_next_line:
            item = self._inbox.get()
            stop.set()
            worker.join()
        else:
            worker.join()
            stop.set()
            item = None
        if final[0]:
            self._write(final[0] + "\n")
        self._write("\n")
        return item
