"""``engine gtp`` in a child process, spoken to over pipes, for the benchmarks that time what a GUI sees.

Unlike :class:`training.gtp_client.GTPClient` (a match player: one command, one answer), the pipe also reads the
lines an analysing engine streams between answers (``kata-analyze``), and gives the child's pid, so that a
benchmark can read its resident memory.
"""

from __future__ import annotations

import queue
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from bench.timing import BenchError, engine_process

__all__ = ["GtpPipe", "resident_bytes", "status_bytes", "queued_lines", "write_line"]

ANSWER_TIMEOUT = 600.0
"""Seconds the engine may take over one answer before the benchmark counts it as hung."""
STDERR_TAIL = 2000
"""Characters of the engine's stderr an error quotes when the engine dies."""


def status_bytes(pid: int, key: str) -> int | None:
    """The memory figure ``key`` (``VmRSS``, ``VmHWM``, ...) of ``/proc/PID/status`` (Linux) in bytes, None where the
    file has no such line; an OSError where the file cannot be read (the process has gone)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return None


def resident_bytes(pid: int) -> int:
    """The resident memory of process ``pid`` (its ``VmRSS``), in bytes."""
    found = status_bytes(pid, "VmRSS")
    if found is None:
        raise BenchError(f"process {pid} reports no resident memory")
    return found


def queued_lines(stream: Iterable[str], keep: Callable[[str], str | None],
                 name: str | None = None) -> queue.Queue[str | None]:
    """The lines of a child's ``stream`` as ``keep`` turns them (None: left out), put in a queue by a daemon
    thread and followed by None once the stream ends: a reader can then wait for the next line with a timeout,
    and a child that says nothing cannot block it."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in stream:
            kept = keep(line)
            if kept is not None:
                lines.put(kept)
        lines.put(None)

    threading.Thread(target=read, name=name, daemon=True).start()
    return lines


def write_line(stream: IO[str] | None, line: str) -> bool:
    """Write ``line`` to a child's input and flush it; False where the child has gone (its pipe is closed)."""
    assert stream is not None
    try:
        stream.write(line + "\n")
        stream.flush()
    except OSError:
        return False
    return True


class GtpPipe:
    """``engine gtp ARGUMENTS``; ``ask`` returns an answer's text and the seconds it took, ``line`` the next line
    the engine wrote (answers and streamed analysis alike). The engine's stderr goes to a temporary file, so that
    an engine that dies mid-session is reported at once with its exit status and its last words."""

    def __init__(self, arguments: list[str]) -> None:
        command, environment = engine_process("gtp", *arguments)
        self._stderr = tempfile.TemporaryFile(mode="w+", prefix="engine-gtp-stderr-")
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._stderr, text=True, bufsize=1, env=environment)
        assert self._process.stdout is not None
        self._lines = queued_lines(self._process.stdout, lambda line: line.rstrip("\n"))   # then None: it exited

    @property
    def pid(self) -> int:
        return self._process.pid

    def send(self, command: str) -> None:
        """Write ``command`` without waiting for its answer."""
        if not write_line(self._process.stdin, command):
            raise self._died()

    def line(self, timeout: float = ANSWER_TIMEOUT) -> str:
        """The next line the engine writes; a :class:`BenchError` if none comes within ``timeout`` seconds or
        the engine has exited."""
        line = self.line_within(timeout)
        if line is None:
            self._process.kill()
            raise BenchError(f"engine gtp wrote nothing for {timeout:g} s")
        return line

    def line_within(self, timeout: float) -> str | None:
        """The next line if the engine writes one within ``timeout`` seconds, else None (an analysis whose search
        has stopped, at a limit or with a full tree, writes nothing until the next command); a
        :class:`BenchError` if the engine has exited."""
        try:
            line = self._lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None
        if line is None:
            self._lines.put(None)
            raise self._died()
        return line

    def _died(self) -> BenchError:
        status = self._process.wait(60)
        self._stderr.seek(0)
        tail = self._stderr.read()[-STDERR_TAIL:].strip()
        return BenchError(f"engine gtp exited with status {status}" + (f"; its stderr ended:\n{tail}" if tail else ""))

    def answer(self, command: str, first: str | None = None) -> str:
        """The answer to ``command`` (whose ``first`` line may have been read already): its text, or a
        :class:`BenchError` if the engine refused it."""
        lines = [self.line() if first is None else first]
        while lines[-1] != "":
            lines.append(self.line())
        if not lines[0].startswith("="):
            raise BenchError(f"engine gtp refused {command!r}: {lines[0]}")
        return "\n".join(lines).strip()[1:].strip()

    def ask(self, command: str) -> tuple[str, float]:
        started = time.perf_counter()
        self.send(command)
        first = self.line()
        elapsed = time.perf_counter() - started
        return self.answer(command, first), elapsed

    def close(self) -> None:
        """Quit the engine (if it still runs: a dead engine's error is the one worth raising)."""
        if self._process.poll() is None:
            self.ask("quit")
            self._process.wait(60)
        self._stderr.close()
