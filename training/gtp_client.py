"""A GTP client: drive another engine (GNU Go, Leela Zero, our own ``engine gtp``) over pipes.

The one client of the repository: GTP engines as match players
(:mod:`training.gtp_player`), GNU Go's self-play data (:mod:`training.gnugo_games`)
and the tests that check the rules against GNU Go all speak through it.

``GTPClient(argv)`` starts the engine; ``send(command)`` returns the text of a
``=`` response and raises :class:`GTPError` with the engine's message for a
``?`` response; ``send_many(commands)`` pipelines a batch (a large batch is
written by a helper thread while the responses are read, so neither pipe can
fill up and deadlock). Every command has a deadline: an engine that hangs or
dies is killed and :class:`GTPTimeout` raised, so nothing waits forever. Use it
as a context manager so the process is always reaped::

    with GTPClient(gnugo_argv(find_gnugo(), level=10)) as gnugo:
        gnugo.send("boardsize 9")
        vertices = gnugo.send("fixed_handicap 4").split()
"""

from __future__ import annotations

import os
import selectors
import shlex
import shutil
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

from training.errors import PlayerError

__all__ = ["GTPClient", "GTPEngineError", "GTPError", "GTPTimeout", "DEFAULT_TIMEOUT", "find_gnugo", "gnugo_argv"]

DEFAULT_TIMEOUT = 60.0
"""Seconds an engine may take over one command (or one batch) before it counts as hung."""

_INLINE_WRITE = 4096  # bytes; larger batches are written by a thread while the answers are read


class GTPEngineError(PlayerError):
    """A GTP engine that cannot start, refused a command, hung or died."""


class GTPError(GTPEngineError):
    """The engine answered ``?``: ``command`` and its ``message``."""

    def __init__(self, name: str, command: str, message: str) -> None:
        super().__init__(f"{name} refused {command!r}: {message}")
        self.command = command
        self.message = message


class GTPTimeout(GTPEngineError):
    """The engine did not answer before the deadline, or exited; it has been killed."""


def find_gnugo() -> str | None:
    """Path of the gnugo binary, or None (Debian installs it under /usr/games)."""
    return shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games:/usr/local/games")


def gnugo_argv(binary: str, *flags: str, level: int = 0, rules: str = "chinese") -> list[str]:
    """GNU Go in GTP mode at ``level`` (0: its fastest) under ``rules`` ("chinese" or "japanese"), plus ``flags``."""
    return [binary, "--mode", "gtp", "--level", str(level), f"--{rules}-rules", *flags]


class GTPClient:
    """One engine process spoken to in GTP; ``timeout`` seconds per command (or batch).

    ``name`` (default: the program's file name) is how errors call the engine. The
    engine's stderr is discarded unless ``stderr`` says otherwise.
    """

    def __init__(self, argv: Sequence[str], timeout: float = DEFAULT_TIMEOUT, name: str | None = None,
                 stderr: int | IO[bytes] | None = subprocess.DEVNULL) -> None:
        self.argv = list(argv)
        self.timeout = timeout
        self.name = name or Path(self.argv[0]).name
        try:
            self._process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        except OSError as error:
            raise GTPEngineError(f"cannot start {shlex.join(self.argv)}: {error}") from error
        assert self._process.stdin is not None and self._process.stdout is not None
        self._stdin = self._process.stdin
        self._stdout_fd = self._process.stdout.fileno()
        self._buffer = b""
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._stdout_fd, selectors.EVENT_READ)
        self.genmoves = 0  # genmove commands answered, and the seconds they took (thinking time)
        self.genmove_seconds = 0.0

    # ------------------------------------------------------------- commands
    def send(self, command: str) -> str:
        """Send one command; the response text without ``=`` (stripped). A ``genmove``'s time counts
        in ``genmove_seconds``."""
        started = time.perf_counter()
        text = self.send_many([command])[0]
        if command.split()[0].lower() == "genmove":
            self.genmoves += 1
            self.genmove_seconds += time.perf_counter() - started
        return text

    def send_many(self, commands: Sequence[str]) -> list[str]:
        """Send a batch of commands; their response texts in order.

        Every response is read before a :class:`GTPError` for the first
        failed command is raised, so the stream stays in step.
        """
        for command in commands:
            if "\n" in command or not command.strip():
                raise ValueError(f"a GTP command is one non-empty line, not {command!r}")
        if self._process.poll() is not None:
            raise GTPTimeout(f"{self.name} is not running (exit code {self._process.returncode})")
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
                raise GTPError(self.name, command, text)
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
        while b"\n\n" not in self._buffer.lstrip(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                self._kill()
                raise GTPTimeout(f"{self.name} gave no answer to {command!r} within {self.timeout:g} s")
            chunk = os.read(self._stdout_fd, 65536)
            if not chunk:
                self._kill()
                raise GTPTimeout(f"{self.name} exited (code {self._process.poll()}) before answering {command!r}")
            self._buffer += chunk.replace(b"\r", b"")
        raw, self._buffer = self._buffer.lstrip(b"\n").split(b"\n\n", 1)
        text = raw.decode()
        if not text or text[0] not in "=?":
            raise GTPError(self.name, command, f"malformed response {text!r}")
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
            except (GTPEngineError, OSError, subprocess.TimeoutExpired):
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
