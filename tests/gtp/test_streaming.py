"""What happens while commands run: streamed analysis, interrupts, and answers during the warm-up.

The session runs in a thread over OS pipes, so the test writes commands
while earlier ones are still running, as a GUI does.
"""

from __future__ import annotations

import os
import re
import threading
import time
from typing import Any

import pytest

import gtp.state
from engine.nn.loading import load_evaluator
from gtp.commands import serve
from gtp.state import FrontEndConfig
from tests.gtp.helpers import front_end_config, responses

LZ_MOVE = re.compile(r"^move (\S+) visits (\d+) winrate (\d+) prior (\d+) lcb (\d+) order (\d+) pv((?: \S+)+)$")
KATA_MOVE = re.compile(r"^move (\S+) visits (\d+) utility (-?[\d.]+) winrate ([\d.]+) prior ([\d.]+) lcb ([\d.]+) "
                       r"order (\d+) pv((?: \S+)+)$")
VERTEX = re.compile(r"^(?:[A-HJ-T](?:1[0-9]|[1-9])|pass)$")


class PipeSession:
    """A session in a thread over pipes; ``send`` writes, ``wait_for`` reads what has been answered."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("seed", 1)
        options.setdefault("batch", 8)
        in_read, self._in_write = os.pipe()
        self._out_read, out_write = os.pipe()
        self._stdin = os.fdopen(in_read, "rb")
        self._stdout = os.fdopen(out_write, "wb")
        self.output = b""
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._serve, args=(front_end_config(**options),), daemon=True)
        self.thread.start()
        self._collector = threading.Thread(target=self._collect, daemon=True)
        self._collector.start()

    def _serve(self, config: FrontEndConfig) -> None:
        serve(config, self._stdin, self._stdout)
        self._stdout.close()

    def _collect(self) -> None:
        while chunk := os.read(self._out_read, 1 << 16):
            with self._lock:
                self.output += chunk

    def finish(self, timeout: float = 20.0) -> str:
        """Wait for the session to end and every byte it wrote to arrive; the whole output."""
        self.thread.join(timeout)
        self._collector.join(timeout)
        assert not self.thread.is_alive(), "the session did not end"
        return self.text()

    def send(self, text: str) -> None:
        os.write(self._in_write, text.encode())

    def close_input(self) -> None:
        os.close(self._in_write)

    def text(self) -> str:
        with self._lock:
            return self.output.decode()

    def wait_for(self, pattern: str, timeout: float = 20.0) -> float:
        """Seconds until the output matches ``pattern`` (a regex); fails after ``timeout``."""
        started = time.monotonic()
        while not re.search(pattern, self.text(), re.MULTILINE):
            if time.monotonic() - started > timeout:
                pytest.fail(f"no {pattern!r} within {timeout} s; output so far:\n{self.text()[-2000:]}")
            time.sleep(0.01)
        return time.monotonic() - started


class _Slow:
    """An evaluator that takes ``delay`` seconds per call (whatever its methods are called)."""

    def __init__(self, inner: object, delay: float) -> None:
        self._inner, self._delay = inner, delay

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if not callable(attribute):
            return attribute

        def slowed(*args: Any, **kwargs: Any) -> Any:
            time.sleep(self._delay)
            return attribute(*args, **kwargs)

        return slowed


@pytest.fixture
def slow_evaluator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gtp.state, "load_evaluator",
                        lambda rules, model, options: _Slow(load_evaluator(rules, model, options), 0.02))


def _info_moves(line: str) -> list[str]:
    assert line.startswith("info move "), line
    return [part.strip() for part in line.split("info ")[1:]]


def test_lz_analyze_streams_until_the_next_command(slow_evaluator: None) -> None:
    """Lizzie: numbered commands, ``lz-analyze 10``, stopped by the next command."""
    session = PipeSession(size=9, visits=100)
    session.send("1 play b E5\n2 lz-analyze 10\n")
    session.wait_for(r"^info move .*\n(?:.*\n)*info move ", timeout=30)  # at least two updates
    session.send("3 name\n")
    session.wait_for(r"^=3 engine\n\n")
    session.send("4 quit\n")
    found = responses(session.finish())
    assert [(status, ident) for status, ident, _ in found] == [("=", "1"), ("=", "2"), ("=", "3"), ("=", "4")]
    lines = found[1][2].split("\n")
    assert len(lines) >= 2
    for line in lines:
        orders = []
        for part in _info_moves(line):
            match = LZ_MOVE.match(part)
            assert match, part
            move, visits, winrate, prior, lcb, order, pv = match.groups()
            assert VERTEX.match(move) and move != "E5"
            assert 0 <= int(lcb) <= int(winrate) <= 10000 and 0 <= int(prior) <= 10000
            assert pv.split()[0] == move and all(VERTEX.match(v) for v in pv.split())
            orders.append(int(order))
        assert orders == list(range(len(orders)))


def test_kata_analyze_with_ownership(slow_evaluator: None) -> None:
    """Sabaki: ``kata-analyze W 10 ownership true``; ownership comes from white's view, A9 first."""
    session = PipeSession(size=9, visits=100)
    session.send("play b E5\nplay b D5\nplay b F5\nkata-analyze W 10 ownership true\n")
    session.wait_for(r"^info move .*ownership", timeout=30)
    session.send("protocol_version\n")
    session.wait_for(r"^= 2\n\n")
    session.close_input()
    found = responses(session.finish())
    line = found[3][2].split("\n")[0]
    moves, ownership = line.split(" ownership ")
    for part in _info_moves(moves):
        match = KATA_MOVE.match(part)
        assert match, part
        utility, winrate, lcb = float(match.group(3)), float(match.group(4)), float(match.group(6))
        assert -1 <= utility <= 1 and 0 <= lcb <= winrate <= 1
        assert winrate == pytest.approx((utility + 1) / 2, abs=1e-5)
    values = [float(x) for x in ownership.split()]
    assert len(values) == 81 and all(-1 <= v <= 1 for v in values)
    assert values[4 * 9 + 4] < -0.5  # E5 is black's: negative from white's view


