"""The kernel cache is stamped with every kernel source, subpackages included, so no edit runs stale code."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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


_KERNEL_RUN = ("from engine.core.rng import new_rng, rand_below; rand_below(new_rng(1), 10); "
               "print(rand_below.stats.cache_path); print(sum(rand_below.stats.cache_hits.values()))")


def _read_only_copy(root: Path) -> Path:
    """The engine package copied under ``root`` with no writable folder in it (nothing else is needed to compile
    a kernel). Root writes through permissions, so then a file named ``__pycache__`` also stands where numba
    would make the folder."""
    source = root / "src"
    shutil.copytree(Path(__file__).resolve().parents[3] / "engine", source / "engine",
                    ignore=shutil.ignore_patterns("__pycache__", "*.safetensors"))
    for folder in [source, *(path for path in source.rglob("*") if path.is_dir())]:
        if os.geteuid() == 0:
            (folder / "__pycache__").write_text("")
        folder.chmod(0o555)
    return source


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="plain Python has no kernel cache")
def test_a_read_only_install_caches_its_kernels_in_the_user_cache_directory(tmp_path: Path) -> None:
    source = _read_only_copy(tmp_path)
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(source), XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONDONTWRITEBYTECODE="1")
    try:
        runs = [subprocess.run([sys.executable, "-c", _KERNEL_RUN], env=env, cwd=tmp_path, capture_output=True,
                               text=True, check=True, timeout=300).stdout.split() for _ in range(2)]
    finally:
        for folder in [source, *(path for path in source.rglob("*") if path.is_dir())]:
            folder.chmod(0o755)   # so that pytest can remove it
    (first_path, first_hits), (second_path, second_hits) = runs
    assert Path(first_path).is_relative_to(tmp_path / "cache" / "numba") and first_path == second_path
    assert list(Path(first_path).glob("rng.rand_below-*.nbi")), "nothing was cached"
    assert (int(first_hits), int(second_hits)) == (0, 1), "the second start did not load the cached kernel"
    assert not list(source.rglob("*.nbi"))


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="plain Python has no kernel cache")
def test_numba_cache_dir_overrides_where_kernels_are_cached(tmp_path: Path) -> None:
    """The benchmarks' cold starts point NUMBA_CACHE_DIR at an empty folder."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "kernels"))
    path, hits = subprocess.run([sys.executable, "-c", _KERNEL_RUN], env=env, capture_output=True, text=True,
                                check=True, timeout=300).stdout.split()
    assert Path(path).is_relative_to(tmp_path / "kernels") and hits == "0"


_GO_PLAYOUTS = ("from engine import Game, Rules; from engine.core.dispatch import pack_rules; "
                "from engine.core.playout import run_playouts; from engine.core.rng import new_rng; "
                "from engine.core.go import go_play; from engine.core.gomoku import gomoku_play, renju_forbidden; "
                "from engine.core.chain_reaction import chain_reaction_play; "
                "rules = Rules.default('go', 5); p = Game(rules).position; "
                "run_playouts(p.cells, p.info, p.geo.zobrist, p.geo.width, p.geo.action_point, pack_rules(rules), 2, "
                "new_rng(1)); print(len(go_play.signatures), len(gomoku_play.signatures), "
                "len(chain_reaction_play.signatures), len(renju_forbidden.signatures))")


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="plain Python compiles nothing")
def test_a_go_playout_compiles_no_other_games_rules(tmp_path: Path) -> None:
    """The packed rules' type names the game, so a kernel compiles only the rules of the game it is given;
    the renju kernel, compiled to a declared signature, waits for its first use too."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "kernels"))
    compiled = subprocess.run([sys.executable, "-c", _GO_PLAYOUTS], env=env, capture_output=True, text=True,
                              check=True, timeout=600).stdout.split()
    assert compiled == ["1", "0", "0", "0"]


UNUSED_LIBRARIES = """
import sys
{before}
import engine.core.jit
from numba.core.typing import cffi_utils
import numba.np.arraymath
from engine import Game, Rules
Game(Rules.go(5)).legal_mask()   # a kernel loaded or compiled, and a typing of values
print(sorted(name for name in ("scipy.linalg", "cffi", "pycparser") if name in sys.modules), cffi_utils.SUPPORTED)
import cffi
print(cffi.FFI is not None)
"""


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="kernels are plain Python: numba's support is not loaded")
def test_numba_loads_without_the_libraries_no_kernel_uses() -> None:
    pytest.importorskip("cffi", reason="cffi is in the dev extra: pip install -e '.[dev]'")
    lines = subprocess.run([sys.executable, "-c", UNUSED_LIBRARIES.format(before="")], check=True,
                           capture_output=True, text=True, timeout=300).stdout.splitlines()
    assert lines == ["[] False", "True"], "neither SciPy's linear algebra nor cffi loaded; both still importable"


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="kernels are plain Python: numba's support is not loaded")
def test_numba_keeps_a_library_the_process_had_loaded() -> None:
    pytest.importorskip("cffi", reason="cffi is in the dev extra: pip install -e '.[dev]'")
    lines = subprocess.run([sys.executable, "-c", UNUSED_LIBRARIES.format(before="import cffi")], check=True,
                           capture_output=True, text=True, timeout=300).stdout.splitlines()
    assert lines[0].endswith("True"), "numba's CFFI support works where the process brought cffi"
