"""Compiled kernels: numba's ``njit`` with an on-disk cache that never goes stale.

Numba re-checks a cached kernel only against its own source file, not the
files of the kernels it calls, so editing ``engine/go.py`` would leave the
cached search kernels running the old Go code. On first import this module
fingerprints the source of every module that defines kernels and, when the
fingerprint changed, drops all cached kernels of those packages. Kernel
modules import ``njit`` from here (``NUMBA_DISABLE_JIT=1`` still turns every
kernel into plain Python).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba import njit

__all__ = ["njit"]

_ROOT = Path(__file__).resolve().parent.parent
_KERNEL_PACKAGES = ("engine", "encoders")
_STAMP = "numba-sources.sha256"


def _fingerprint() -> str:
    """A hash of every module that defines kernels (those that import ``njit`` from here)."""
    digest = hashlib.sha256()
    for package in _KERNEL_PACKAGES:
        for path in sorted((_ROOT / package).glob("*.py")):
            source = path.read_bytes()
            if b"from engine.jit import njit" in source:
                digest.update(path.name.encode())
                digest.update(source)
    return digest.hexdigest()


def _drop_stale_cache() -> None:
    fingerprint = _fingerprint()
    for package in _KERNEL_PACKAGES:
        cache = _ROOT / package / "__pycache__"
        stamp = cache / _STAMP
        try:
            if stamp.read_text() == fingerprint:
                continue
        except OSError:
            pass
        try:
            cache.mkdir(exist_ok=True)
            for stale in [*cache.glob("*.nbi"), *cache.glob("*.nbc")]:
                stale.unlink(missing_ok=True)
            temporary = cache / f"{_STAMP}.{os.getpid()}"
            temporary.write_text(fingerprint)
            os.replace(temporary, stamp)
        except OSError:
            pass  # a read-only install: numba then compiles in memory


_drop_stale_cache()
