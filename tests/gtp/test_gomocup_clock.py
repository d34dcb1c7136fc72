"""The Gomocup brain keeps its limits: every answer comes within the turn limit and the match time left,
the threat guard's reading and the first move of a process included, and the search tree within ``max_memory``.

Each test fails on any late answer. The margins are the brain's own (its lag buffer): a machine so loaded that
they do not hold is a machine on which the brain would lose games on time.
"""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import BLACK, WHITE
from gtp.gomocup import GomocupBrain
from tests.gtp.helpers import board_command, gomocup_config

TURN_LIMIT_MS = 1000

THREATS = [
    # (Gomocup rule, the brain's colour, position): positions of games against gomokubench:hard where the threat
    # guard, unbounded by the clock, read for 4-5 s on a loaded machine
    (4, WHITE, """
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . X . . . . . . . . . .
        . . . O . . . . . . . . . . .
        . O O O X . . . . . . . . . .
        . O X . . . . . . . . . . . .
        . . . X . X . . . . . . . . .
        . . . . X . . . . . . . . . .
        . . . . . X . . . . . . . . .
        . . . . . . O . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
    """),
    (4, WHITE, """
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . O
        . . . . . . . . . O . O X O .
        . . . . . . . . . O X . X . .
        . . . . . . . . . X . X . . .
        . . . . . . . . . . X . . . .
        . . . . . . . . . X . . . . .
        . . . . . . . . O . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
    """),
    (0, BLACK, """
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . O . . . O
        . . . . . . . . . . . X . X .
        . . . . . . . . . . O O X . .
        . . . . . . . . . O . X . X .
        . . . . . . . . O . X X . . .
        . . . . . . . . . O . X . . .
        . . . . . . . . . . . X . . .
        . . . . . . . O . . . O . . .
    """),
    (0, BLACK, """
        . . . . . . . . . . . . . . .
        . . . . O . . . . . . . . . .
        . . . . . X . X . . . . . . .
        . . . . . . X . . . . . . . .
        . . . . . . . X . . . . . . .
        . . . . . . . . X . . . . . .
        . . . . . . . . . O . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . O . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . O . . . . . . . . .
        . . . . . O . . . . . . . . .
        . . . . . O . . . . . . . . .
        . . . . . X . . . . . . . . .
        . . . . . . . . . . . . . . .
    """),
]


def _timed(brain: GomocupBrain, line: str) -> tuple[str, float]:
    started = time.monotonic()
    answer = brain.handle(line)
    return answer, time.monotonic() - started


def _board(brain: GomocupBrain, diagram: str, me: int) -> tuple[str, float]:
    """Send a position; the brain's answer to ``DONE`` and the seconds it took."""
    *lines, done = board_command(diagram, me).splitlines()
    for line in lines:
        assert brain.handle(line) == ""
    return _timed(brain, done)


def test_no_answer_is_late_on_positions_rich_in_threats() -> None:
    """A search with no visit limit, a 1 s turn limit: the threat guard and the search share the turn."""
    brain = GomocupBrain(gomocup_config(visits=1_000_000), io.BytesIO(), io.BytesIO())
    assert brain.handle("START 15") == "OK"
    brain.handle(f"INFO timeout_turn {TURN_LIMIT_MS}")
    times = []
    for rule, me, diagram in THREATS:
        brain.handle(f"INFO rule {rule}")
        answer, seconds = _board(brain, diagram, me)
        assert answer.count(",") == 1 and answer != "-1,-1", answer
        times.append(seconds)
    assert max(times) < TURN_LIMIT_MS / 1000, f"late answers: {[round(t, 2) for t in times]}"


def test_the_match_time_left_limits_a_move() -> None:
    """1.5 s left of the match and a 5 s turn limit: the move comes within the match time."""
    brain = GomocupBrain(gomocup_config(visits=1_000_000), io.BytesIO(), io.BytesIO())
    assert brain.handle("START 15") == "OK"
    for line in ("INFO timeout_turn 5000", "INFO timeout_match 60000", "INFO time_left 1500"):
        brain.handle(line)
    _, seconds = _board(brain, THREATS[2][2], BLACK)
    assert seconds < 1.5


