"""The network behind the evaluator protocol: encode, infer on the device, mask, cache.

:class:`NetEvaluator` runs a :class:`~engine.nn.net.PolicyValueNet` through an
injected encoder (anything with ``name``, ``num_planes`` and ``encode_batch``:
``encoders.base.Encoder`` fits), so that this module never imports ``encoders``.
``pick_device``, ``pick_dtype`` and ``pick_runtime`` choose how it runs.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Protocol

import numpy as np

from engine.core.board import HISTORY, HISTORY_LEN, RING
from engine.core.position import PositionBatch
from engine.search.evaluator import Evaluation, Positions, legal_masks, masked_softmax

if TYPE_CHECKING:
    import torch

    from engine.nn.model_file import Model
    from engine.nn.net import NetOutput, PolicyValueNet

__all__ = ["Encoder", "NetEvaluator", "DEFAULT_CACHE_SIZE", "RUNTIMES", "pick_device", "pick_dtype",
           "pick_runtime", "bf16_is_native", "set_cpu_threads"]

log = logging.getLogger(__name__)

RUNTIMES = ("auto", "eager", "compile")

DEFAULT_CACHE_SIZE = 1 << 15
"""Cached evaluations (about 1.5 KB each on 19x19: logits of every action and a value; 3 KB with ownership)."""


class Encoder(Protocol):
    """What :class:`NetEvaluator` needs of an encoder (``encoders.base.Encoder`` fits).

    ``uses_history`` (optional, default True) says whether the planes read
    earlier boards; when False the evaluation cache keys on the position alone.
    """

    name: str
    num_planes: int

    def encode_batch(self, positions: Positions) -> np.ndarray:
        """``[B, num_planes, N, N]`` planes, any numeric dtype (a PositionBatch is read without copying)."""
        ...


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

    On a CPU without AMX or AVX-512 BF16, bf16 is emulated: ``engine bench net``
    measured it 2.5-3.5x slower than fp32 here, hence the probe.
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

    On this project's CPU (2 cores, AVX-512, no AMX), ``torch.compile``
    (Inductor, batch norms already folded by ``for_inference``, dynamic
    shapes) ran b6c64 1.4-1.6x and b10c128 1.2-1.4x faster than eager PyTorch
    (``engine bench net --runtime``, interleaved runs). Inductor's weight
    freezing (prepacked oneDNN convolutions with fused ReLU and residual
    adds) gained only 3% on 19x19 b6c64 at batch 16 (1,188 against 1,142
    positions/s, medians of 3) and specialises every batch size, so it is
    not used (``torch.compile(options={"freezing": True})`` is ignored by
    torch 2.13 anyway). The 3x3 convolutions run near the bf16 peak of these
    cores; what is left is in the algorithm, not the compiler.
    TorchScript freezing and ONNX Runtime came out level with it, within the
    noise, but the first is deprecated and the second an extra dependency.
    Compiling costs 10-25 s on the first evaluation (Inductor caches on disk;
    the first ever compile of a process tree takes longer), once for every
    batch and board size; :meth:`NetEvaluator.warm_up` pays it up front. GPUs
    stay eager (cuDNN already fuses; compiling there is unmeasured).
    """
    if runtime not in RUNTIMES:
        raise ValueError(f"unknown runtime {runtime!r}: expected one of {', '.join(RUNTIMES)}")
    if runtime == "auto":
        return "compile" if device.type == "cpu" else "eager"
    return runtime


