"""Stand-ins for the ahead-of-time compile: a child process that finishes when told, and packages that run the
eager network; the ``fake_compiles`` fixture puts them in place (conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from engine.nn import precompiled
from engine.nn.config import NetOutput
from engine.nn.net import PolicyValueNet


class FakeChild:
    """Stands in for the compile process: running until ``finish`` writes its package (or fails)."""

    started: list[list[str]] = []

    def __init__(self, command: list[str], **_options: object) -> None:
        self.command = command
        self.returncode: int | None = None
        FakeChild.started.append(command)
        FakeChild.last = self

    def poll(self) -> int | None:
        return self.returncode

    def finish(self, succeeded: bool = True) -> None:
        package = Path(self.command[5])   # python -m engine.nn.aot_package MODEL SIZE PACKAGE DTYPE
        if succeeded:
            package.write_bytes(b"a package")
        else:
            package.with_suffix(".failed").touch()
        self.returncode = 0 if succeeded else 1


class Recorded:
    """Stands in for a loaded package: the eager network, noting the board size of every call."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def __call__(self, path: Path, net: PolicyValueNet) -> object:
        def forward(planes: torch.Tensor) -> NetOutput[torch.Tensor]:
            self.sizes.append(planes.shape[-1])
            return net(planes)
        return forward


@pytest.fixture
def fake_compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Recorded:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(precompiled.subprocess, "Popen", FakeChild)
    FakeChild.started = []
    recorded = Recorded()
    monkeypatch.setattr(precompiled, "load_package", recorded)
    return recorded