FIRST_MOVE = """
import io, sys, time
from engine.search.config import PlayerConfig
from gtp.gomocup import GomocupBrain
from tests.gtp.helpers import board_command, gomocup_config
from tests.gtp.test_gomocup_clock import THREATS, compiled_kernels

brain = GomocupBrain(gomocup_config(visits=1_000_000), io.BytesIO(), io.BytesIO())
assert brain.handle("START 15") == "OK"
brain.handle("INFO timeout_turn 1000")
before = compiled_kernels()
rule, me, diagram = THREATS[0]
brain.handle(f"INFO rule {rule}")
*lines, done = board_command(diagram, me).splitlines()
for line in lines:
    brain.handle(line)
started = time.monotonic()
answer = brain.handle(done)
print(answer, time.monotonic() - started, compiled_kernels() - before)
"""


def compiled_kernels() -> int:
    """Compiled signatures of every numba kernel of the engine's modules loaded so far."""
    from numba.core.dispatcher import Dispatcher

    return sum(len(value.signatures) for name, module in list(sys.modules.items()) if name.startswith("engine.")
               for value in vars(module).values() if isinstance(value, Dispatcher))


def test_the_first_move_of_a_process_compiles_nothing_and_is_on_time() -> None:
    """The brain's warm-up, before START answers, runs every kernel a move needs (the threat guard's too), so
    a fresh process's first move, in a position rich in threats, spends its time searching."""
    result = subprocess.run([sys.executable, "-c", FIRST_MOVE], capture_output=True, timeout=300,
                            cwd=Path(__file__).parents[2])
    assert result.returncode == 0, result.stderr.decode()
    answer, seconds, compiled = result.stdout.decode().split()
    assert answer.count(",") == 1 and answer != "-1,-1"
    assert int(compiled) == 0, f"{compiled} kernels compiled during the first move"
    assert float(seconds) < TURN_LIMIT_MS / 1000


def _peak_memory(pid: int) -> int:
    """A process's peak resident memory (``VmHWM``) in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads peak memory from /proc")
def test_max_memory_bounds_the_search_tree() -> None:
    """Uniform priors fill a tree fast (hundreds of MB in a few seconds): under ``INFO max_memory`` the brain's
    peak memory stays below the limit, and the move still comes in time."""
    limit = 260 * 2 ** 20
    brain = subprocess.Popen([sys.executable, "-c", "from engine.cli import main; main()", "gomocup", "--model",
                              "uniform", "--visits", "100000000"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, bufsize=1, cwd=Path(__file__).parents[2])
    assert brain.stdin is not None and brain.stdout is not None
    try:
        brain.stdin.write(f"START 15\nINFO max_memory {limit}\nINFO timeout_turn 3000\n")
        brain.stdin.flush()
        assert brain.stdout.readline().strip() == "OK"
        started = time.monotonic()
        brain.stdin.write("BEGIN\n")
        brain.stdin.flush()
        answer = brain.stdout.readline().strip()
        seconds = time.monotonic() - started
        peak = _peak_memory(brain.pid)
    finally:
        brain.kill()
        brain.wait()
    assert answer.count(",") == 1 and seconds < 3.0
    assert peak < limit, f"peak {peak >> 20} MB over the {limit >> 20} MB limit"


def test_a_gomoku_game_gets_the_match_time_of_its_expected_length() -> None:
    """120 s a game and 5 s a move on an empty 15x15 board: Gomoku's games are short, so the first move may
    take its whole turn (less the lag buffer), where Go's share of the empty points would give it 0.8 s."""
    brain = GomocupBrain(gomocup_config(visits=1_000_000), io.BytesIO(), io.BytesIO())
    assert brain.handle("START 15") == "OK"
    for line in ("INFO timeout_turn 5000", "INFO timeout_match 120000", "INFO time_left 120000"):
        brain.handle(line)
    lag = brain.state.time.lag
    assert brain.state.budget(BLACK, brain.turn_limit) == pytest.approx(5.0 - lag)
    brain.handle("INFO time_left 30000")
    assert brain.state.budget(BLACK, brain.turn_limit) == pytest.approx(30.0 / 23 - lag)
