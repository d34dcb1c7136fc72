"""Running GTP sessions in-process for the tests (and Gomocup brains), and reading what they answer."""

from __future__ import annotations

import contextlib
import io
import logging
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import gtp.commands
from engine import EvaluatorOptions, PlayerConfig, SearchConfig
from engine.cli import main
from engine.formats.diagram import parse_diagram
from gtp.commands import serve
from gtp.state import EngineState, FrontEndConfig

RESPONSE = re.compile(r"([=?])(\d*)(?: (.*))?$")


class ClosedOutput(io.RawIOBase):
    """An output whose reader has gone: every write raises, as a broken pipe does; ``attempts`` counts them."""

    def __init__(self) -> None:
        self.attempts = 0

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        self.attempts += 1
        raise BrokenPipeError("the reader has gone")


def front_end_config(visits: int | None = 800, batch: int = 16, seed: int | None = None,
                     network_free: str = "uniform", **fields: Any) -> FrontEndConfig:
    """A FrontEndConfig as ``engine gtp --model uniform --visits --batch --seed`` builds it (search details
    that no test should depend on stay out of the way), other fields as given; ``network_free="rollouts"``
    is the engine's own fallback."""
    fields.setdefault("evaluator", EvaluatorOptions(seed=seed))
    return FrontEndConfig(player=PlayerConfig(visits=visits, search=SearchConfig(batch_size=batch)),
                          seed=seed, network_free=network_free, **fields)


def served_config(monkeypatch: pytest.MonkeyPatch, *args: str) -> FrontEndConfig:
    """The config ``engine gtp --model uniform ARGS`` hands its session, read without running the session."""
    served: list[FrontEndConfig] = []
    monkeypatch.setattr(gtp.commands, "serve", lambda config, *_streams: served.append(config))
    monkeypatch.setattr("engine.cli.play.exit_at_once", lambda: None)
    result = CliRunner().invoke(main, ["gtp", "--model", "uniform", *args], input="")
    assert result.exit_code == 0, result.output
    assert len(served) == 1, "engine gtp starts one session"
    return served[0]


def gomocup_config(visits: int, seed: int = 1) -> FrontEndConfig:
    """The config of ``engine gomocup --visits V --batch 8 --seed S``: the bundled networks on numpy, the threat
    guard on."""
    return FrontEndConfig(game="gomoku", bundled=True, seed=seed,
                          evaluator=EvaluatorOptions(runtime="numpy", seed=seed),
                          player=PlayerConfig(visits=visits, search=SearchConfig(batch_size=8), threat_guard=True))


def board_command(diagram: str, me: int) -> str:
    """``BOARD`` ... ``DONE`` for a diagram (``X`` black, ``O`` white, top row first: row ``y``), ``me`` the
    brain's colour."""
    stones = parse_diagram(diagram)
    lines = [f"{x},{y},{1 if color == me else 2}\n" for (y, x), color in np.ndenumerate(stones) if color]
    return "BOARD\n" + "".join(lines) + "DONE\n"


def fuzz_state() -> EngineState:
    """The warm engine the fuzzing tests run their sessions on: 9x9, 8 visits, seeded."""
    state = EngineState(front_end_config(size=9, visits=8, batch=4, seed=3, ownership_playouts=20))
    state.start(background=False)
    return state


def run_session(data: bytes | str, **options: Any) -> str:
    """Everything a session writes for ``data`` (the whole input), engine warmed up before it starts.

    ``options`` are :func:`front_end_config`'s, with 32 visits, batches of 8 and seed 1 unless given."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    options.setdefault("seed", 1)
    options.setdefault("visits", 32)
    options.setdefault("batch", 8)
    out = io.BytesIO()
    serve(front_end_config(**options), io.BytesIO(data), out, background=False)
    return out.getvalue().decode("utf-8")


def responses(output: str) -> list[tuple[str, str | None, str]]:
    """``(status, id, text)`` for every response; fails on anything that is not a GTP response."""
    assert output.endswith("\n\n") or output == "", f"output does not end a response: {output[-40:]!r}"
    found = []
    for block in output.split("\n\n")[:-1]:
        first, *rest = block.split("\n")
        match = RESPONSE.match(first)
        assert match is not None, f"not a GTP response: {block!r}"
        text = "\n".join([match.group(3) or ""] + rest).strip("\n")
        found.append((match.group(1), match.group(2) or None, text))
    return found


def answers(data: str, **options: Any) -> list[str]:
    """The texts of the responses, ``?`` failures written as ``"? message"``."""
    return [text if status == "=" else f"? {text}" for status, _id, text in responses(run_session(data, **options))]


@contextlib.contextmanager
def raw_output() -> Iterator[list[str]]:
    """The lines ``heatmap`` writes while the block runs, whatever logging an earlier ``engine gtp`` set up."""
    from gtp.rawnn import RAW_LOG

    lines: list[str] = []
    handler = logging.Handler(logging.INFO)
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    level = RAW_LOG.level
    RAW_LOG.addHandler(handler)
    RAW_LOG.setLevel(logging.INFO)
    try:
        yield lines
    finally:
        RAW_LOG.removeHandler(handler)
        RAW_LOG.setLevel(level)
