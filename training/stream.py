"""A training set of chunk files in a fixed draw order, held in memory whole or streamed through a bounded window.

The set is its chunks in list order, S samples in all; its draw order is an
endless sequence of sample positions in which pass p (positions p*S to
(p+1)*S - 1) visits every sample once. A set of at most ``memory_samples``
samples is one window, read once and kept; pass p visits its samples in a
permutation seeded by (seed, p). A larger set streams: pass p takes the chunks
in a permutation seeded by (seed, p), cuts that sequence into windows of whole
chunks holding at most ``memory_samples / 2`` samples each, and visits window
w's samples in a permutation seeded by (seed, p, w), so that a batch mixes
positions of many chunks. Only two windows are in memory: the one being drawn
from and the next, read in a background thread while the first is drawn from.

The sample at a position depends only on the seed, the chunk list and the bound
(:attr:`SampleStream.fingerprint` names the last two), so a run resumed at any
step draws the batches an uninterrupted run drew.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace

import numpy as np

from training.chunks import ChunkInfo, Samples, check_chunks, list_chunks, read_chunks, shared_komi
from training.errors import ChunkFormatError

__all__ = ["SampleStream", "MEMORY_SAMPLES"]

MEMORY_SAMPLES = 2_000_000   # about 3 GB of 19x19 fifteenplane samples, 0.7 GB of 9x9 zero17 ones


@dataclass(frozen=True)
class _Pass:
    """How one pass cuts the chunks into windows: ``windows[w]`` the chunk indices of window w, in read
    order, and ``starts[w]`` the pass position of its first sample (``starts[-1]``: S)."""

    windows: tuple[tuple[int, ...], ...]
    starts: tuple[int, ...]


class SampleStream:
    """The samples of some chunks, drawn in the order the module docstring describes.

    ``sizes[i]`` is the number of samples of chunk i; ``read(indices)`` returns the samples of those chunks,
    one after the other. Build one with :meth:`from_chunks` (chunk files) or :meth:`from_samples` (samples
    already in memory). Windows are read in a daemon thread; a read's error (a
    :class:`~training.errors.ChunkFormatError` naming the file) is raised by the :meth:`batch_at` that needs it.
    """

    def __init__(self, info: ChunkInfo, sizes: Sequence[int], read: Callable[[Sequence[int]], Samples],
                 memory_samples: int, names: Sequence[str] = ()) -> None:
        if memory_samples < 1:
            raise ValueError(f"the memory bound must be at least one sample, not {memory_samples}")
        self.info = info
        self.sizes = tuple(int(size) for size in sizes)
        self.total = sum(self.sizes)
        if self.total == 0:
            raise ChunkFormatError("the chunks hold no samples to train on")
        self.resident = self.total <= memory_samples
        self.window_samples = self.total if self.resident else memory_samples // 2
        largest = max(self.sizes)
        if largest > self.window_samples:
            raise ValueError(f"a memory bound of {memory_samples} samples cannot stream chunks of {largest} "
                             f"samples (two windows of at least one chunk each): give at least {2 * largest}")
        self._read = _once(read) if self.resident else read
        self._lock = threading.Lock()
        self._windows: dict[tuple[int, int, int], Future[tuple[Samples, np.ndarray]]] = {}
        self._passes: dict[tuple[int, int], _Pass] = {}
        digest = hashlib.sha256(f"{self.window_samples}\n".encode())
        for name, size in zip(names, self.sizes):
            digest.update(f"{name}:{size}\n".encode())
        self.fingerprint = digest.hexdigest()[:16]

    @classmethod
    def from_chunks(cls, paths: Sequence[str | os.PathLike[str]], expect: ChunkInfo | None = None,
                    memory_samples: int = MEMORY_SAMPLES) -> SampleStream:
        """The chunks at ``paths`` (files or folders, :func:`~training.chunks.list_chunks`), every one checked
        by its headers now (:func:`~training.chunks.check_chunks`: all must fit ``expect``, or the first)."""
        files = list_chunks(paths)
        if not files:
            raise ChunkFormatError(f"no chunks found in {', '.join(map(str, paths))}")
        infos = check_chunks(files, expect)

        def read(indices: Sequence[int]) -> Samples:
            return read_chunks([files[i] for i in indices], [infos[i] for i in indices])

        names = [f"{path.parent.name}/{path.name}" for path in files]   # the same on any machine
        first = replace(infos[0], komi=shared_komi(info.komi for info in infos))
        return cls(first, [info.samples for info in infos], read, memory_samples, names)

    @classmethod
    def from_samples(cls, samples: Samples) -> SampleStream:
        """Samples already in memory, as one window."""
        return cls(samples.info, [len(samples)], lambda _indices: samples, len(samples), ["in-memory"])

    def __len__(self) -> int:
        return self.total

    def passes(self, positions: int) -> float:
        """How many passes over the set the first ``positions`` positions of the draw order make."""
        return positions / self.total

    def describe(self) -> str:
        if self.resident:
            return f"{self.total} samples in memory"
        return (f"{self.total} samples of {len(self.sizes)} chunks, streamed in windows of up to "
                f"{self.window_samples} samples")

    def prepare(self, seed: int, position: int) -> None:
        """Read the window of ``position`` in the draw order of ``seed`` now (and start reading the next), so that
        the first batch drawn from there does not wait for it; a bad chunk in it is raised here."""
        self._window(seed, *self._locate(seed, position)[:2])

    def batch_at(self, seed: int, start: int, count: int) -> tuple[np.ndarray, ...]:
        """The samples at positions ``start`` to ``start + count - 1`` of the draw order of ``seed``,
        unpacked as :meth:`Samples.batch_at` unpacks them."""
        pieces = []
        position, end = start, start + count
        while position < end:
            number, w, within, left = self._locate(seed, position)
            taken = min(end - position, left)
            samples, order = self._window(seed, number, w)
            pieces.append(samples.batch_at(order[within:within + taken]))
            position += taken
        if len(pieces) == 1:
            return pieces[0]
        return tuple(np.concatenate(arrays) for arrays in zip(*pieces))

    # ----------------------------------------------------------------- layout
    def _locate(self, seed: int, position: int) -> tuple[int, int, int, int]:
        """Where ``position`` falls: its pass, its window, its place in the window and the samples left there."""
        number, offset = divmod(position, self.total)
        starts = self._pass(seed, number).starts
        w = bisect.bisect_right(starts, offset) - 1
        return number, w, offset - starts[w], starts[w + 1] - offset

    def _pass(self, seed: int, number: int) -> _Pass:
        key = (seed, number)
        with self._lock:
            if key not in self._passes:
                if len(self._passes) > 2:
                    self._passes.pop(next(iter(self._passes)))
                self._passes[key] = self._cut(seed, number)
            return self._passes[key]

    def _cut(self, seed: int, number: int) -> _Pass:
        if self.resident:
            return _Pass((tuple(range(len(self.sizes))),), (0, self.total))
        windows: list[tuple[int, ...]] = []
        starts, current, filled, position = [0], [], 0, 0
        for index in np.random.default_rng([seed, number]).permutation(len(self.sizes)).tolist():
            if current and filled + self.sizes[index] > self.window_samples:
                windows.append(tuple(current))
                starts.append(position)
                current, filled = [], 0
            current.append(index)
            filled += self.sizes[index]
            position += self.sizes[index]
        windows.append(tuple(current))
        starts.append(position)
        return _Pass(tuple(windows), tuple(starts))

    # ---------------------------------------------------------------- windows
    def _window(self, seed: int, number: int, w: int) -> tuple[Samples, np.ndarray]:
        """Window ``w`` of pass ``number`` and its order; keeps it and the next (read ahead), drops the rest."""
        key = (seed, number, w)
        following = (seed, number, w + 1) if w + 1 < len(self._pass(seed, number).windows) else (seed, number + 1, 0)
        with self._lock:
            for old in [k for k in self._windows if k not in (key, following)]:
                del self._windows[old]
            for wanted in (key, following):
                if wanted not in self._windows:
                    self._windows[wanted] = self._start(wanted)
            future = self._windows[key]
        return future.result()

    def _start(self, key: tuple[int, int, int]) -> Future[tuple[Samples, np.ndarray]]:
        """Read a window in a daemon thread (the lock is held; the thread takes it only through _pass)."""
        seed, number, w = key
        future: Future[tuple[Samples, np.ndarray]] = Future()

        def run() -> None:
            try:
                samples = self._read(self._pass(seed, number).windows[w])
                rng = np.random.default_rng([seed, number] if self.resident else [seed, number, w])
                future.set_result((samples, rng.permutation(len(samples))))
            except BaseException as error:   # raised by the batch_at that needs the window
                future.set_exception(error)

        threading.Thread(target=run, name="chunk-window", daemon=True).start()
        return future


def _once(read: Callable[[Sequence[int]], Samples]) -> Callable[[Sequence[int]], Samples]:
    """``read`` remembered after its first success: one read of a set held in memory serves every pass."""
    lock = threading.Lock()
    kept: list[Samples] = []

    def once(indices: Sequence[int]) -> Samples:
        with lock:
            if not kept:
                kept.append(read(indices))
            return kept[0]

    return once
