"""Package attributes imported on first use, so importing a package stays cheap (``engine --help``).

A package writes its public surface as plain imports under ``if TYPE_CHECKING:``, which a reader, a type
checker and an import-graph tool follow, and hands its own source to :func:`lazy_getattr`: on the first use of
a name the loader reads that block and imports the name from the module the block names. The block is the only
list of where each name lives.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_getattr", "type_checking_imports"]


def type_checking_imports(source: str) -> dict[str, str]:
    """Name -> module for every ``from MODULE import NAME`` in the top-level ``if TYPE_CHECKING:`` blocks of
    ``source`` (a package's ``__init__``). ``ast`` loads here, on a package's first lazy name, not with it."""
    import ast

    homes: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module and statement.level == 0:
                    homes.update((alias.asname or alias.name, statement.module) for alias in statement.names)
    return homes


def lazy_getattr(package: str, init_file: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` (whose ``__init__`` is ``init_file``) that imports a name of its
    ``if TYPE_CHECKING:`` block from that name's module when the name is first used."""
    homes: dict[str, str] = {}

    def __getattr__(name: str) -> Any:
        if not homes:
            with open(init_file, encoding="utf-8") as file:
                homes.update(type_checking_imports(file.read()))
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(home), name)

    return __getattr__
