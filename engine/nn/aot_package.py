"""Packages of networks compiled ahead of time: their names, how one is made, and the process that makes it.

A package is a network compiled by AOTInductor for one board size, any batch size and one arithmetic
(fp32, or bf16 where the CPU has it natively: weights and activations in bf16, planes in and outputs out
in float32), kept in :func:`package_dir` under a name that is a digest of all it depends on (the weights,
the board size, the arithmetic, torch's version, the CPU's instruction set); :mod:`engine.nn.precompiled`
loads it. ``python -m engine.nn.aot_package MODEL SIZE PACKAGE [DTYPE]`` is the process that makes one: it lowers its
own priority to the lowest (nice 19), takes the package's lock (a file beside it, holding its process id, for
:func:`compiles_in_progress`) before it imports torch, and compiles the model's network for
``SIZE`` x ``SIZE`` boards into ``PACKAGE``, unless another process did while it waited for the
lock. A failure leaves ``PACKAGE.failed`` (no process tries that package again; delete the file to
retry); the traceback goes to stderr, which the parent sends to ``PACKAGE.log``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.atomic import atomic_path
from engine.nn.user_cache import user_cache_dir

if TYPE_CHECKING:
    from engine.nn.net import PolicyValueNet

__all__ = ["PACKAGE_FORMAT", "MAX_BATCH", "DTYPES", "package_dir", "package_path", "compile_package",
           "compiles_in_progress", "main"]

log = logging.getLogger(__name__)

PACKAGE_FORMAT = 1
"""Part of every package's digest: a change to how packages are made retires the old ones."""
MAX_BATCH = 4096
"""Largest batch a package accepts (the batch dimension is dynamic up to this)."""
DTYPES = ("fp32", "bf16")
"""The arithmetic a package can be compiled in."""


def package_dir(cache_home: str | os.PathLike[str] | None = None) -> Path:
    """Where packages are kept: ``CACHE_HOME/engine/compiled``, where ``cache_home`` defaults to
    ``$XDG_CACHE_HOME`` (``~/.cache`` by default)."""
    return user_cache_dir("compiled", cache_home)


def package_path(net: PolicyValueNet, size: int, directory: Path | None = None, dtype: str = "fp32") -> Path:
    """The package of the inference network ``net`` (batch norms folded) compiled for ``size`` x ``size`` boards
    in ``dtype`` (``fp32`` or ``bf16``), in ``directory`` (default :func:`package_dir`)."""
    import torch

    if dtype not in DTYPES:
        raise ValueError(f"a package is compiled in {' or '.join(DTYPES)}, not {dtype}")
    digest = hashlib.sha256(f"{PACKAGE_FORMAT} {torch.__version__} {torch.backends.cpu.get_cpu_capability()} "
                            f"{size} {dtype}".encode())
    for name, tensor in net.state_dict().items():
        digest.update(f"{name} {tuple(tensor.shape)} {tensor.dtype}".encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return (directory or package_dir()) / f"{net.config.name}-{size}x{size}-{dtype}-{digest.hexdigest()[:16]}.pt2"


def compile_package(net: PolicyValueNet, size: int, path: Path, dtype: str = "fp32") -> Path:
    """Export the inference network ``net`` for ``size`` x ``size`` boards and any batch up to :data:`MAX_BATCH`
    in ``dtype``, compile it with AOTInductor and write the package to ``path`` atomically; seconds to minutes.
    ``net`` is changed (to bf16, where asked)."""
    import torch
    from torch._inductor import aoti_compile_and_package
    from torch.export import Dim, export

    class PresentHeads(torch.nn.Module):
        """The network with its outputs as a flat tuple of the heads it has: an exported program returns tensors."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net.to(arithmetic)

        def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, ...]:
            outputs = self.net(planes.to(arithmetic))
            return tuple(output.float() for output in outputs if output is not None)

    arithmetic = torch.bfloat16 if dtype == "bf16" else torch.float32
    planes = torch.zeros((2, net.config.in_planes, size, size))
    batch = Dim("batch", min=1, max=MAX_BATCH)
    with torch.inference_mode():
        program = export(PresentHeads(), (planes,), dynamic_shapes=({0: batch},))
    with atomic_path(path) as temp, open(temp, "w+b") as package:
        aoti_compile_and_package(program, package_path=package)
    return path


def compiles_in_progress(directory: Path | None = None) -> list[int]:
    """The ids of the processes compiling a package into ``directory`` (default :func:`package_dir`) now."""
    import fcntl

    busy = []
    for lock_path in sorted((directory or package_dir()).glob("*.lock")):
        with open(lock_path, "a+") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                lock.seek(0)
                text = lock.read().strip()
                if text.isdigit():
                    busy.append(int(text))
            else:
                fcntl.flock(lock, fcntl.LOCK_UN)
    return busy


def main(arguments: Sequence[str] | None = None) -> int:
    """Compile ``MODEL`` for ``SIZE`` x ``SIZE`` boards in ``DTYPE`` (default fp32) into ``PACKAGE`` (the name
    :func:`package_path` gives it); the exit status."""
    import fcntl

    model, size_text, package_text, *rest = arguments if arguments is not None else sys.argv[1:]
    size, package, dtype = int(size_text), Path(package_text), (rest or ["fp32"])[0]
    os.nice(19)   # beside the engine that started it (its session), it takes a core only when the engine leaves one
    with open(package.with_suffix(".lock"), "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # another process compiling this package: wait for it
        lock.seek(0)
        lock.truncate()
        lock.write(str(os.getpid()))
        lock.flush()
        if package.is_file():
            return 0
        try:
            import torch

            from engine.nn.model_file import load_model

            torch.set_num_threads(1)
            net = load_model(model).net.for_inference()
            if package_path(net, size, package.parent, dtype) != package:
                raise ValueError(f"{model} in {dtype} is not the network {package.name} names")
            compile_package(net, size, package, dtype)
        except Exception:
            log.exception("compiling %s for %dx%d failed", model, size, size)
            package.with_suffix(".failed").touch()
            return 1
    return 0


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s")
    sys.exit(main())
