"""Where the engine keeps what it derives once per user and reuses in later processes.

Converted Leela Zero networks (:mod:`engine.nn.leela`) and networks compiled ahead of time
(:mod:`engine.nn.precompiled`) live in ``$XDG_CACHE_HOME/engine`` (``~/.cache/engine`` by default), one
folder each. Numba's kernel cache has its own rules (:mod:`engine.core.jit`).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["user_cache_dir"]


def user_cache_dir(name: str, cache_home: str | os.PathLike[str] | None = None) -> Path:
    """``CACHE_HOME/engine/NAME``, where ``cache_home`` defaults to ``$XDG_CACHE_HOME`` (``~/.cache`` when that is
    unset); not created here."""
    root = cache_home or os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(root) / "engine" / name
