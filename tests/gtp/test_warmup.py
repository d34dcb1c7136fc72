"""No command waits for the network's compile: moves run on whatever form of the network is ready."""

from __future__ import annotations

import io
import threading

import pytest
import torch

from engine import EvaluatorOptions, PlayerConfig, Rules, SearchConfig, bundled_model
from gtp.commands import serve
from gtp.state import FrontEndConfig
from tests.gtp.helpers import responses


class BlockedCompile:
    """Stands in for ``torch.compile``: the compiled form runs only once released, so a command that waited
    for it would hang; it notes which threads called it."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.called = threading.Event()
        self.threads: list[str] = []

    def __call__(self, net: torch.nn.Module, **options: object) -> object:
        def compiled(x: torch.Tensor) -> object:
            self.threads.append(threading.current_thread().name)
            self.called.set()
            if not self.release.wait(timeout=120):
                raise RuntimeError("never released")
            return net(x)
        return compiled


@pytest.mark.timeout(600)
def test_boardsize_then_genmove_runs_on_the_eager_network_while_the_compile_waits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    compile_ = BlockedCompile()
    monkeypatch.setattr(torch, "compile", compile_)
    config = FrontEndConfig(model=str(bundled_model(Rules.go(9))), seed=1,
                            player=PlayerConfig(visits=16, search=SearchConfig(batch_size=8)),
                            evaluator=EvaluatorOptions(runtime="compile", seed=1))
    out = io.BytesIO()
    script = b"boardsize 9\ngenmove b\nboardsize 7\ngenmove w\ngenmove b\nquit\n"
    try:
        serve(config, io.BytesIO(script), out, background=False)
        assert compile_.called.wait(timeout=120), "the network was never compiled"
    finally:
        compile_.release.set()
    answers = [(status, text) for status, _id, text in responses(out.getvalue().decode())]
    assert [status for status, _text in answers] == ["="] * 6, answers
    assert all(text not in ("", "pass", "resign") for _status, text in answers[1:2] + answers[3:5])
    assert compile_.threads and set(compile_.threads) == {"engine-background-warm-up"}
