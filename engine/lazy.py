"""Package attributes imported on first use, so importing a package stays cheap (``engine --help``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, homes: dict[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``homes[name]`` (a module path) when ``name`` is first used."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(home), name)

    return __getattr__
