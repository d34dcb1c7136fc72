"""What every network evaluator does around its forward pass: encode, symmetries, cache, legal masking.

:class:`CachedNetEvaluator` is the part of the evaluator protocol that does
not depend on how the network runs; its subclasses give the forward pass
(:meth:`CachedNetEvaluator._forward`, encoded planes in, every head out as
float32 arrays): :class:`~engine.nn.evaluator.NetEvaluator` with torch and
:class:`~engine.nn.numpy_evaluator.NumpyEvaluator` with numpy. This module
imports no torch, so a process that runs the numpy one never loads it. The
encoder is injected (anything with ``name``, ``num_planes`` and
``encode_batch``: ``encoders.base.Encoder`` fits), so that no evaluator module
imports ``encoders``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, NamedTuple, Protocol

import numpy as np

from engine.core.board import HISTORY, HISTORY_LEN, RING
from engine.core.position import PositionBatch
from engine.core.symmetry import NUM_SYMMETRIES, destination_cells, source_cells
from engine.nn.config import NetConfig, NetOutput
from engine.nn.model_format import ModelFormatError, ModelInfo
from engine.search.evaluator import Evaluation, Positions, apply_decisive_moves, legal_masks, masked_softmax

__all__ = ["Encoder", "CachedNetEvaluator", "PendingEvaluation", "Symmetries", "RowCache", "DEFAULT_CACHE_SIZE"]

DEFAULT_CACHE_SIZE = 1 << 15
"""Cached evaluations (about 1.5 KB each on 19x19: logits of every action and a value; 3 KB with ownership)."""


class Encoder(Protocol):
    """What a network evaluator needs of an encoder (``encoders.base.Encoder`` fits).

    ``uses_history`` (optional, default True) says whether the planes read
    earlier boards; when False the evaluation cache keys on the position alone.
    """

    name: str
    num_planes: int

    def encode_batch(self, positions: Positions) -> np.ndarray:
        """``[B, num_planes, N, N]`` planes, any numeric dtype (a PositionBatch is read without copying)."""
        ...


class Symmetries:
    """The 8 symmetries of the square (:mod:`engine.core.symmetry`), applied per position: a batch's rows each
    under their own. Applied on the host, where the planes are encoded and the outputs end up, so that both
    forward passes share them.
    """

    def __init__(self, size: int) -> None:
        symmetries = range(NUM_SYMMETRIES)
        self.source = np.stack([source_cells(k, size) for k in symmetries])             # [8, N*N]
        self.destination = np.stack([destination_cells(k, size) for k in symmetries])   # [8, N*N]

    def planes(self, planes: np.ndarray, ks: np.ndarray) -> np.ndarray:
        """Symmetry ``ks[b]`` of ``planes[b]`` (``[B, C, N, N]``)."""
        batch, channels, n, _ = planes.shape
        flat = planes.reshape(batch, channels, n * n)
        out = np.empty_like(flat)
        for k in np.unique(ks):   # one gather per symmetry drawn: a third of a gather with an index per row
            rows = np.flatnonzero(ks == k)
            out[rows] = flat[rows][:, :, self.source[k]]
        return out.reshape(planes.shape)

    def undo_points(self, values: np.ndarray, ks: np.ndarray) -> np.ndarray:
        """Map ``values[B, N*N]`` (one per point, e.g. ownership) computed on transformed boards back."""
        return np.take_along_axis(values, self.destination[ks], axis=1)

    def undo_policy(self, logits: np.ndarray, ks: np.ndarray) -> np.ndarray:
        """Map ``logits[B, N*N + 1]`` computed on transformed boards back to the original boards."""
        return np.concatenate([self.undo_points(logits[:, :-1], ks), logits[:, -1:]], axis=1)


class RowCache:
    """Network outputs by position key in least-recently-used order, the rows kept in one array per head: a
    batch is stored and read with one copy per head, not one per position, so that a search's Python cost per
    leaf is a dictionary lookup.

    The arrays take the whole ``capacity`` at the first store (when the heads' shapes are known) and are
    written once then, so the cache's memory is the process's from its first evaluation on: a session that
    runs for hours does not climb as the cache fills, and no growing copy leaves freed blocks to the
    allocator."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._slots: OrderedDict[Hashable, int] = OrderedDict()
        self._rows: NetOutput[np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self._slots)

    def clear(self) -> None:
        self._slots.clear()
        self._rows = None

    def lookup(self, keys: list[Hashable], out: NetOutput[np.ndarray]) -> list[int]:
        """Fill the rows of ``out`` whose key is cached; return the indices of the others."""
        todo, found, slots = [], [], []
        for i, key in enumerate(keys):
            slot = self._slots.get(key)
            if slot is None:
                todo.append(i)
            else:
                self._slots.move_to_end(key)
                found.append(i)
                slots.append(slot)
        if found and self._rows is not None:
            for rows, kept in zip(out, self._rows):
                if rows is not None:
                    rows[found] = kept[slots]
        return todo

    def store(self, keys: list[Hashable], fresh: NetOutput[np.ndarray]) -> None:
        """Keep ``fresh``'s row ``i`` under ``keys[i]``, evicting the least recently used beyond ``capacity``."""
        if not keys:
            return
        if self._rows is not None and self._rows.policy.shape[1:] != fresh.policy.shape[1:]:
            self.clear()   # another board size
        slots = []
        for key in keys:
            slot = self._slots.get(key)
            if slot is not None:
                self._slots.move_to_end(key)
            elif len(self._slots) < self.capacity:
                slot = len(self._slots)
            else:
                slot = self._slots.popitem(last=False)[1]
            self._slots[key] = slot
            slots.append(slot)
        if self._rows is None:
            self._rows = fresh.map(lambda rows: self._reserve(rows.shape[1:]))
        for kept, rows in zip(self._rows, fresh):
            if kept is not None:
                kept[slots] = rows

    def _reserve(self, row_shape: tuple[int, ...]) -> np.ndarray:
        rows = np.empty((self.capacity, *row_shape), np.float32)
        rows.fill(0.0)   # commit the pages now: np.zeros would leave them to be taken as rows are stored
        return rows


class CachedNetEvaluator:
    """A network behind the :class:`~engine.search.evaluator.Evaluator` interface: encode, infer, mask, cache.

    ``config`` is the network's architecture; ``info`` (None for a bare
    network) the model file's description, whose encoder must be ``encoder``.
    ``random_symmetry``: evaluate each position under one of the 8 board
    symmetries drawn at random (``seed``), and map the policy and the
    ownership back.

    Cache. ``cache_size`` evaluations (0: none) are kept in LRU order, keyed by
    ``Position.key`` (stones, side to move, ko point); when the encoder reads
    earlier boards (``encoder.uses_history``, assumed True when absent) the key
    also holds the history ring, so positions reached by different move
    orders do not share an entry. The cache stores the raw outputs of every
    head (logits, value, ownership, score); legal-move masking is redone on
    every call. With ``random_symmetry`` a hit returns the symmetry drawn when
    the entry was made.

    ``decisive`` (Gomoku; on by default): after masking, positions where a move decides are corrected
    by :func:`~engine.search.evaluator.apply_decisive_moves` (a five or a victory by continuous fours
    takes the prior and value +1, a proof for the search's solver; the opponent's five at once leaves one
    point to play); the cache keeps the network's outputs.
    """

    def __init__(self, config: NetConfig, info: ModelInfo | None, encoder: Encoder, *, random_symmetry: bool = False,
                 cache_size: int = DEFAULT_CACHE_SIZE, seed: int | None = None, decisive: bool = True) -> None:
        if info is not None and info.encoder != encoder.name:
            raise ModelFormatError(f"model {info.name} reads encoder {info.encoder} ({info.num_planes} planes), "
                                   f"not {encoder.name} ({encoder.num_planes} planes)")
        if config.in_planes != encoder.num_planes:
            raise ModelFormatError(f"the network reads {config.in_planes} planes but encoder {encoder.name} "
                                   f"writes {encoder.num_planes}")
        self.config = config
        self.encoder = encoder
        self.komi = None if info is None else info.komi  # what the search corrects its values from
        self.random_symmetry = random_symmetry
        self.decisive = decisive
        self._rng = np.random.default_rng(seed)
        self._symmetries: dict[int, Symmetries] = {}
        self.cache_size = int(cache_size)
        self._cache = RowCache(self.cache_size)
        self._history = bool(getattr(encoder, "uses_history", True))
        self.hits = 0
        self.misses = 0

    # ----------------------------------------------------------- public API
    @property
    def aux_heads(self) -> tuple[str, ...]:
        """The network's auxiliary heads (of ``"ownership"``, ``"score"``): the auxiliary fields of
        :meth:`evaluate` that are not None."""
        return self.config.aux_heads

    def evaluate(self, positions: Positions, legal: np.ndarray | None = None) -> Evaluation:
        """Every head of the network for a batch, all from the side to move of each position.

        ``priors`` (legal, renormalised) and ``values`` (in [-1, 1]);
        ``ownership float32[B, N*N]`` in [-1, 1] (row 0 at the top, as actions
        count); ``score_mean`` and ``score_stdev float32[B]``: the final score
        difference in points, komi included. Heads the network lacks (see
        :attr:`aux_heads`) are None.
        """
        return self.submit(positions, legal).result()

    def submit(self, positions: Positions, legal: np.ndarray | None = None) -> PendingEvaluation:
        """:meth:`evaluate`, begun: where the network runs asynchronously (:attr:`asynchronous`) its forward
        pass is under way when this returns, and the caller can walk other trees before reading the result."""
        batch = PositionBatch.stack(positions)
        masks = legal_masks(batch) if legal is None else legal
        raw = self._empty(len(batch), masks.shape[1])
        keys = self._keys(batch) if self.cache_size > 0 else []
        todo = self._lookup(keys, raw) if keys else list(range(len(batch)))
        launched = None
        if todo:
            subset = batch if len(todo) == len(batch) else PositionBatch(batch.rules, batch.cells[todo],
                                                                         batch.info[todo])
            launched = self._launch_infer(self.encoder.encode_batch(subset), None)
        return PendingEvaluation(self, batch, masks, raw, keys, todo, launched)

    @property
    def asynchronous(self) -> bool:
        """Whether :meth:`submit` returns before the network has run (a GPU), so that overlapping pays."""
        return False

    def infer(self, planes: np.ndarray, symmetries: np.ndarray | None = None) -> NetOutput[np.ndarray]:
        """Run the network on encoded ``planes[B, C, N, N]``: every head as float32 arrays, the policy as raw
        logits ``[B, N*N + 1]`` (no legal-move mask). ``symmetries int[B]`` (0..7, numbered as
        ``encoders.symmetry``) evaluates each position under that board symmetry; without them a random one
        is drawn when ``random_symmetry`` is on. The outputs are mapped back to the original boards."""
        return self._finish_infer(self._launch_infer(planes, symmetries))

    def raw(self, positions: Positions, symmetry: int = 0) -> NetOutput[np.ndarray]:
        """Every head for a batch under board ``symmetry`` (mapped back), uncached and unmasked, as the
        network gives them: what ``heatmap`` and ``kata-raw-nn`` show. The policy is raw logits."""
        batch = PositionBatch.stack(positions)
        return self.infer(self.encoder.encode_batch(batch), np.full(len(batch), symmetry))

    def clear_cache(self) -> None:
        self._cache.clear()

    # ------------------------------------------------------------ internals
    def _forward(self, planes: np.ndarray) -> NetOutput[np.ndarray]:
        """The network on ``planes[B, C, N, N]`` (any numeric dtype): every head as float32 host arrays."""
        raise NotImplementedError

    def _launch(self, planes: np.ndarray) -> Any:
        """Start the network on ``planes``; :meth:`_collect` reads the outputs. Here the network runs at once."""
        return self._forward(planes)

    def _collect(self, launched: Any) -> NetOutput[np.ndarray]:
        """The outputs of a :meth:`_launch`, as :meth:`_forward` gives them."""
        return launched

    def _launch_infer(self, planes: np.ndarray, symmetries: np.ndarray | None) -> _Launched:
        planes = np.asarray(planes)
        if symmetries is None and self.random_symmetry:
            symmetries = self._rng.integers(0, 8, len(planes))
        if symmetries is None:
            return _Launched(self._launch(planes), None, None)
        ks = np.asarray(symmetries, dtype=np.int64)
        table = self._symmetry(planes.shape[-1])
        return _Launched(self._launch(table.planes(planes, ks)), ks, table)

    def _finish_infer(self, launched: _Launched) -> NetOutput[np.ndarray]:
        out = self._collect(launched.handle)
        if launched.symmetries is None or launched.table is None:
            return out
        ks, table = launched.symmetries, launched.table
        return out._replace(policy=table.undo_policy(out.policy, ks),
                            ownership=None if out.ownership is None else table.undo_points(out.ownership, ks))

    def _empty(self, batch: int, actions: int) -> NetOutput[np.ndarray]:
        """Room for ``batch`` rows of every head the network has (float32)."""
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

    def _lookup(self, keys: list[Hashable], out: NetOutput[np.ndarray]) -> list[int]:
        """Fill the cached rows of ``out``; return the indices that must be computed."""
        todo = self._cache.lookup(keys, out)
        self.hits += len(keys) - len(todo)
        self.misses += len(todo)
        return todo

    def _symmetry(self, size: int) -> Symmetries:
        if size not in self._symmetries:
            self._symmetries[size] = Symmetries(size)
        return self._symmetries[size]


class _Launched(NamedTuple):
    """A forward pass under way: the runtime's handle and the symmetries to undo on its outputs."""

    handle: Any
    symmetries: np.ndarray | None
    table: Symmetries | None


class PendingEvaluation:
    """A batch handed to :meth:`CachedNetEvaluator.submit`: :meth:`result` waits for the network (if it still
    runs), caches its rows, masks the illegal moves and gives the :class:`Evaluation`."""

    def __init__(self, evaluator: CachedNetEvaluator, batch: PositionBatch, masks: np.ndarray,
                 raw: NetOutput[np.ndarray], keys: list[Hashable], todo: list[int], launched: _Launched | None) -> None:
        self._evaluator, self._batch, self._masks, self._raw = evaluator, batch, masks, raw
        self._keys, self._todo, self._launched = keys, todo, launched
        self._evaluation: Evaluation | None = None

    def result(self) -> Evaluation:
        if self._evaluation is None:
            evaluator, raw = self._evaluator, self._raw
            if self._launched is not None:
                fresh = evaluator._finish_infer(self._launched)
                for rows, computed in zip(raw, fresh):
                    if rows is not None:
                        rows[self._todo] = computed
                if self._keys:
                    evaluator._cache.store([self._keys[i] for i in self._todo], fresh)
            priors, values = masked_softmax(raw.policy, self._masks), np.clip(raw.value, -1.0, 1.0)
            proven = apply_decisive_moves(self._batch, priors, values) if evaluator.decisive else None
            self._evaluation = Evaluation(*raw._replace(policy=priors, value=values), proven=proven)
        return self._evaluation