class _Symmetries:
    """The 8 symmetries of the square as index tables, applied per position on the device.

    Numbered as ``encoders.symmetry`` numbers them: symmetry ``k`` mirrors
    left-right when ``k >= 4``, then turns ``k % 4`` quarter turns
    counter-clockwise (``rot90``). Kept here in torch so that planes never leave
    the device (``encoders`` cannot import torch, and ``engine`` does not import
    ``encoders``).
    """

    def __init__(self, size: int, device: "torch.device") -> None:
        import torch

        grid = torch.arange(size * size).reshape(size, size)
        sources = [torch.rot90(torch.flip(grid, dims=(1,)) if k >= 4 else grid, k % 4, dims=(0, 1)).reshape(-1)
                   for k in range(8)]
        self.source = torch.stack(sources).to(device)                   # [8, N*N]: input cell of each output
        self.destination = torch.argsort(self.source, dim=1)             # [8, N*N]: output cell of each input

    def planes(self, planes: "torch.Tensor", ks: "torch.Tensor") -> "torch.Tensor":
        """Symmetry ``ks[b]`` of ``planes[b]`` (``[B, C, N, N]``)."""
        batch, channels, n, _ = planes.shape
        index = self.source[ks].unsqueeze(1).expand(batch, channels, n * n)
        return planes.reshape(batch, channels, n * n).gather(2, index).reshape(planes.shape)

    def undo_points(self, values: "torch.Tensor", ks: "torch.Tensor") -> "torch.Tensor":
        """Map ``values[B, N*N]`` (one per point, e.g. ownership) computed on transformed boards back."""
        return values.gather(1, self.destination[ks])

    def undo_policy(self, logits: "torch.Tensor", ks: "torch.Tensor") -> "torch.Tensor":
        """Map ``logits[B, N*N + 1]`` computed on transformed boards back to the original boards."""
        import torch

        return torch.cat([self.undo_points(logits[:, :-1], ks), logits[:, -1:]], dim=1)


