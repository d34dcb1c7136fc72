"""The kernel cache is stamped with every kernel source, subpackages included, so no edit runs stale code."""

from __future__ import annotations

from pathlib import Path

import numba
import pytest

from engine.core.jit import kernel_fingerprint

KERNEL = "from engine.core.jit import njit\n\n\n@njit(cache=True)\ndef f(x):\n    return x + {}\n"


def _tree(root: Path) -> Path:
    nested = root / "package" / "sub" / "deeper"
    nested.mkdir(parents=True)
    (nested / "kernels.py").write_text(KERNEL.format(1))
    (root / "package" / "plain.py").write_text("VALUE = 1\n")
    return nested / "kernels.py"


def test_the_fingerprint_sees_kernels_in_nested_subpackages(tmp_path: Path) -> None:
    kernels = _tree(tmp_path)
    before = kernel_fingerprint([tmp_path / "package"])
    kernels.write_text(KERNEL.format(2))
    assert kernel_fingerprint([tmp_path / "package"]) != before


def test_modules_without_kernels_do_not_change_the_fingerprint(tmp_path: Path) -> None:
    _tree(tmp_path)
    before = kernel_fingerprint([tmp_path / "package"])
    (tmp_path / "package" / "plain.py").write_text("VALUE = 2\n")
    assert kernel_fingerprint([tmp_path / "package"]) == before


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="plain Python has no kernel cache")
def test_every_cached_kernel_is_stamped_with_all_kernel_sources() -> None:
    from engine.core.board import put_stone
    from engine.core.gomoku import renju_forbidden  # compiled at import from an explicit signature
    from engine.search.tree import reset_tree

    for kernel in (put_stone, renju_forbidden, reset_tree):
        assert kernel._cache._impl.locator.get_source_stamp() == kernel_fingerprint()
