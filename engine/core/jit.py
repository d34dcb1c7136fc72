"""Compiled kernels: numba's ``njit`` with an on-disk cache that never goes stale.

Numba checks a cached kernel only against its own source file, not the files
of the kernels it calls, so an edit to ``engine/core/go.py`` would leave the
cached search kernels running the old Go code. Kernels therefore import
``njit`` from here: with ``cache=True`` their cache is stamped with one
fingerprint of every kernel module's source (every ``.py`` under ``engine/``
and ``encoders/``, subpackages included, that imports this ``njit``), so a
change to any of them makes every cached kernel miss and recompile. Stale
entries are never read and are overwritten in place; nothing is deleted and no
numba setting is touched. ``NUMBA_DISABLE_JIT=1`` still turns every kernel
into plain Python.

Where the cache lives, first that works: ``NUMBA_CACHE_DIR`` when it is set
(numba's own setting; ``engine bench startup`` points it at an empty folder
for a cold start), ``__pycache__`` beside each kernel module, else the user's
cache directory (``~/.cache/numba`` or ``$XDG_CACHE_HOME/numba``), so that a
system-wide, read-only install still compiles each kernel only once.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numba
from numba.core import typeinfer
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    InTreeCacheLocator,
    UserProvidedCacheLocator,
    UserWideCacheLocator,
)

__all__ = ["njit", "kernel_fingerprint", "KERNEL_ROOTS"]


def _import_without(module: str, library: str) -> None:
    """Import numba's ``module`` now with ``library`` unimportable, unless either is loaded already (then numba
    finds ``library`` at no cost) or kernels are plain Python."""
    if module in sys.modules or library in sys.modules or numba.config.DISABLE_JIT:
        return
    sys.modules[library] = None   # type: ignore[assignment]  # an import of it raises ImportError at once
    try:
        importlib.import_module(module)
    finally:
        del sys.modules[library]


def _load_numba_support_without_unused_libraries() -> None:
    """Load two parts of numba now, telling them that a library no kernel here uses is not there.

    numba loads its array functions with the first kernel it compiles or loads from its cache, and checks for a
    BLAS for ``np.dot`` by importing ``scipy.linalg`` (a kernel that used ``np.dot`` would fail to compile,
    saying that it needs SciPy). Typing a value it has no rule for, it loads its CFFI support, which imports
    ``cffi`` and ``pycparser`` and builds a parser (a kernel could not call a CFFI function). Both cost every
    start time for nothing (docs/benchmarks.md, *Startup*); both libraries stay importable for anything else in
    the process.
    """
    _import_without("numba.np.arraymath", "scipy.linalg.cython_blas")
    _import_without("numba.core.typing.cffi_utils", "cffi")


_load_numba_support_without_unused_libraries()

_REPO = Path(__file__).resolve().parents[2]
KERNEL_ROOTS = (_REPO / "engine", _REPO / "encoders")
_MARKER = b"from engine.core.jit import njit"


def kernel_fingerprint(roots: Iterable[Path] = KERNEL_ROOTS) -> str:
    """A hash of every module under ``roots`` (recursively) that defines kernels with this ``njit``."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(Path(root).rglob("*.py")):
            source = path.read_bytes()
            if _MARKER in source:
                digest.update(path.relative_to(root).as_posix().encode())
                digest.update(source)
    return digest.hexdigest()


@functools.cache
def _fingerprint() -> str:
    return kernel_fingerprint()


class _StampedByAllKernels:
    """A cache locator whose freshness stamp is the fingerprint of all kernel sources, not one file's."""

    def get_source_stamp(self) -> str:
        return _fingerprint()


class _UserProvidedLocator(_StampedByAllKernels, UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR``, when it is set."""


class _InTreeLocator(_StampedByAllKernels, InTreeCacheLocator):
    """``__pycache__`` beside the module, as numba's default."""


class _UserWideLocator(_StampedByAllKernels, UserWideCacheLocator):
    """The user's cache directory, for a read-only install."""


class _KernelCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_UserProvidedLocator, _InTreeLocator, _UserWideLocator]


class _KernelCache(FunctionCache):
    _impl_class = _KernelCacheImpl


def njit(*signatures: Any, cache: bool = False, **options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(*signatures, cache=cache, **options)``, the cache stamped by every kernel source.

    Used only as a decorator factory: ``@njit(cache=True)`` or ``@njit("sig", cache=True)``.
    Explicit signatures (a recursive kernel needs one to be cached) compile on the kernel's first use,
    from Python or from a kernel being compiled, not at import as numba's own decorator does: a
    process that never plays the game never pays for them.
    """

    def decorate(func: Callable[..., Any]) -> Any:
        if numba.config.DISABLE_JIT or not cache:
            return numba.njit(*signatures, cache=False, **options)(func)
        dispatcher = numba.njit(**options)(func)
        dispatcher._cache = _KernelCache(func)   # what Dispatcher.enable_caching does, with our locator
        if signatures:
            _compile_on_first_use(dispatcher, signatures)
        return dispatcher

    return decorate


def _compile_on_first_use(dispatcher: Any, signatures: tuple[Any, ...]) -> None:
    """Make ``dispatcher`` compile exactly ``signatures`` (and nothing else) when first called or typed."""
    typed_by_kernel, called_from_python = dispatcher.get_call_template, dispatcher._compile_for_args
    started = False

    def compile_declared() -> None:
        nonlocal started
        if started:   # the recursive call inside the kernel, typed while it compiles
            return
        started = True
        with typeinfer.register_dispatcher(dispatcher):   # lets a recursive kernel name itself
            for signature in signatures:
                dispatcher.compile(signature)
        dispatcher.disable_compile()

    def get_call_template(args: Any, kws: Any) -> Any:
        compile_declared()
        return typed_by_kernel(args, kws)

    def compile_for_args(*args: Any, **kws: Any) -> Any:
        compile_declared()
        return called_from_python(*args, **kws)

    dispatcher.get_call_template = get_call_template
    dispatcher._compile_for_args = compile_for_args