class NetEvaluator:
    """A network behind the :class:`Evaluator` interface: encode, infer, mask, cache.

    ``model`` is a :class:`~engine.nn.model_file.Model` (its encoder name must
    match ``encoder``'s) or a bare :class:`~engine.nn.net.PolicyValueNet`. The
    evaluator runs a frozen copy (batch norms folded, eval mode) taken at
    construction: build a new evaluator to see newer weights.

    ``device``: None picks cuda, then mps, else cpu. ``dtype``: ``auto``,
    ``fp32`` or ``bf16`` (autocast; see :func:`pick_dtype`). Torch's CPU
    threads are the process's, set by the caller (:func:`set_cpu_threads`).
    ``random_symmetry``: evaluate each position under one of the 8 board
    symmetries drawn at random (``seed``), and map the policy and the
    ownership back.
    ``runtime``: ``eager``, ``compile`` or ``auto`` (see :func:`pick_runtime`);
    if compiling fails (no C++ compiler, say) the evaluator warns once and
    runs eagerly. Tests should ask for ``eager``: compiling takes seconds.
    The network compiles on its first evaluation of a board size, unless
    ``eager_until_compiled``: then a board size runs eagerly until
    :meth:`warm_up` (which may run in another thread) has compiled it, so that
    a front end answers at once and moves faster when the compiled form is
    ready (both forms give the same outputs to float tolerance).

    Cache. ``cache_size`` evaluations (0: none) are kept in LRU order, keyed by
    ``Position.key`` (stones, side to move, ko point); when the encoder reads
    earlier boards (``encoder.uses_history``, assumed True when absent) the key
    also holds the history ring, so positions reached by different move
    orders do not share an entry. The cache stores the raw outputs of every
    head (logits, value, ownership, score); legal-move masking is redone on
    every call. With ``random_symmetry`` a hit returns the symmetry drawn when
    the entry was made.
    """

    def __init__(self, model: "Model | PolicyValueNet", encoder: Encoder, *, device: str | None = None,
                 dtype: str = "auto", random_symmetry: bool = False, cache_size: int = DEFAULT_CACHE_SIZE,
                 seed: int | None = None, runtime: str = "auto", eager_until_compiled: bool = False) -> None:
        import torch

        from engine.nn.model_file import ModelFormatError
        from engine.nn.net import PolicyValueNet

        net = model if isinstance(model, PolicyValueNet) else model.net
        info = None if isinstance(model, PolicyValueNet) else model.info
        if info is not None and info.encoder != encoder.name:
            raise ModelFormatError(f"model {model.name} reads encoder {info.encoder} ({info.num_planes} planes), "
                                   f"not {encoder.name} ({encoder.num_planes} planes)")
        if net.config.in_planes != encoder.num_planes:
            raise ModelFormatError(f"the network reads {net.config.in_planes} planes but encoder {encoder.name} "
                                   f"writes {encoder.num_planes}")
        self.encoder = encoder
        self.device = pick_device(device)
        self.dtype = pick_dtype(dtype, self.device)
        self.dtype_name = "bf16" if self.dtype == torch.bfloat16 else "fp32"   # as --dtype spells it
        self.channels_last = self.device.type == "cuda"   # NHWC helps cuDNN; measured slower on CPU
        self.net = net.for_inference().to(self.device)
        if self.channels_last:
            self.net = self.net.to(memory_format=torch.channels_last)
        self.runtime = pick_runtime(runtime, self.device)
        self.eager_until_compiled = eager_until_compiled
        self._compiled: Callable[[torch.Tensor], NetOutput[torch.Tensor]] | None = None   # built on first use
        self._compiled_sizes: set[int] = set()   # board sizes the compiled form has run on
        self._compile_lock = threading.Lock()
        self.random_symmetry = random_symmetry
        self._rng = np.random.default_rng(seed)
        self._symmetries: dict[int, _Symmetries] = {}
        self.cache_size = int(cache_size)
        self._cache: OrderedDict[Hashable, NetOutput[np.ndarray]] = OrderedDict()   # one row of each head
        self._history = bool(getattr(encoder, "uses_history", True))
        self.hits = 0
        self.misses = 0

    # ----------------------------------------------------------- public API
    @property
    def aux_heads(self) -> tuple[str, ...]:
        """The network's auxiliary heads (of ``"ownership"``, ``"score"``): the auxiliary fields of
        :meth:`evaluate` that are not None."""
        return self.net.config.aux_heads

    def evaluate(self, positions: Positions, legal: np.ndarray | None = None) -> Evaluation:
        """Every head of the network for a batch, all from the side to move of each position.

        ``priors`` (legal, renormalised) and ``values`` (in [-1, 1]);
        ``ownership float32[B, N*N]`` in [-1, 1] (row 0 at the top, as actions
        count); ``score_mean`` and ``score_stdev float32[B]``: the final score
        difference in points, komi included. Heads the network lacks (see
        :attr:`aux_heads`) are None.
        """
        batch = PositionBatch.stack(positions)
        masks = legal_masks(batch) if legal is None else legal
        raw = self._empty(len(batch), masks.shape[1])
        keys = self._keys(batch) if self.cache_size > 0 else []
        todo = self._lookup(keys, raw) if keys else list(range(len(batch)))
        if todo:
            subset = batch if len(todo) == len(batch) else PositionBatch(batch.rules, batch.cells[todo],
                                                                         batch.info[todo])
            fresh = self.infer(self.encoder.encode_batch(subset))
            for rows, computed in zip(raw, fresh):
                if rows is not None:
                    rows[todo] = computed
            if keys:
                self._store([keys[i] for i in todo], fresh)
        return Evaluation(*raw._replace(policy=masked_softmax(raw.policy, masks), value=np.clip(raw.value, -1.0, 1.0)))

    def infer(self, planes: np.ndarray, symmetries: np.ndarray | None = None) -> "NetOutput[np.ndarray]":
        """Run the network on encoded ``planes[B, C, N, N]``: every head as float32 arrays, the policy as raw
        logits ``[B, N*N + 1]`` (no legal-move mask). ``symmetries int[B]`` (0..7, numbered as
        ``encoders.symmetry``) evaluates each position under that board symmetry; without them a random one
        is drawn when ``random_symmetry`` is on. The outputs are mapped back to the original boards."""
        import torch

        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(planes)).to(self.device, non_blocking=True)
            x = x.to(torch.float32)
            ks = None
            if symmetries is None and self.random_symmetry:
                symmetries = self._rng.integers(0, 8, len(x))
            if symmetries is not None:
                ks = torch.from_numpy(np.asarray(symmetries, dtype=np.int64)).to(self.device)
                x = self._symmetry(x.shape[-1]).planes(x, ks)
            if self.channels_last:
                x = x.contiguous(memory_format=torch.channels_last)
            with self._autocast():
                out = self._forward(x).map(lambda t: t.float())
            if ks is not None:
                table = self._symmetry(x.shape[-1])
                out = out._replace(policy=table.undo_policy(out.policy, ks),
                                   ownership=None if out.ownership is None else table.undo_points(out.ownership, ks))
            return out.map(lambda t: t.cpu().numpy())

    def raw(self, positions: Positions, symmetry: int = 0) -> "NetOutput[np.ndarray]":
        """Every head for a batch under board ``symmetry`` (mapped back), uncached and unmasked, as the
        network gives them: what ``heatmap`` and ``kata-raw-nn`` show. The policy is raw logits."""
        batch = PositionBatch.stack(positions)
        return self.infer(self.encoder.encode_batch(batch), np.full(len(batch), symmetry))

    @property
    def compiled_sizes(self) -> frozenset[int]:
        """The board sizes whose evaluations run on the compiled network (none while the runtime is eager)."""
        return frozenset(self._compiled_sizes) if self.runtime == "compile" else frozenset()

    def warm_up(self, size: int | None = None) -> None:
        """Run one dummy batch of ``size`` (default: the network's, else 19) through the form the runtime asks
        for, so that compiling happens now rather than on a move; safe to call from a background thread."""
        import torch

        size = size or self.net.config.board_size or 19
        x = torch.zeros((2, self.net.config.in_planes, size, size), device=self.device)
        with torch.inference_mode(), self._autocast():
            if self.runtime == "compile":
                self._compiled_forward(x)
            else:
                self.net(x)

    def clear_cache(self) -> None:
        self._cache.clear()

    # ------------------------------------------------------------ internals
    def _autocast(self) -> "torch.autocast":
        import torch

        return torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.dtype_name == "bf16")

    def _forward(self, x: "torch.Tensor") -> "NetOutput[torch.Tensor]":
        if self.runtime == "compile" and (not self.eager_until_compiled or x.shape[-1] in self._compiled_sizes):
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

    def _empty(self, batch: int, actions: int) -> "NetOutput[np.ndarray]":
        """Room for ``batch`` rows of every head the network has (float32)."""
        from engine.nn.net import NetOutput

        ownership, score = "ownership" in self.aux_heads, "score" in self.aux_heads
        return NetOutput(np.empty((batch, actions), np.float32), np.empty(batch, np.float32),
                         np.empty((batch, actions - 1), np.float32) if ownership else None,
                         np.empty(batch, np.float32) if score else None,
                         np.empty(batch, np.float32) if score else None)

    def _keys(self, batch: PositionBatch) -> list[Hashable]:
        keys = batch.keys().tolist()
        if not self._history:
            return keys
        rings = batch.cells[:, HISTORY:HISTORY + HISTORY_LEN]
        return [(key, int(batch.info[i, RING]), hash(rings[i].tobytes())) for i, key in enumerate(keys)]

    def _lookup(self, keys: list[Hashable], out: "NetOutput[np.ndarray]") -> list[int]:
        """Fill the cached rows of ``out``; return the indices that must be computed."""
        todo = []
        for i, key in enumerate(keys):
            entry = self._cache.get(key)
            if entry is None:
                todo.append(i)
                continue
            self._cache.move_to_end(key)
            for rows, cached in zip(out, entry):
                if rows is not None:
                    rows[i] = cached
        self.hits += len(keys) - len(todo)
        self.misses += len(todo)
        return todo

    def _store(self, keys: list[Hashable], fresh: "NetOutput[np.ndarray]") -> None:
        for i, key in enumerate(keys):
            self._cache[key] = fresh.map(lambda rows: rows[i].copy())
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _symmetry(self, size: int) -> _Symmetries:
        if size not in self._symmetries:
            self._symmetries[size] = _Symmetries(size, self.device)
        return self._symmetries[size]

    def __repr__(self) -> str:
        return (f"NetEvaluator({self.net.config.name}, encoder={self.encoder.name!r}, device={self.device}, "
                f"dtype={self.dtype_name}, runtime={self.runtime}, cache={len(self._cache)}/{self.cache_size})")
