"""A small GTP controller for tests: drive GNU Go (or our own engine) over pipes.

``GTPClient(argv)`` starts the engine; ``send(command)`` returns the text of
a ``=`` response and raises :class:`GTPError` with the engine's message for a
``?`` response; ``send_many(commands)`` pipelines a batch (all commands are
written by a helper thread while the responses are read, so neither pipe can
fill up and deadlock). Every read has a deadline, so a hung engine fails the
test with :class:`GTPTimeout` instead of hanging it. Use it as a context
manager so the process is always reaped::

    with GTPClient([gnugo_path, "--mode", "gtp", "--level", "0"]) as gnugo:
        gnugo.send("boardsize 9")
        vertices = gnugo.send("fixed_handicap 4").split()
"""

from __future__ import annotations

import os
import selectors
import subprocess
import threading
import time
from collections.abc import Sequence
from types import TracebackType
from typing import IO

__all__ = ["GTPClient", "GTPError", "GTPTimeout", "gnugo_argv"]

_INLINE_WRITE = 4096  # bytes; larger batches are written by a thread while the answers are read


class GTPError(RuntimeError):
    """The engine answered ``?``: ``command`` and its ``message``."""

    def __init__(self, command: str, message: str) -> None:
        super().__init__(f"{command!r} failed: {message}")
        self.command = command
        self.message = message


class GTPTimeout(RuntimeError):
    """The engine did not answer before the deadline (or exited); it has been killed."""


def gnugo_argv(gnugo_path: str, *flags: str, rules: str = "chinese") -> list[str]:
    """GNU Go in GTP mode at its fastest level under ``rules`` ("chinese" or "japanese"), plus ``flags``."""
    return [gnugo_path, "--mode", "gtp", "--level", "0", f"--{rules}-rules", *flags]


class GTPClient:
    """One engine process spoken to in GTP; ``timeout`` seconds per command (or batch)."""

    def __init__(self, argv: Sequence[str], timeout: float = 30.0,
                 stderr: int | IO[bytes] | None = subprocess.DEVNULL) -> None:
        self.argv = list(argv)
        self.timeout = timeout
        self._process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=stderr)
        assert self._process.stdin is not None and self._process.stdout is not None
        self._stdin = self._process.stdin
        self._stdout_fd = self._process.stdout.fileno()
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._stdout_fd, selectors.EVENT_READ)

    # ------------------------------------------------------------- commands
    def send(self, command: str) -> str:
        """Send one command; the response text without ``=`` (stripped)."""
        return self.send_many([command])[0]

    def send_many(self, commands: Sequence[str]) -> list[str]:
        """Send a batch of commands; their response texts in order.

        Every response is read before a :class:`GTPError` for the first
        failed command is raised, so the stream stays in step.
        """
        for command in commands:
            if "\n" in command or not command.strip():
                raise ValueError(f"a GTP command is one non-empty line, not {command!r}")
        if self._process.poll() is not None:
            raise GTPTimeout(f"{self.argv[0]} is not running (exit code {self._process.returncode})")
        payload = "".join(command + "\n" for command in commands).encode()
        writer = None
        if len(payload) <= _INLINE_WRITE:
            self._write(payload)  # fits in the empty pipe: cannot block
        else:
            writer = threading.Thread(target=self._write, args=(payload,), daemon=True)
            writer.start()
        deadline = time.monotonic() + self.timeout
        replies = [self._read_response(deadline, command) for command in commands]
        if writer is not None:
            writer.join(max(0.0, deadline - time.monotonic()))
        texts = []
        for command, (ok, text) in zip(commands, replies):
            if not ok:
                raise GTPError(command, text)
            texts.append(text)
        return texts

    def _write(self, payload: bytes) -> None:
        try:
            self._stdin.write(payload)
            self._stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass  # the reader notices the dead engine and reports it

    def _read_response(self, deadline: float, command: str) -> tuple[bool, str]:
        """One response (up to its blank line): (success, text after ``=``/``?``)."""
        while b"\n\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                self._kill()
                raise GTPTimeout(f"{self.argv[0]} gave no answer to {command!r} within {self.timeout} s")
            chunk = os.read(self._stdout_fd, 65536)
            if not chunk:
                self._kill()
                raise GTPTimeout(f"{self.argv[0]} exited (code {self._process.poll()}) before answering "
                                 f"{command!r}")
            self._buffer += chunk.replace(b"\r", b"")
        raw, self._buffer = self._buffer.split(b"\n\n", 1)
        text = raw.decode().lstrip("\n")
        if not text or text[0] not in "=?":
            raise GTPError(command, f"malformed response {text!r}")
        body = text[1:]
        digits = len(body) - len(body.lstrip("0123456789"))  # an optional command id
        return text[0] == "=", body[digits:].strip()

    # ---------------------------------------------------------------- close
    def close(self) -> None:
        """Say ``quit`` and wait briefly; kill the engine if it lingers. Safe to call twice."""
        if self._process.poll() is None:
            try:
                self.send_many(["quit"])
                self._process.wait(timeout=5)
            except (GTPError, GTPTimeout, OSError, subprocess.TimeoutExpired):
                pass
        self._kill()
        if self._selector.get_map() is not None:
            self._selector.close()
        for pipe in (self._process.stdin, self._process.stdout):
            if pipe is not None and not pipe.closed:
                try:
                    pipe.close()
                except OSError:
                    pass

    def _kill(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def __enter__(self) -> "GTPClient":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
