"""The evaluation cache's row store (``RowCache``): the same answers and evictions as a dictionary of row
copies in least-recently-used order, over random batches with repeated keys and a capacity below a batch."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

from engine.nn.cached_evaluator import RowCache
from engine.nn.config import NetOutput


def _outputs(rng: np.random.Generator, batch: int, points: int, aux: bool) -> NetOutput[np.ndarray]:
    return NetOutput(rng.random((batch, points + 1), dtype=np.float32), rng.random(batch, dtype=np.float32),
                     rng.random((batch, points), dtype=np.float32) if aux else None,
                     rng.random(batch, dtype=np.float32) if aux else None, None)


def _empty(batch: int, points: int, aux: bool) -> NetOutput[np.ndarray]:
    return NetOutput(np.full((batch, points + 1), np.nan, np.float32), np.full(batch, np.nan, np.float32),
                     np.full((batch, points), np.nan, np.float32) if aux else None,
                     np.full(batch, np.nan, np.float32) if aux else None, None)


@pytest.mark.parametrize("capacity, aux", [(3, False), (50, True), (700, True)])
def test_the_row_cache_answers_and_evicts_as_a_dictionary_of_rows_would(capacity: int, aux: bool) -> None:
    rng = np.random.default_rng(capacity)
    cache, reference = RowCache(capacity), OrderedDict()
    points = 25
    for _ in range(200):
        batch = int(rng.integers(1, 9))
        keys = [int(k) for k in rng.integers(0, 120, batch)]
        out = _empty(batch, points, aux)
        todo = cache.lookup(keys, out)
        expected_todo = [i for i, key in enumerate(keys) if key not in reference]
        for i, key in enumerate(keys):
            if key in reference:
                reference.move_to_end(key)
                for rows, kept in zip(out, reference[key]):
                    if rows is not None:
                        np.testing.assert_array_equal(rows[i], kept)
        assert todo == expected_todo
        fresh = _outputs(rng, len(todo), points, aux)
        cache.store([keys[i] for i in todo], fresh)
        for j, i in enumerate(todo):
            reference[keys[i]] = fresh.map(lambda rows: rows[j].copy())
            reference.move_to_end(keys[i])
            while len(reference) > capacity:
                reference.popitem(last=False)
        assert len(cache) == len(reference)


def test_another_board_size_starts_the_cache_afresh() -> None:
    rng = np.random.default_rng(0)
    cache = RowCache(10)
    cache.store([1, 2], _outputs(rng, 2, 81, True))
    cache.store([3], _outputs(rng, 1, 361, True))
    assert len(cache) == 1
    assert cache.lookup([1, 3], _empty(2, 361, True)) == [0]


def test_the_row_cache_takes_its_whole_capacity_at_the_first_store_and_no_more_as_it_fills() -> None:
    import tracemalloc

    rng = np.random.default_rng(1)
    capacity, points = 4096, 81
    batches = [_outputs(rng, 64, points, True) for _ in range(capacity // 64 + 8)]
    cache = RowCache(capacity)
    tracemalloc.start()
    try:
        cache.store(list(range(64)), batches[0])
        first, _ = tracemalloc.get_traced_memory()
        for b, batch in enumerate(batches[1:], start=1):
            cache.store(list(range(64 * b, 64 * (b + 1))), batch)
        filled, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    row_bytes = 4 * (points + 1 + 1 + points + 1)
    assert first >= capacity * row_bytes
    assert len(cache) == capacity
    assert filled - first < capacity * row_bytes / 2   # the key table (about 140 bytes an entry), no rows
