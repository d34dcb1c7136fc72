"""No command waits for the network's compile: the front end never compiles in its own process, and has the network
compiled for each board size by a separate process once a search on that size has answered."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import torch

from engine import EvaluatorOptions, PlayerConfig, Rules, SearchConfig, bundled_model
from engine.nn import precompiled
from gtp.commands import serve
from gtp.state import FrontEndConfig
from tests.gtp.helpers import responses


class NeverDone:
    """Stands in for the compile process: it never ends, so a command that waited for it would hang."""

    sizes: list[int] = []

    def __init__(self, command: list[str], **_options: object) -> None:
        NeverDone.sizes.append(int(command[4]))   # python -m engine.nn.aot_package MODEL SIZE PACKAGE DTYPE

    def poll(self) -> None:
        return None


@pytest.mark.timeout(600)
def test_boardsize_then_genmove_runs_on_the_eager_network_while_another_process_compiles(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def compile_here(*_args: object, **_options: object) -> None:
        raise AssertionError("the front end compiled the network in its own process")

    monkeypatch.setattr(torch, "compile", compile_here)
    monkeypatch.setattr(precompiled.subprocess, "Popen", NeverDone)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    NeverDone.sizes = []
    config = FrontEndConfig(model=str(bundled_model(Rules.go(9))), seed=1,
                            player=PlayerConfig(visits=16, search=SearchConfig(batch_size=8)),
                            evaluator=EvaluatorOptions(runtime="compile", seed=1))
    out = io.BytesIO()
    script = b"boardsize 9\ngenmove b\nboardsize 7\ngenmove w\ngenmove b\nquit\n"
    serve(config, io.BytesIO(script), out, background=False)
    answers = [(status, text) for status, _id, text in responses(out.getvalue().decode())]
    assert [status for status, _text in answers] == ["="] * 6, answers
    assert all(text not in ("", "pass", "resign") for _status, text in answers[1:2] + answers[3:5])
    assert NeverDone.sizes == [9, 7], "one compile per board size played, none for the size it started on"
