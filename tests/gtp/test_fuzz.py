"""No input breaks the session: random bytes and malformed commands get GTP answers and nothing else.

Each example runs a session on the same warm engine; a fixed prefix resets
the board and a final numbered ``protocol_version`` must still be answered,
so the engine is alive and in step after whatever came before.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gtp.commands import build_registry
from gtp.errors import describe_error
from gtp.protocol import MAX_LINE_BYTES
from gtp.session import Session
from gtp.state import EngineState
from tests.gtp.helpers import fuzz_state, responses

RESET = b"boardsize 9\nkomi 7.5\nclear_board\nkgs-time_settings none\n"
SENTINEL = b"\n999 protocol_version\n"
# Commands that write or read files are left out: random paths must not touch the disk.
NAMES = [name for name in build_registry().names() if name not in ("loadsgf", "printsgf", "quit")]
WORDS = st.one_of(
    st.sampled_from(["b", "w", "black", "WHITE", "pass", "D4", "A1", "T19", "Z99", "I5", "j9", "0", "-1", "7.5",
                     "1e400", "nan", "10", "ownership", "true", "interval", "minmoves", "avoid", "alive", "dead",
                     "seki", "99999999999999999999", "#", "\t", "\u00e9", "\x00"]),
    st.text(max_size=6),
)


@pytest.fixture(scope="module")
def state() -> EngineState:
    return fuzz_state()


def _run(state: EngineState, data: bytes) -> list[tuple[str, str | None, str]]:
    out = io.BytesIO()
    Session(build_registry(), state, io.BytesIO(RESET + data + SENTINEL), out, describe_error).run()
    found = responses(out.getvalue().decode("utf-8"))
    assert found[-1] == ("=", "999", "2"), found[-3:]
    return found


@given(st.lists(st.binary(max_size=80).map(lambda b: b.replace(b"\n", b" ")), max_size=8))
def test_random_byte_lines(state: EngineState, lines: list[bytes]) -> None:
    found = _run(state, b"\n".join(lines))
    assert len(found) <= 4 + len(lines) + 1


@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 10**6)), st.sampled_from(NAMES),
                          st.lists(WORDS, max_size=5)), min_size=1, max_size=6))
def test_malformed_commands(state: EngineState, commands: list[tuple[int | None, str, list[str]]]) -> None:
    lines = []
    for ident, name, args in commands:
        words = ([str(ident)] if ident is not None else []) + [name] + args
        lines.append(" ".join(words).replace("\n", " ").encode("utf-8", "surrogatepass"))
    _run(state, b"\n".join(lines))


def test_an_over_long_line_is_refused_and_the_session_goes_on(state: EngineState) -> None:
    data = b"7 komi " + b"9" * (MAX_LINE_BYTES + 10) + b"\n8 name\n" + b"x" * (3 * MAX_LINE_BYTES)
    found = _run(state, data)
    assert found[4] == ("?", "7", "line too long")
    assert found[5] == ("=", "8", "engine")
    assert found[6] == ("?", None, "line too long")


def test_a_line_just_under_the_limit_is_read(state: EngineState) -> None:
    line = b"known_command " + b"a" * (MAX_LINE_BYTES - 15) + b"\n"
    assert len(line) == MAX_LINE_BYTES
    assert _run(state, line)[4] == ("=", None, "false")