def test_interrupt_stops_a_long_genmove(slow_evaluator: None) -> None:
    """GoGui writes ``# interrupt`` while genmove runs; the move comes at once, the next command still runs."""
    session = PipeSession(size=19, visits=1_000_000)
    session.send("gogui-interrupt\nclear_board\n")
    session.wait_for(r"^= \n\n= \n\n", timeout=60)  # clear_board waits for the warm engine
    session.send("genmove b\n")
    time.sleep(0.5)
    started = time.monotonic()
    session.send("# interrupt\n")
    session.wait_for(r"^= (?:[A-HJ-T]\d+|pass)\n\n", timeout=10)
    assert time.monotonic() - started < 3
    session.send("name\nquit\n")
    assert responses(session.finish())[-2] == ("=", None, "engine")


def test_an_interrupt_before_a_command_does_not_stop_the_next_one() -> None:
    """An interrupt that arrives while nothing runs is forgotten."""
    session = PipeSession(size=9, visits=200)
    session.send("# interrupt\n1 genmove b\n2 quit\n")
    found = responses(session.finish())
    assert found[0][0] == "=" and VERTEX.match(found[0][2])


def test_protocol_commands_answer_while_the_engine_warms_up(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow_load(rules: object, model: object, options: object) -> object:
        time.sleep(2.0)
        return load_evaluator(rules, model, options)  # type: ignore[arg-type]

    monkeypatch.setattr(gtp.state, "load_evaluator", slow_load)
    session = PipeSession(size=9, visits=16)
    session.send("1 protocol_version\n2 name\n3 list_commands\n")
    assert session.wait_for(r"^=3 protocol_version\n") < 1.5
    session.send("4 play b E5\n5 quit\n")
    assert re.search(r"^=4 \n\n=5 \n\n$", session.finish(), re.MULTILINE)


def test_the_end_of_input_ends_an_analysis() -> None:
    session = PipeSession(size=9, visits=100)
    session.send("lz-analyze b 5\n")
    session.wait_for(r"^=\n")
    session.close_input()
    assert session.finish().endswith("\n\n")


def test_genmove_analyze_is_not_stopped_by_the_next_command(slow_evaluator: None) -> None:
    session = PipeSession(size=9, visits=120)
    session.send("1 lz-genmove_analyze b 5\n2 name\n")
    session.wait_for(r"^=2 engine\n\n", timeout=30)
    session.send("quit\n")
    found = responses(session.finish())
    stream = found[0][2].split("\n")
    assert stream[-1].startswith("play ") and len(stream) >= 2
    assert sum(int(m) for m in re.findall(r"visits (\d+)", stream[-2])) >= 60  # the search ran on
