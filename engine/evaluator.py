"""Evaluators: a batch of positions in, move priors and values out.

``Evaluator.evaluate(positions) -> (priors float32[B, N*N + 1], values float32[B])``:

* ``priors[b]`` is a probability distribution over actions (pass last) that is
  exactly 0 on every action ``positions[b].legal_mask()`` forbids and sums to
  1. A position with no legal action (a finished game) gets all its mass on
  pass, so every row sums to 1; the search never expands such a node.
* ``values[b]`` is in [-1, 1], from the point of view of the side to move in
  ``positions[b]`` (+1: it wins).

All positions in one batch have the same board size. :class:`UniformEvaluator`
(uniform priors, value 0) serves tests and search benchmarks;
:class:`NetEvaluator` runs a network through an injected encoder (the engine
never imports ``encoders``: anything with ``name``, ``num_planes`` and
``encode_batch`` will do).
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from engine.board import HISTORY, HISTORY_LEN, RING
from engine.position import Position

if TYPE_CHECKING:
    import torch

    from engine.model_file import Model
    from engine.net import PolicyValueNet

__all__ = ["Evaluator", "Encoder", "UniformEvaluator", "NetEvaluator", "legal_masks", "masked_softmax",
           "DEFAULT_CACHE_SIZE", "pick_device", "pick_dtype", "bf16_is_native"]

DEFAULT_CACHE_SIZE = 1 << 15
"""Cached evaluations (about 1.5 KB each on 19x19: logits of every action and a value)."""


@runtime_checkable
class Evaluator(Protocol):
    """Anything the search can ask for priors and values (see the module docstring)."""

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray]:
        ...


class Encoder(Protocol):
    """What :class:`NetEvaluator` needs of an encoder (``encoders.base.Encoder`` fits).

    ``uses_history`` (optional, default True) says whether the planes read
    earlier boards; when False the evaluation cache keys on the position alone.
    """

    name: str
    num_planes: int

    def encode_batch(self, positions: Sequence[Position]) -> np.ndarray:
        """``[B, num_planes, N, N]`` planes, any numeric dtype."""
        ...


def legal_masks(positions: Sequence[Position]) -> np.ndarray:
    """``bool[B, N*N + 1]``: each position's legal actions (simple ko; pass last)."""
    return np.stack([position.legal_mask() for position in positions])


