"""The network compiled ahead of time, by a separate process at the lowest priority, into the user's cache.

A front end must answer at once and keep its pace, so it never compiles in its own process:
``torch.compile`` there held the interpreter and a core beside the search for 10-25 s, and the
moves after the first came seconds late. Instead :class:`PrecompiledNetwork` starts a child process
(:mod:`engine.nn.aot_package`) at the lowest priority (nice 19: beside the engine, in its session,
it runs on a core the engine leaves; one compile thread) that compiles the network for one board
size into a package in the user's cache. The evaluator plays on the eager
network until the package is there, then loads it (a shared library: milliseconds, with no import
of the compiler) and plays on it; a later process finds the package and plays compiled from its
first move. Only fp32 and bf16 networks on the CPU are compiled ahead of time (a bf16 package runs
in bf16 throughout: on a CPU with AMX about 2.4 times the eager network under bf16 autocast); the
evaluator runs anything else eagerly.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import torch

from engine.nn.aot_package import package_path
from engine.nn.config import NetOutput
from engine.nn.net import PolicyValueNet

__all__ = ["PrecompiledNetwork", "load_package"]

log = logging.getLogger(__name__)

_SOURCE_ROOT = Path(__file__).resolve().parents[2]

Forward = Callable[[torch.Tensor], NetOutput[torch.Tensor]]


def load_package(path: Path, net: PolicyValueNet) -> Forward:
    """The compiled forward pass in the package at ``path``, made from ``net``: planes ``float[B, C, N, N]`` to
    the heads' outputs, as ``net`` gives them.

    Loaded by AOTInductor's package loader itself, in milliseconds; where this torch lacks that class
    (it is internal), through the public ``aoti_load_package``, which imports the compiler first.
    """
    try:
        loader = torch._C._aoti.AOTIModelPackageLoader(str(path), "model", False, 1, -1)
        run: Callable[[torch.Tensor], Sequence[torch.Tensor]] = lambda planes: loader.run([planes])  # noqa: E731
    except (AttributeError, TypeError):
        from torch._inductor import aoti_load_package

        run = aoti_load_package(str(path))
    scored = net.score_head is not None
    present = (True, True, net.ownership_head is not None, scored, scored)   # NetOutput's fields

    def forward(planes: torch.Tensor) -> NetOutput[torch.Tensor]:
        outputs = iter(run(planes))
        return NetOutput(*(next(outputs) if there else None for there in present))

    return forward


class PrecompiledNetwork:
    """The compiled forms of one inference network, board size by board size: each loaded from its package
    when that is in the cache, else played eagerly until a child process, started by :meth:`compile_ahead`,
    has made it.

    ``model_path`` is the model file the child loads; ``net`` the inference network made from it (its
    weights name the package); ``dtype`` the packages' arithmetic, ``fp32`` or ``bf16``. Thread-safe.
    """

    def __init__(self, net: PolicyValueNet, model_path: Path, dtype: str = "fp32") -> None:
        self.net = net
        self.model_path = Path(model_path)
        self.dtype = dtype
        self._forms: dict[int, Forward] = {}
        self._looked: set[int] = set()        # sizes whose package was looked for (and was not there)
        self._children: dict[int, subprocess.Popen[bytes]] = {}
        self._packages: dict[int, Path] = {}
        self._lock = threading.Lock()

    @property
    def sizes(self) -> frozenset[int]:
        """The board sizes that play on the compiled network."""
        return frozenset(self._forms)

    def forward(self, size: int) -> Forward | None:
        """The compiled network for ``size`` x ``size`` boards if its package is in the cache (loaded the first
        time it is seen there), else None. Cheap: it looks for the package once, and again only when a
        child compiling it has ended."""
        form = self._forms.get(size)
        if form is not None:
            return form
        with self._lock:
            child = self._children.get(size)
            compiling = child is not None and child.poll() is None
            if compiling or (child is None and size in self._looked):
                return None
            self._children.pop(size, None)
            self._looked.add(size)
            return self._load(size, child)

    def compile_ahead(self, size: int) -> None:
        """Start a child process that compiles the network for ``size`` x ``size`` boards into the cache, unless
        the package is there, is being made by this process, or failed before."""
        with self._lock:
            if size in self._forms or size in self._children:
                return
            path = self._package(size)
            if path.is_file():   # made by another process since this one looked: look again
                self._looked.discard(size)
                return
            if path.with_suffix(".failed").is_file():
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            environment = {**os.environ, "TORCHINDUCTOR_COMPILE_THREADS": "1", "OMP_NUM_THREADS": "1",
                           "PYTHONPATH": os.pathsep.join(filter(None, [str(_SOURCE_ROOT),
                                                                       os.environ.get("PYTHONPATH")]))}
            with open(path.with_suffix(".log"), "ab") as log_file:   # appended: another process may be writing
                self._children[size] = subprocess.Popen(
                    [sys.executable, "-m", "engine.nn.aot_package", str(self.model_path), str(size), str(path),
                     self.dtype],
                    stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT, env=environment)
            log.info("compiling the network for %dx%d in a separate process at the lowest priority; moves run on "
                     "the eager network until it is ready (%s)", size, size, path)

    def _package(self, size: int) -> Path:
        if size not in self._packages:   # a digest of every weight: worth keeping
            self._packages[size] = package_path(self.net, size, dtype=self.dtype)
        return self._packages[size]

    def _load(self, size: int, child: subprocess.Popen[bytes] | None) -> Forward | None:
        path = self._package(size)
        if not path.is_file():
            if child is not None and child.returncode != 0:
                log.warning("compiling the network for %dx%d failed (see %s): it plays on the eager network",
                            size, size, path.with_suffix(".log"))
            return None
        try:
            form = load_package(path, self.net)
        except Exception as error:  # noqa: BLE001 -- a package that does not load leaves the eager network
            log.warning("the compiled network %s does not load (%s): it plays on the eager network", path,
                        str(error).splitlines()[0] if str(error) else type(error).__name__)
            return None
        self._forms[size] = form
        log.info("moves on %dx%d run on the compiled network (%s)", size, size, path.name)
        return form
