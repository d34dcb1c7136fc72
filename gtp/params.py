"""KataGo's runtime parameters (``kata-get-param``, ``kata-set-param``, ``kata-list-params``) as one table onto the
front end's configuration.

Each :class:`Param` names the :class:`~gtp.state.FrontEndConfig` fields it sets, as attribute paths, and reads
its value from text; adding a parameter is one line of :data:`PARAMS`. :func:`apply` builds the whole new
configuration before anything changes, so a change is all or nothing, and the engine state then plays on
under it (:meth:`~gtp.state.EngineState.reconfigure`): the next search uses it.

=====================  ======================================================  =========================
parameter              what it sets                                            value
=====================  ======================================================  =========================
``maxVisits``          root visits a search stops at                           1 to 2^50
``maxPlayouts``        new simulations a search stops at                       1 to 2^50
``maxTime``            seconds a move takes at most (with or without a clock)  above 0
``numSearchThreads``   leaves a search gathers per network call                1 to 4096
``ponderingEnabled``   search on the opponent's time after the engine's move   ``true`` / ``false``
``resignThreshold``    root value below which the engine resigns               -1 to 0
``resignConsecTurns``  own moves in a row below it before resigning            1 to 100
``komiCorrection``     value positions at the game's komi (the engine's own)   ``true`` / ``false``
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


@dataclass(frozen=True)
class _Whole:
    """A whole number from ``low`` to ``high``."""

    low: int
    high: int

    def __call__(self, text: str) -> int:
        value = int(text)
        if not self.low <= value <= self.high:
            raise ValueError(text)
        return value

    def __str__(self) -> str:
        return f"a whole number from {self.low} to {self.high}"


@dataclass(frozen=True)
class _Number:
    """A finite number from ``low`` to ``high``, ``low`` itself excluded where ``open_low``."""

    low: float
    high: float
    open_low: bool = False

    def __call__(self, text: str) -> float:
        value = float(text)
        above_low = self.low < value if self.open_low else self.low <= value
        if not (math.isfinite(value) and above_low and value <= self.high):
            raise ValueError(text)
        return value

    def __str__(self) -> str:
        low = f"above {self.low:.10g}" if self.open_low else f"from {self.low:.10g}"
        return f"a number {low} to {self.high:.10g}"


class _Boolean:
    def __call__(self, text: str) -> bool:
        if text.lower() not in ("true", "false"):
            raise ValueError(text)
        return text.lower() == "true"

    def __str__(self) -> str:
        return "true or false"


MAX_VISITS = 2 ** 50
"""The most visits or playouts a search may be given (KataGo's bound)."""
MAX_SECONDS = 2 ** 31 - 1
MAX_THREADS = 4096


@dataclass(frozen=True)
class Param:
    """A KataGo parameter: its name, the config fields it sets (attribute paths from FrontEndConfig; it reads
    back the first that is set, None if none is) and how its value is read from text."""

    name: str
    fields: tuple[tuple[str, ...], ...]
    parse: Callable[[str], Any]   # raises ValueError; its str() says what it takes

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
            raise ParamError(f"Could not set params: {self.name} must be {self.parse}, not {text!r}") from None


PARAMS: dict[str, Param] = {param.name: param for param in (
    Param("maxVisits", (("player", "visits"),), _Whole(1, MAX_VISITS)),
    Param("maxPlayouts", (("player", "playouts"),), _Whole(1, MAX_VISITS)),
    Param("maxTime", (("player", "seconds"), ("move_seconds",)), _Number(0, MAX_SECONDS, open_low=True)),
    Param("numSearchThreads", (("player", "search", "batch_size"),), _Whole(1, MAX_THREADS)),
    Param("ponderingEnabled", (("ponder",),), _Boolean()),
    Param("resignThreshold", (("player", "resign_threshold"),), _Number(-1, 0)),
    Param("resignConsecTurns", (("player", "resign_consecutive"),), _Whole(1, 100)),
    Param("komiCorrection", (("player", "search", "komi_correction"),), _Boolean()),
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