def masked_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``float32[B, A]``: softmax of ``logits`` over the actions ``masks`` allows, exactly 0 elsewhere.

    A row with no allowed action puts all its mass on the last action (pass).
    """
    masked = np.where(masks, logits, -np.inf)
    top = masked.max(axis=1, keepdims=True)
    empty = ~masks.any(axis=1)
    top[empty] = 0.0
    weights = np.exp(masked - top)
    weights[empty, -1] = 1.0
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


class UniformEvaluator:
    """Uniform priors over the legal actions and value 0: a network-free stand-in."""

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray]:
        masks = legal_masks(positions)
        return masked_softmax(np.zeros(masks.shape, dtype=np.float32), masks), np.zeros(len(masks), np.float32)


# ------------------------------------------------------------------ torch side
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

    On a CPU without AMX or AVX-512 BF16 bf16 is about 3x slower than fp32
    (measured with ``engine bench net``), hence the probe.
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

    def undo_policy(self, logits: "torch.Tensor", ks: "torch.Tensor") -> "torch.Tensor":
        """Map ``logits[B, N*N + 1]`` computed on transformed boards back to the original boards."""
        import torch

        points = logits[:, :-1].gather(1, self.destination[ks])
        return torch.cat([points, logits[:, -1:]], dim=1)


class NetEvaluator:
    """A network behind the :class:`Evaluator` interface: encode, infer, mask, cache.

    ``model`` is a :class:`~engine.model_file.Model` (its encoder name must
    match ``encoder``'s) or a bare :class:`~engine.net.PolicyValueNet`. The
    evaluator runs a frozen copy (batch norms folded, eval mode) taken at
    construction: build a new evaluator to see newer weights.

    ``device``: None picks cuda, then mps, else cpu. ``dtype``: ``auto``,
    ``fp32`` or ``bf16`` (autocast; see :func:`pick_dtype`). ``threads``: torch
    CPU threads for the whole process (None: every core this process may use).
    ``random_symmetry``: evaluate each position under one of the 8 board
    symmetries drawn at random (``seed``), and map the policy back.

    Cache. ``cache_size`` evaluations (0: none) are kept in LRU order, keyed by
    ``Position.key`` (stones, side to move, ko point); when the encoder reads
    earlier boards (``encoder.uses_history``, assumed True when absent) the key
    also holds the history ring, so positions reached by different move
    orders do not share an entry. The cache stores the raw logits and value;
    legal-move masking is redone on every call. With ``random_symmetry`` a hit
    returns the symmetry drawn when the entry was made.
    """

    def __init__(self, model: "Model | PolicyValueNet", encoder: Encoder, *, device: str | None = None,
                 dtype: str = "auto", random_symmetry: bool = False, cache_size: int = DEFAULT_CACHE_SIZE,
                 threads: int | None = None, seed: int | None = None) -> None:
        import torch

        from engine.model_file import ModelFormatError
        from engine.net import PolicyValueNet

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
        if self.device.type == "cpu":
            torch.set_num_threads(threads or len(os.sched_getaffinity(0)))
        self.channels_last = self.device.type == "cuda"   # NHWC helps cuDNN; measured slower on CPU
        self.net = net.for_inference().to(self.device)
        if self.channels_last:
            self.net = self.net.to(memory_format=torch.channels_last)
        self.random_symmetry = random_symmetry
        self._rng = np.random.default_rng(seed)
        self._symmetries: dict[int, _Symmetries] = {}
        self.cache_size = int(cache_size)
        self._cache: OrderedDict[Hashable, tuple[np.ndarray, float]] = OrderedDict()
        self._history = bool(getattr(encoder, "uses_history", True))
        self.hits = 0
        self.misses = 0

    # ----------------------------------------------------------- public API
    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray]:
        """Priors ``float32[B, N*N + 1]`` (legal, renormalised) and values ``float32[B]`` (side to move)."""
        masks = legal_masks(positions)
        logits = np.empty(masks.shape, dtype=np.float32)
        values = np.empty(len(positions), dtype=np.float32)
        keys = [self._key(position) for position in positions] if self.cache_size > 0 else []
        todo = self._lookup(keys, logits, values) if keys else list(range(len(positions)))
        if todo:
            fresh_logits, fresh_values = self.infer(self.encoder.encode_batch([positions[i] for i in todo]))
            logits[todo] = fresh_logits
            values[todo] = fresh_values
            if keys:
                self._store([keys[i] for i in todo], fresh_logits, fresh_values)
        return masked_softmax(logits, masks), np.clip(values, -1.0, 1.0)

    def infer(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Run the network on encoded ``planes[B, C, N, N]``: raw policy logits ``float32[B, N*N + 1]``, values."""
        import torch

        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(planes)).to(self.device, non_blocking=True)
            x = x.to(torch.float32)
            ks = None
            if self.random_symmetry:
                ks = torch.from_numpy(self._rng.integers(0, 8, len(x))).to(self.device)
                x = self._symmetry(x.shape[-1]).planes(x, ks)
            if self.channels_last:
                x = x.contiguous(memory_format=torch.channels_last)
            with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=self.dtype_name == "bf16"):
                logits, values = self.net(x)
            logits = logits.float()
            if ks is not None:
                logits = self._symmetry(x.shape[-1]).undo_policy(logits, ks)
            return logits.cpu().numpy(), values.float().cpu().numpy()

    def clear_cache(self) -> None:
        self._cache.clear()

    # ------------------------------------------------------------ internals
    def _key(self, position: Position) -> Hashable:
        if not self._history:
            return position.key
        ring = position.cells[HISTORY:HISTORY + HISTORY_LEN]
        return (position.key, int(position.info[RING]), hash(ring.tobytes()))

    def _lookup(self, keys: list[Hashable], logits: np.ndarray, values: np.ndarray) -> list[int]:
        """Fill the cached rows; return the indices that must be computed."""
        todo = []
        for i, key in enumerate(keys):
            entry = self._cache.get(key)
            if entry is None:
                todo.append(i)
                continue
            self._cache.move_to_end(key)
            logits[i], values[i] = entry
        self.hits += len(keys) - len(todo)
        self.misses += len(todo)
        return todo

    def _store(self, keys: list[Hashable], logits: np.ndarray, values: np.ndarray) -> None:
        for key, row, value in zip(keys, logits, values):
            self._cache[key] = (row.copy(), float(value))
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _symmetry(self, size: int) -> _Symmetries:
        if size not in self._symmetries:
            self._symmetries[size] = _Symmetries(size, self.device)
        return self._symmetries[size]

    def __repr__(self) -> str:
        return (f"NetEvaluator({self.net.config.name}, encoder={self.encoder.name!r}, device={self.device}, "
                f"dtype={self.dtype_name}, cache={len(self._cache)}/{self.cache_size})")
