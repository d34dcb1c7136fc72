"""KataGo's runtime parameters (``kata-get-param``, ``kata-set-param``, ``kata-list-params``) as one table onto the
front end's configuration.

Each :class:`Param` names the :class:`~gtp.state.FrontEndConfig` fields it sets, as attribute paths, and reads
its value from text; adding a parameter is one line of :data:`PARAMS`. :func:`apply` builds the whole new
configuration before anything changes, so a change is all or nothing, and the engine state then plays on
under it (:meth:`~gtp.state.EngineState.reconfigure`): the next search uses it.

=====================  ======================================================  =========================
parameter              what it sets                                            value
=====================  ======================================================  =========================
``maxVisits``          root visits a search stops at                           whole number >= 1
``maxPlayouts``        new simulations a search stops at                       whole number >= 1
``maxTime``            seconds a move takes at most (with or without a clock)  number > 0
``numSearchThreads``   leaves a search gathers per network call                whole number >= 1
``ponderingEnabled``   search on the opponent's time after the engine's move   ``true`` / ``false``
``resignThreshold``    root value (-1..0) below which the engine resigns       number in [-1, 0]
``resignConsecTurns``  own moves in a row below it before resigning            whole number >= 1
=====================  ======================================================  =========================
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from gtp.state import FrontEndConfig

__all__ = ["Param", "PARAMS", "ParamError", "apply", "value_text"]


class ParamError(ValueError):
    """A parameter that does not exist or a value it cannot take; the message says which, in KataGo's words."""


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and value > 0):
        raise ValueError
    return value


def _boolean(text: str) -> bool:
    if text.lower() not in ("true", "false"):
        raise ValueError
    return text.lower() == "true"


def _resign_value(text: str) -> float:
    value = float(text)
    if not -1.0 <= value <= 0.0:
        raise ValueError
    return value


_KINDS: dict[Callable[[str], Any], str] = {_count: "a whole number >= 1", _seconds: "a number of seconds > 0",
                                           _boolean: "true or false", _resign_value: "a number from -1 to 0"}


@dataclass(frozen=True)
class Param:
    """A KataGo parameter: its name, the config fields it sets (attribute paths from FrontEndConfig; it reads
    back the first that is set, None if none is) and how its value is read from text."""

    name: str
    fields: tuple[tuple[str, ...], ...]
    parse: Callable[[str], Any]

    def get(self, config: FrontEndConfig) -> Any:
        for path in self.fields:
            value: Any = config
            for name in path:
                value = getattr(value, name)
            if value is not None:
                return value
        return None

    def read(self, text: str) -> Any:
        try:
            return self.parse(text)
        except ValueError:
            raise ParamError(f"Could not set params: {self.name} must be {_KINDS[self.parse]}, not {text!r}") from None


PARAMS: dict[str, Param] = {param.name: param for param in (
    Param("maxVisits", (("player", "visits"),), _count),
    Param("maxPlayouts", (("player", "playouts"),), _count),
    Param("maxTime", (("player", "seconds"), ("move_seconds",)), _seconds),
    Param("numSearchThreads", (("player", "search", "batch_size"),), _count),
    Param("ponderingEnabled", (("ponder",),), _boolean),
    Param("resignThreshold", (("player", "resign_threshold"),), _resign_value),
    Param("resignConsecTurns", (("player", "resign_consecutive"),), _count),
)}


def _set(config: Any, path: tuple[str, ...], value: Any) -> Any:
    """``config`` with the field at ``path`` set to ``value`` (frozen dataclasses, replaced level by level)."""
    head, *rest = path
    return replace(config, **{head: _set(getattr(config, head), tuple(rest), value) if rest else value})


def value_text(value: Any) -> str:
    """A parameter's value as KataGo writes it (JSON: ``800``, ``1.5``, ``true``, ``null``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def apply(config: FrontEndConfig, settings: Mapping[str, str]) -> FrontEndConfig:
    """``config`` with every parameter of ``settings`` (name to value text) set; ParamError, and nothing changed,
    if any name or value is bad."""
    for name, text in settings.items():
        param = PARAMS.get(name)
        if param is None:
            raise ParamError(f"Could not set params: Unrecognized or non-overridable parameter in kata-set-params: "
                             f"{name}")
        value = param.read(text)
        for path in param.fields:
            config = _set(config, path, value)
    return config
