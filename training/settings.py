"""Nested frozen configs by dotted path: how commands set one field deep inside, and how run files load.

The configs nest rather than copy (a self-play config holds a
:class:`~engine.search.config.PlayerConfig`, which holds a
:class:`~engine.search.config.SearchConfig`), so a setting has one home, named by
its path: ``replace_paths(config, {"player.search.batch_size": 8})``. The paths
come from the dataclasses' own fields; a path that names no field is a
ValueError, so a command cannot set a field that does not exist.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

__all__ = ["replace_paths", "from_dict"]

_Config = TypeVar("_Config")


def replace_paths(config: _Config, changes: Mapping[str, Any]) -> _Config:
    """``config`` with each dotted path of ``changes`` set to its value (``"selfplay.player.visits"``)."""
    top: dict[str, Any] = {}
    nested: dict[str, dict[str, Any]] = {}
    names = {item.name for item in dataclasses.fields(config)}  # type: ignore[arg-type]
    for path, value in changes.items():
        head, _, rest = path.partition(".")
        if head not in names:
            raise ValueError(f"{type(config).__name__} has no setting {head!r} (in {path!r})")
        if rest:
            nested.setdefault(head, {})[rest] = value
        else:
            top[head] = value
    for head, inner in nested.items():
        top[head] = replace_paths(top.get(head, getattr(config, head)), inner)
    return dataclasses.replace(config, **top)  # type: ignore[type-var]


def from_dict(kind: type[_Config], data: Mapping[str, Any]) -> _Config:
    """A ``kind`` from its :func:`dataclasses.asdict` form (JSON), nested configs included.

    Fields missing from ``data`` keep their defaults; an unknown one is a ValueError.
    """
    hints = typing.get_type_hints(kind)
    names = {item.name for item in dataclasses.fields(kind)}  # type: ignore[arg-type]
    unknown = set(data) - names
    if unknown:
        raise ValueError(f"unknown {kind.__name__} settings: {', '.join(sorted(unknown))}")
    for name, value in data.items():
        _check_scalar(kind, name, hints[name], value)
    values = {name: from_dict(hints[name], value) if dataclasses.is_dataclass(hints[name]) else value
              for name, value in data.items()}
    return kind(**values)


_SCALARS = (bool, int, float, str, type(None))


def _check_scalar(kind: type, name: str, hint: Any, value: Any) -> None:
    """ValueError for a value that is not of its field's type, where that type is a number, a string, a bool or
    None (a run file from elsewhere must not reach the loop as a string where a count belongs); containers and
    nested configs are checked by their constructors."""
    allowed = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    if not all(option in _SCALARS for option in allowed):
        return
    fits = any(type(value) is option or (option is float and type(value) is int) for option in allowed)
    if not fits:
        names = " or ".join("None" if option is type(None) else option.__name__ for option in allowed)
        raise ValueError(f"{kind.__name__} setting {name} is {value!r}, not {names}")
