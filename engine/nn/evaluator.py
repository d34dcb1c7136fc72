"""The torch network behind the evaluator protocol: encode, infer on the device, mask, cache.

:class:`NetEvaluator` runs a :class:`~engine.nn.net.PolicyValueNet` through an
injected encoder; what it shares with the numpy forward pass (the cache, the
symmetries, legal masking) is :class:`~engine.nn.cached_evaluator.CachedNetEvaluator`.
``pick_device``, ``pick_dtype`` and ``pick_runtime`` choose how it runs.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.core.checks import check_choice
from engine.nn.cached_evaluator import DEFAULT_CACHE_SIZE, CachedNetEvaluator, Encoder
from engine.nn.config import TORCH_RUNTIMES, NetOutput

if TYPE_CHECKING:
    import torch

    from engine.nn.int8 import Int8Network
    from engine.nn.model_file import Model
    from engine.nn.net import PolicyValueNet
    from engine.nn.precompiled import PrecompiledNetwork

__all__ = ["Encoder", "NetEvaluator", "DEFAULT_CACHE_SIZE", "pick_device", "pick_dtype",
           "pick_runtime", "bf16_is_native", "set_cpu_threads"]

log = logging.getLogger(__name__)


def set_cpu_threads(threads: int | None = None) -> int:
    """Set torch's CPU threads for the whole process (None: every core this process may use); return the count.

    Process-wide, so only the CLI layer (or a worker process's entry point) calls
    it. On a machine whose cores are busy with other processes, 1 thread can be
    several times faster: OpenMP waits for descheduled workers.
    """
    import torch

    count = threads or len(os.sched_getaffinity(0))
    torch.set_num_threads(count)
    return count


def bf16_is_native() -> bool:
    """Whether this CPU has bf16 arithmetic (AMX tiles or AVX-512 BF16); without it bf16 is emulated and slow."""
    import torch

    cpu = torch.cpu
    return any(bool(getattr(cpu, probe, lambda: False)()) for probe in
               ("_is_amx_tile_supported", "_is_avx512_bf16_supported"))


def pick_device(device: str | None = None) -> "torch.device":
    """The device asked for, or the best available one: cuda, then mps, else cpu."""
    import torch

    if device is not None:
        return torch.device(device)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def pick_dtype(dtype: str, device: "torch.device") -> "torch.dtype":
    """``fp32``, ``bf16``, or ``auto``: bf16 on a GPU that has it and on a CPU with native bf16, else fp32.

    On a CPU without AMX or AVX-512 BF16, bf16 is emulated and several times slower
    than fp32 (``engine bench net --dtype``), hence the probe.
    """
    import torch

    if dtype == "fp32":
        return torch.float32
    if dtype == "bf16":
        return torch.bfloat16
    if dtype != "auto":
        raise ValueError(f"unknown dtype {dtype!r}: expected auto, fp32 or bf16")
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float32
    if device.type == "cpu" and bf16_is_native():
        return torch.bfloat16
    return torch.float32


def pick_runtime(runtime: str, device: "torch.device") -> str:
    """``eager`` or ``compile``; ``auto`` is ``compile`` on a CPU and ``eager`` elsewhere.

    On a CPU ``torch.compile`` (Inductor, batch norms already folded by
    ``for_inference``, dynamic shapes) runs the network faster than eager
    PyTorch (``engine bench net --runtime``; figures in docs/benchmarks.md); on
    a GPU cuDNN already fuses. Compiling costs 10-25 s on the first evaluation,
    once for every batch and board size (Inductor caches on disk);
    :meth:`NetEvaluator.warm_up` pays it up front.
    """
    check_choice("runtime", runtime, TORCH_RUNTIMES)
    if runtime == "auto":
        return "compile" if device.type == "cpu" else "eager"
    return runtime


class NetEvaluator(CachedNetEvaluator):
    """A torch network behind the :class:`Evaluator` interface: encode, infer, mask, cache.

    ``model`` is a :class:`~engine.nn.model_file.Model` (its encoder name must
    match ``encoder``'s) or a bare :class:`~engine.nn.net.PolicyValueNet`. The
    evaluator runs a frozen copy (batch norms folded, eval mode) taken at
    construction: build a new evaluator to see newer weights.

    ``device``: None picks cuda, then mps, else cpu. ``dtype``: ``auto``,
    ``fp32`` or ``bf16`` (autocast; see :func:`pick_dtype`), or ``int8`` on
    the CPU: the residual blocks quantized (:mod:`engine.nn.int8`), eager,
    their ranges calibrated on ``calibration`` planes, by default encoded
    random positions of the encoder's rules. Torch's CPU
    threads are the process's, set by the caller (:func:`set_cpu_threads`).
    ``runtime``: ``eager``, ``compile`` or ``auto`` (see :func:`pick_runtime`);
    if compiling fails (no C++ compiler, say) the evaluator warns once and
    runs eagerly. Tests should ask for ``eager``: compiling takes seconds.
    The network compiles in this process on its first evaluation of a board
    size, unless ``ahead_of_time``: then nothing compiles here, and a board
    size runs eagerly until its package, compiled by a separate process at
    the lowest priority into the user's cache (:meth:`compile_ahead`,
    :mod:`engine.nn.precompiled`), is there; both forms give the same outputs
    to float tolerance. Front ends ask for it: they answer at once and keep
    their pace. Only an fp32 or bf16 network from a model file on the CPU
    is compiled ahead of time; otherwise such an evaluator runs eagerly.
    ``random_symmetry``, ``seed``, the cache (``cache_size``) and ``decisive`` are
    :class:`~engine.nn.cached_evaluator.CachedNetEvaluator`'s.
    """

    def __init__(self, model: "Model | PolicyValueNet", encoder: Encoder, *, device: str | None = None,
                 dtype: str = "auto", random_symmetry: bool = False, cache_size: int = DEFAULT_CACHE_SIZE,
                 seed: int | None = None, runtime: str = "auto", ahead_of_time: bool = False,
                 calibration: np.ndarray | None = None, decisive: bool = True) -> None:
        import torch

        from engine.nn.net import PolicyValueNet

        net = model if isinstance(model, PolicyValueNet) else model.net
        info = None if isinstance(model, PolicyValueNet) else model.info
        super().__init__(net.config, info, encoder, random_symmetry=random_symmetry, cache_size=cache_size,
                         seed=seed, decisive=decisive)
        self.device = pick_device(device)
        if dtype == "int8" and (self.device.type != "cpu" or runtime == "compile"):
            raise ValueError(f"--dtype int8 runs eagerly on the cpu, not {runtime} on {self.device}")
        self.dtype = pick_dtype("fp32" if dtype == "int8" else dtype, self.device)
        self.dtype_name = "int8" if dtype == "int8" else "bf16" if self.dtype == torch.bfloat16 else "fp32"
        self.channels_last = self.device.type == "cuda"   # NHWC helps cuDNN, not the CPU's oneDNN
        self.net = net.for_inference().to(self.device)
        if self.channels_last:
            self.net = self.net.to(memory_format=torch.channels_last)
        self.runtime = "eager" if dtype == "int8" else pick_runtime(runtime, self.device)
        self._int8 = None if dtype != "int8" else self._quantized(calibration)
        self._precompiled = self._ahead_of_time(model) if ahead_of_time and self.runtime == "compile" else None
        if ahead_of_time and self._precompiled is None:
            self.runtime = "eager"
        self._compiled: Callable[[torch.Tensor], NetOutput[torch.Tensor]] | None = None   # built on first use
        self._compiled_sizes: set[int] = set()   # board sizes the compiled form has run on
        self._compile_lock = threading.Lock()

    # ----------------------------------------------------------- public API
    @property
    def compiled_sizes(self) -> frozenset[int]:
        """The board sizes whose evaluations run on the compiled network (none while the runtime is eager)."""
        if self._precompiled is not None:
            return self._precompiled.sizes
        return frozenset(self._compiled_sizes) if self.runtime == "compile" else frozenset()

    def compile_ahead(self, size: int) -> None:
        """Have the network compiled for ``size`` x ``size`` boards by a separate process, if this evaluator
        compiles ahead of time and the package is not in the cache yet; returns at once."""
        if self._precompiled is not None:
            self._precompiled.compile_ahead(size)

    def ready_for(self, size: int) -> bool:
        """Whether evaluations of ``size`` x ``size`` boards run in the form this evaluator is for: compiled,
        when it compiles ahead of time (the package loaded the first time it is found), else at once."""
        return self._precompiled is None or self._precompiled.forward(size) is not None

    def warm_up(self, size: int | None = None) -> None:
        """Run one dummy batch of ``size`` (default: the network's, else 19) through the form the runtime asks
        for, so that compiling happens now rather than on a move; safe to call from a background thread."""
        import torch

        size = size or self.net.config.board_size or 19
        x = torch.zeros((2, self.net.config.in_planes, size, size), device=self.device)
        with torch.inference_mode(), self._autocast():
            if self.runtime == "compile" and self._precompiled is None:
                self._compiled_forward(x)
            else:
                self._network(x)

    # ------------------------------------------------------------ internals
    def _ahead_of_time(self, model: "Model | PolicyValueNet") -> "PrecompiledNetwork | None":
        """The network's compiled forms made by another process, where one can make them."""
        from engine.nn.net import PolicyValueNet
        from engine.nn.precompiled import PrecompiledNetwork

        path = None if isinstance(model, PolicyValueNet) else model.path
        if path is None or self.device.type != "cpu" or self.dtype_name not in ("fp32", "bf16"):
            return None
        return PrecompiledNetwork(self.net, path, self.dtype_name)

    def _quantized(self, calibration: np.ndarray | None) -> "Int8Network":
        """The int8 network, calibrated on ``calibration`` or on random positions of the encoder's rules."""
        from engine.nn.int8 import Int8Network, calibration_planes

        if calibration is None:
            rules = getattr(self.encoder, "rules", None)
            if rules is None:
                raise ValueError("--dtype int8 needs calibration planes or an encoder with rules")
            calibration = calibration_planes(rules, self.encoder)
        return Int8Network(self.net, calibration, bf16_stem=bf16_is_native())

    def _forward(self, planes: np.ndarray) -> NetOutput[np.ndarray]:
        """Planes to the device, the network (compiled or eager), every head back as float32 host arrays."""
        return self._collect(self._launch(planes))

    @property
    def asynchronous(self) -> bool:
        """On a GPU the forward pass is queued and :meth:`submit` returns while it runs."""
        return self.device.type == "cuda"

    def _launch(self, planes: np.ndarray) -> Any:
        """Planes to the device, the network, every head back to the host. On a GPU all three are queued (the
        copies through page-locked memory) and an event marks their end; elsewhere they are done on return."""
        import torch

        queued = self.asynchronous
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(planes))
            x = (x.pin_memory() if queued else x).to(self.device, non_blocking=True).to(torch.float32)
            if self.channels_last:
                x = x.contiguous(memory_format=torch.channels_last)
            with self._autocast():
                out = self._network(x)
            host = out.map(lambda t: t.float().to("cpu", non_blocking=queued))
            done = None
            if queued:
                done = torch.cuda.Event()
                done.record()
        return host, done

    def _collect(self, launched: Any) -> NetOutput[np.ndarray]:
        host, done = launched
        if done is not None:
            done.synchronize()
        return host.map(lambda t: t.numpy())

    def _autocast(self) -> "torch.autocast":
        import torch

        return torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.dtype_name == "bf16")

    def _network(self, x: "torch.Tensor") -> "NetOutput[torch.Tensor]":
        if self._int8 is not None:
            return self._int8(x)
        if self._precompiled is not None:
            compiled = self._precompiled.forward(x.shape[-1])
            return self.net(x) if compiled is None else compiled(x)
        if self.runtime == "compile":
            return self._compiled_forward(x)
        return self.net(x)

    def _compiled_forward(self, x: "torch.Tensor") -> "NetOutput[torch.Tensor]":
        """The compiled network on ``x``; on a compiler failure the eager one, and the runtime turns eager."""
        import torch

        if len(x) == 1:  # Inductor specialises batch 1 (a second compilation): run it as a pair instead
            return self._compiled_forward(torch.cat([x, x])).map(lambda t: t[:1])
        size = x.shape[-1]
        if size in self._compiled_sizes:   # compiled: no lock, so a compile for another size never blocks it
            assert self._compiled is not None
            return self._compiled(x)
        with self._compile_lock:
            try:
                if self._compiled is None:   # dynamic: one compilation serves every batch size
                    self._compiled = torch.compile(self.net, dynamic=True)
                result = self._compiled(x)
            except Exception as error:  # noqa: BLE001 -- any compiler failure: fall back to eager, once
                if self._compiled_sizes:
                    raise
                log.warning("torch.compile failed (%s); running the network eagerly", str(error).splitlines()[0])
                self._compiled, self.runtime = None, "eager"
                return self.net(x)
            self._compiled_sizes.add(size)
            return result

    def __repr__(self) -> str:
        runtime = f"{self.runtime} ahead of time" if self._precompiled is not None else self.runtime
        return (f"NetEvaluator({self.net.config.name}, encoder={self.encoder.name!r}, device={self.device}, "
                f"dtype={self.dtype_name}, runtime={runtime}, cache={len(self._cache)}/{self.cache_size})")
