"""The rules a game is played under, as one frozen value.

Go presets (ko rule, scoring, suicide) follow the common rule sets:

================  ===========  =========  ========  ====
preset            ko           scoring    suicide   komi
================  ===========  =========  ========  ====
``tromp-taylor``  positional   area       allowed   7.5
``chinese``       positional   area       illegal   7.5
``japanese``      simple       territory  illegal   6.5
``aga``           situational  area       illegal   7.5
``new-zealand``   situational  area       allowed   7.0
================  ===========  =========  ========  ====

Gomoku presets are the variants: ``freestyle`` (k or more in a row wins),
``standard`` (exactly k wins; an overline does not) and ``renju`` (black may not
make an overline, a double four or a double three; white wins with k or more).

``chain-reaction`` is Chain Reaction (:mod:`engine.core.chain_reaction`): no
options but the move cap. Every game is played on a square board; ``size=5``
and ``size=5x5`` say the same, and a rectangle is refused (the padded board,
the coordinates and the symmetries are all square).

A rules string is a preset name, optionally followed by ``key=value`` words that
override it, e.g. ``"chinese komi=6.5"``, ``"japanese size=9"``,
``"freestyle size=6 k=4"``, ``"tromp-taylor ko=situational"``, ``"chain-reaction size=5x5"``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from engine.core.checks import check_choice
from engine.core.types import RulesError

__all__ = ["Rules", "GAMES", "GO_PRESETS", "GOMOKU_PRESETS", "CHAIN_REACTION", "MAX_SIZE", "MIN_SIZES"]

CHAIN_REACTION = "chain-reaction"
GAMES = ("go", "gomoku", CHAIN_REACTION)
"""Every game the rules core plays, as ``Rules.game`` names it."""
MAX_SIZE = 25
MIN_SIZES = {"go": 2, "gomoku": 5, CHAIN_REACTION: 2}
"""The smallest board of each game."""
KO_RULES = ("simple", "positional", "situational")
SCORINGS = ("area", "territory")
VARIANTS = ("freestyle", "standard", "renju")

# preset -> (ko, scoring, suicide, komi)
GO_PRESETS: dict[str, tuple[str, str, bool, float]] = {
    "tromp-taylor": ("positional", "area", True, 7.5),
    "chinese": ("positional", "area", False, 7.5),
    "japanese": ("simple", "territory", False, 6.5),
    "aga": ("situational", "area", False, 7.5),
    "new-zealand": ("situational", "area", True, 7.0),
}
GOMOKU_PRESETS = VARIANTS
_PRESET_ALIASES = {"tt": "tromp-taylor", "korean": "japanese", "nz": "new-zealand", "exact": "standard"}


@dataclass(frozen=True)
class Rules:
    """Everything that decides which moves are legal and who won.

    Build with :meth:`go`, :meth:`gomoku`, :meth:`chain_reaction`, :meth:`default`
    or :meth:`parse`; derived defaults (komi, move cap) come from those
    constructors, never from globals. ``move_cap`` is the number of moves
    (passes included) after which the game ends and is scored (a draw outside Go).
    """

    game: str = "go"
    size: int = 19
    komi: float = 7.5
    ko: str = "positional"
    scoring: str = "area"
    suicide: bool = False
    win_length: int = 5
    variant: str = "freestyle"
    move_cap: int = 722

    def __post_init__(self) -> None:
        check_choice("game", self.game, GAMES, RulesError)
        low = MIN_SIZES[self.game]
        if not (isinstance(self.size, int) and low <= self.size <= MAX_SIZE):
            raise RulesError(f"{self.game} board size must be {low}..{MAX_SIZE}, not {self.size!r}")
        check_choice("ko rule", self.ko, KO_RULES, RulesError)
        if self.scoring not in SCORINGS:
            raise RulesError(f"unknown scoring {self.scoring!r}: expected area or territory")
        check_choice("gomoku variant", self.variant, VARIANTS, RulesError)
        if not math.isfinite(self.komi) or abs(self.komi) > 1000 or (self.komi * 2) != int(self.komi * 2):
            raise RulesError(f"komi must be a multiple of 0.5, not {self.komi!r}")
        if self.game == "gomoku" and not 3 <= self.win_length <= self.size:
            raise RulesError(f"win length must be 3..{self.size} on a {self.size}x{self.size} board")
        if self.move_cap < 1:
            raise RulesError("move cap must be positive")

    # ----------------------------------------------------------------- builders
    @classmethod
    def go(cls, size: int = 19, preset: str = "chinese", komi: float | None = None,
           move_cap: int | None = None) -> "Rules":
        """Go under a named preset; komi defaults to the preset's, the cap to 2*N*N moves."""
        name = _PRESET_ALIASES.get(preset, preset)
        if name not in GO_PRESETS:
            raise RulesError(f"unknown go rules {preset!r}: expected one of {', '.join(GO_PRESETS)}")
        ko, scoring, suicide, preset_komi = GO_PRESETS[name]
        return cls("go", size, preset_komi if komi is None else float(komi), ko, scoring, suicide,
                   move_cap=2 * size * size if move_cap is None else move_cap)

    @classmethod
    def gomoku(cls, size: int = 15, win_length: int = 5, variant: str = "freestyle") -> "Rules":
        """Gomoku on an N x N board; the game is a draw once the board is full."""
        name = _PRESET_ALIASES.get(variant, variant)
        if name not in VARIANTS:
            raise RulesError(f"unknown gomoku variant {variant!r}: expected one of {', '.join(VARIANTS)}")
        return cls("gomoku", size, 0.0, "simple", "area", False, win_length, name, size * size)

    @classmethod
    def chain_reaction(cls, size: int = 5, move_cap: int | None = None) -> "Rules":
        """Chain Reaction on an N x N board. The cap defaults to ``3*N*N - 4*N + 1`` moves, the longest game
        there is: the board holds at most that many orbs less one without a cell at its critical mass
        (one less than its neighbours, summed over the cells), and one orb comes with each move, so by then
        a chain reaction runs until it has taken every orb of the player who moved before."""
        cap = 3 * size * size - 4 * size + 1 if move_cap is None else move_cap
        return cls(CHAIN_REACTION, size, 0.0, "simple", "area", False, 5, "freestyle", cap)

    @classmethod
    def default(cls, game: str, size: int) -> "Rules":
        """``game``'s default rules on an N x N board: Chinese Go, freestyle five in a row, Chain Reaction."""
        if game == "go":
            return cls.go(size)
        if game == "gomoku":
            return cls.gomoku(size, min(5, size))
        if game == CHAIN_REACTION:
            return cls.chain_reaction(size)
        raise RulesError(f"unknown game {game!r}: expected one of {', '.join(GAMES)}")

    @classmethod
    def parse(cls, text: str, size: int | None = None) -> "Rules":
        """Parse ``"PRESET [key=value ...]"``; keys: size (``N`` or ``NxN``), komi, ko, scoring, suicide, k, cap."""
        words = text.strip().lower().split()
        if not words:
            raise RulesError("empty rules string")
        preset = _PRESET_ALIASES.get(words[0], words[0])
        options = dict(_split_option(w) for w in words[1:])
        try:
            n = _parse_size(options.pop("size", size if size is not None else _DEFAULT_SIZES.get(preset, 15)))
            if preset in GO_PRESETS:
                rules = cls.go(n, preset)
            elif preset in VARIANTS:
                rules = cls.gomoku(n, int(options.pop("k", 5)), preset)
            elif preset == CHAIN_REACTION:
                rules = cls.chain_reaction(n)
            else:
                raise RulesError(f"unknown rules {words[0]!r}: expected one of "
                                 f"{', '.join(list(GO_PRESETS) + list(VARIANTS) + [CHAIN_REACTION])}")
            return rules.with_options(options)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, RulesError):
                raise
            raise RulesError(f"bad rules string {text!r}: {exc}") from exc

    def with_options(self, options: dict[str, str]) -> "Rules":
        """Override fields from ``key=value`` strings (as :meth:`parse` reads them)."""
        changes: dict[str, object] = {}
        for key, value in options.items():
            if self.game == CHAIN_REACTION and key != "cap":
                raise RulesError(f"chain-reaction takes no rules option {key!r} (only size and cap)")
            if key == "komi":
                changes["komi"] = float(value)
            elif key == "ko":
                changes["ko"] = value
            elif key == "scoring":
                changes["scoring"] = value
            elif key == "suicide":
                changes["suicide"] = _parse_bool(value)
            elif key == "k":
                changes["win_length"] = int(value)
            elif key == "cap":
                changes["move_cap"] = int(value)
            else:
                raise RulesError(f"unknown rules option {key!r}")
        return replace(self, **changes)

    def resized(self, size: int) -> "Rules":
        """The same rules on another board size, the move cap rescaled."""
        if self.game == "go":
            return replace(self, size=size, move_cap=2 * size * size)
        if self.game == CHAIN_REACTION:
            return Rules.chain_reaction(size)
        return replace(self, size=size, move_cap=size * size, win_length=min(self.win_length, size))

    # ------------------------------------------------------------------ naming
    @property
    def preset(self) -> str:
        """The preset that decides legality and scoring ('chinese', 'renju', 'chain-reaction', ...) or ''."""
        if self.game == "gomoku":
            return self.variant
        if self.game == CHAIN_REACTION:
            return CHAIN_REACTION
        for name, (ko, scoring, suicide, _komi) in GO_PRESETS.items():
            if (ko, scoring, suicide) == (self.ko, self.scoring, self.suicide):
                return name
        return ""

    def __str__(self) -> str:
        """The preset name, the size, and every field that differs from the preset (``k`` always for Gomoku)."""
        name = self.preset or "chinese"
        if self.game == "go":
            base = Rules.go(self.size, name)
        elif self.game == "gomoku":
            base = Rules.gomoku(self.size, 5, self.variant)
        else:
            base = Rules.chain_reaction(self.size)
        words = [name, f"size={self.size}"]
        always = ("win_length",) if self.game == "gomoku" else ()
        words += [_format_option(f.name, getattr(self, f.name)) for f in fields(self)
                  if getattr(self, f.name) != getattr(base, f.name) or f.name in always]
        return " ".join(words)

    @property
    def num_points(self) -> int:
        return self.size * self.size

    @property
    def num_actions(self) -> int:
        """N*N points plus pass (pass exists in the action space of every game, legal only in Go)."""
        return self.size * self.size + 1

    @property
    def pass_action(self) -> int:
        return self.size * self.size


_OPTION_NAMES = {"win_length": "k", "move_cap": "cap"}
_DEFAULT_SIZES = {**dict.fromkeys(GO_PRESETS, 19), CHAIN_REACTION: 5}


def _parse_size(value: str | int) -> int:
    """A board size written ``N`` or ``NxN``; RulesError for a rectangle."""
    if isinstance(value, int):
        return value
    columns, sep, rows = value.partition("x")
    if sep and int(rows) != int(columns):
        raise RulesError(f"board {value} is not square: every game here is played on an N x N board")
    return int(columns)


def _format_option(name: str, value: object) -> str:
    if isinstance(value, bool):
        value = "yes" if value else "no"
    elif isinstance(value, float):
        value = f"{value:g}"
    return f"{_OPTION_NAMES.get(name, name)}={value}"


def _split_option(word: str) -> tuple[str, str]:
    key, sep, value = word.partition("=")
    if not sep or not key or not value:
        raise RulesError(f"bad rules option {word!r}: expected key=value")
    return key, value


def _parse_bool(value: str) -> bool:
    if value in ("yes", "true", "1", "allowed", "on"):
        return True
    if value in ("no", "false", "0", "illegal", "off"):
        return False
    raise RulesError(f"expected yes or no, not {value!r}")
