"""KataGo's analysis configuration, mapped onto the engine's settings.

``engine analysis -config FILE`` reads KataGo's ``key = value`` format (``#``
starts a comment); ``-override-config "k1=v1,k2=v2"`` and a query's
``overrideSettings`` change keys on top of it. The keys that have a meaning
here set :class:`AnalysisConfig`; any other key is reported back to the caller
(the command warns once on stderr, a query gets KataGo's warning line).

=========================  ===============================================================
key                        what it sets
=========================  ===============================================================
maxVisits                  ``AnalysisConfig.visits``: root visits per analysed position
maxPlayouts                new simulations per analysed position
maxTime                    seconds per analysed position
numSearchThreads           leaves a search gathers per step (``SearchConfig.batch_size``)
numAnalysisThreads         positions searched at once (``-analysis-threads``)
nnMaxBatchSize             positions per network call: fewer searches run at once if needed
reportAnalysisWinratesAs   BLACK, WHITE or SIDETOMOVE (default): whose view values take
wideRootNoise              widens the root priors to ``prior ** (1 / (4 * w + 1))``
rootPolicyTemperature      widens (> 1) or sharpens the root priors
analysisPVLen              moves of a ``pv`` after its first (default 15)
cpuctExploration           ``SearchConfig.c_puct``
fpuReductionMax            ``SearchConfig.fpu_reduction``
rootFpuReductionMax        ``SearchConfig.root_fpu_reduction``
nnCacheSizePowerOfTwo      network cache entries, ``2 ** n`` (at most ``2 ** 16``; -1: none)
nnRandomize                a random board symmetry per network evaluation
rules                      the rules of a query that gives none
humanSLProfile             play a level: the nearest to the profile's rank (:func:`profile_level`)
warnUnusedFields           warn about query fields that mean nothing here (default true)
=========================  ===============================================================
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from engine import (
    FULL_STRENGTH,
    EngineError,
    EvaluatorOptions,
    Level,
    SearchConfig,
    level_named,
    nearest_level,
    rank_value,
)

__all__ = ["AnalysisConfig", "ConfigError", "PERSPECTIVES", "read_config", "parse_overrides", "apply_settings",
           "profile_level"]

PERSPECTIVES = ("BLACK", "WHITE", "SIDETOMOVE")
MAX_CACHE_POWER = 16
"""A cache entry holds every head's row, and the cache commits all its memory at its first store: 2**16 19x19
entries take about 200 MB and half a second to write; 2**20 (KaTrain's setting) would take 3 GB and stall the
first query of a session for many seconds, more than its ``maxTime``."""


class ConfigError(EngineError, ValueError):
    """A config file, override or setting that cannot be read; the message names the key."""


@dataclass(frozen=True)
class AnalysisConfig:
    """How the analysis engine searches and reports (see the module docstring for the keys behind each field)."""

    visits: int | None = 800
    playouts: int | None = None
    seconds: float | None = None
    analysis_threads: int = 2
    max_batch: int | None = None
    perspective: str = "SIDETOMOVE"
    wide_root_noise: float = 0.0
    root_temperature: float = 1.0
    pv_len: int = 15
    rules: str | None = None
    human_profile: str | None = None
    warn_unused_fields: bool = True
    search: SearchConfig = field(default_factory=SearchConfig)
    evaluator: EvaluatorOptions = field(default_factory=EvaluatorOptions)

    @property
    def concurrent(self) -> int:
        """Searches stepped at once: the analysis threads, fewer if their leaves would overflow a network batch."""
        if self.max_batch is None:
            return self.analysis_threads
        return max(1, min(self.analysis_threads, self.max_batch // self.search.batch_size))

    @property
    def human_level(self) -> Level | None:
        """The level that plays for ``humanSLProfile`` (None: none was asked for)."""
        return None if self.human_profile is None else profile_level(self.human_profile)

    @property
    def root_policy_temperature(self) -> float:
        """The temperature of the root's priors: ``rootPolicyTemperature`` times the widening of ``wideRootNoise``."""
        return self.root_temperature * (4 * self.wide_root_noise + 1)


def _int(low: int, high: int | None = None) -> Callable[[str, str], int]:
    def parse(key: str, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ConfigError(f"{key}: expected an integer, not {text!r}") from None
        if value < low or (high is not None and value > high):
            raise ConfigError(f"{key}: must be from {low} to {high}" if high is not None else
                              f"{key}: must be at least {low}")
        return value
    return parse


def _float(low: float, strict: bool = False) -> Callable[[str, str], float]:
    def parse(key: str, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise ConfigError(f"{key}: expected a number, not {text!r}") from None
        if not value < float("inf") or value < low or (strict and value == low):
            raise ConfigError(f"{key}: must be a finite number {'above' if strict else 'of at least'} {low:g}")
        return value
    return parse


def _bool(key: str, text: str) -> bool:
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise ConfigError(f"{key}: expected true or false, not {text!r}")


def _perspective(key: str, text: str) -> str:
    value = text.upper()
    if value not in PERSPECTIVES:
        raise ConfigError(f"{key}: expected one of {', '.join(PERSPECTIVES)}, not {text!r}")
    return value


def profile_level(profile: str) -> Level:
    """The level nearest a KataGo ``humanSLProfile``: ``rank_<rank>`` and ``preaz_<rank>`` (``rank_5k``,
    ``preaz_3d``) by their rank, ``proyear_<year>`` (a professional of that year) at full strength. There is
    no human model here: the engine's levels stand in for it. ConfigError for another profile."""
    style, _, rest = profile.strip().lower().partition("_")
    try:
        if style in ("rank", "preaz"):
            return nearest_level(rank_value(rest))
        if style == "proyear" and rest.isdigit():
            return level_named(FULL_STRENGTH)
    except ValueError:
        pass
    raise ConfigError(f"humanSLProfile: expected rank_<rank>, preaz_<rank> (e.g. rank_5k, preaz_3d) or "
                      f"proyear_<year>, not {profile!r}")


def _profile(key: str, text: str) -> str:
    profile_level(text)
    return text


def _cache_entries(key: str, text: str) -> int:
    power = _int(-1, 48)(key, text)
    return 0 if power < 0 else 1 << min(power, MAX_CACHE_POWER)


def _own(name: str, parse: Callable[[str, str], object]) -> Callable[[AnalysisConfig, str, str], AnalysisConfig]:
    return lambda config, key, text: replace(config, **{name: parse(key, text)})


def _search(name: str, parse: Callable[[str, str], object]) -> Callable[[AnalysisConfig, str, str], AnalysisConfig]:
    return lambda config, key, text: replace(config, search=replace(config.search, **{name: parse(key, text)}))


def _network(name: str, parse: Callable[[str, str], object]) -> Callable[[AnalysisConfig, str, str], AnalysisConfig]:
    return lambda config, key, text: replace(config, evaluator=replace(config.evaluator, **{name: parse(key, text)}))


_KEYS: dict[str, Callable[[AnalysisConfig, str, str], AnalysisConfig]] = {
    "maxVisits": _own("visits", _int(1)),
    "maxPlayouts": _own("playouts", _int(1)),
    "maxTime": _own("seconds", _float(0.0, strict=True)),
    "numSearchThreads": _search("batch_size", _int(1, 1024)),
    "numAnalysisThreads": _own("analysis_threads", _int(1, 16384)),
    "nnMaxBatchSize": _own("max_batch", _int(1)),
    "reportAnalysisWinratesAs": _own("perspective", _perspective),
    "wideRootNoise": _own("wide_root_noise", _float(0.0)),
    "rootPolicyTemperature": _own("root_temperature", _float(0.0, strict=True)),
    "analysisPVLen": _own("pv_len", _int(1, 1000)),
    "cpuctExploration": _search("c_puct", _float(0.0, strict=True)),
    "fpuReductionMax": _search("fpu_reduction", _float(0.0)),
    "rootFpuReductionMax": _search("root_fpu_reduction", _float(0.0)),
    "nnCacheSizePowerOfTwo": _network("cache_size", _cache_entries),
    "nnRandomize": _network("random_symmetry", _bool),
    "rules": _own("rules", lambda key, text: text),
    "humanSLProfile": _own("human_profile", _profile),
    "warnUnusedFields": _own("warn_unused_fields", _bool),
}


def apply_settings(config: AnalysisConfig, settings: Mapping[str, str]) -> tuple[AnalysisConfig, list[str]]:
    """``config`` with the known keys of ``settings`` applied, and the keys that mean nothing here.

    Raises :class:`ConfigError` naming the key for a value that does not fit it.
    """
    unknown = []
    for key, text in settings.items():
        if key in _KEYS:
            config = _KEYS[key](config, key, text.strip())
        else:
            unknown.append(key)
    return config, unknown


def read_config(path: str | Path) -> dict[str, str]:
    """The ``key = value`` lines of a KataGo config file (later lines win); ConfigError for any other line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    settings: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        if line.startswith("@") or not sep or not key.strip():
            raise ConfigError(f"{path}:{number}: expected 'key = value', not {line!r}"
                              + (" (@include is not supported)" if line.startswith("@include") else ""))
        settings[key.strip()] = value.strip()
    return settings


def parse_overrides(text: str) -> dict[str, str]:
    """``-override-config "k1=v1,k2=v2"`` as a dict (ConfigError for an entry without ``=``)."""
    settings: dict[str, str] = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = entry.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"-override-config: expected key=value, not {entry!r}")
        settings[key.strip()] = value.strip()
    return settings
