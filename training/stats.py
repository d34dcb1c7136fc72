"""A match's result table: A's wins, losses and draws, with the win rate's Wilson score interval and the Elo
difference it implies.

A game scores 1 for a win, 1/2 for a draw, 0 for a loss. Over n games with
score s the Wilson interval at z standard errors (1.96: 95%) is::

    (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n),   p = s / n

The logistic Elo difference of a score rate p is ``-400 log10(1/p - 1)``.
It is infinite at p = 0 or 1, so rates are clipped to [1/2n, 1 - 1/2n]
(half a game from a clean sweep) before converting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from engine import Color, Outcome

__all__ = ["MatchResult", "Resignation", "wilson_interval", "elo_difference", "elo_interval", "signed", "Z_95"]

Z_95 = 1.959963984540054


def wilson_interval(score: float, games: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of the rate ``score / games`` (draws counted as half a win)."""
    if games <= 0:
        return (0.0, 1.0)
    if not 0 <= score <= games:
        raise ValueError(f"a score of {score} is impossible in {games} games")
    p = score / games
    denominator = 1 + z * z / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    return (max(0.0, (centre - spread) / denominator), min(1.0, (centre + spread) / denominator))


def elo_difference(rate: float, games: int) -> float:
    """Elo difference implied by a score rate, the rate clipped to [1/2n, 1 - 1/2n]."""
    floor = 0.5 / max(games, 1)
    p = min(max(rate, floor), 1 - floor)
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_interval(score: float, games: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson interval's bounds as Elo differences."""
    low, high = wilson_interval(score, games, z)
    return (elo_difference(low, games), elo_difference(high, games))


def signed(elo: float) -> str:
    """An Elo difference as ``+191`` / ``-40`` / ``+0`` (never ``-0``)."""
    return f"{round(elo) + 0:+d}"


_PAIR_KINDS = {2.0: "a_won_both", 1.5: "a_ahead", 1.0: "split", 0.5: "b_ahead", 0.0: "b_won_both"}
"""An opening pair by A's points in its two games."""


@dataclass(frozen=True)
class Resignation:
    """A game that ended by a resignation: its number (from 1, as its record's file is named; None where the game
    has none), who resigned (``"A"`` or ``"B"``), with which colour, and the move number the resignation took
    (moves played after any handicap stones, plus one)."""

    game: int | None
    by: str
    color: Color
    move: int

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "by": self.by, "color": self.color.letter, "move": self.move}


@dataclass
class MatchResult:
    """A's results against B. ``a_black_*`` counts A's wins and games with black; ``*_move_seconds`` is each
    side's mean time from asking for a move to its answer. ``resumed``: games counted from an earlier run's
    records, whose times are unknown: ``seconds`` and the move times are those of the other games.
    ``pairs``: A's points in each game pair played from one opening (pair number: points, games), where the
    games came from an opening list. ``resignations``: every game that ended by one, in the order the games
    finished."""

    a: str
    b: str
    wins: int = 0
    losses: int = 0
    draws: int = 0
    a_black_wins: int = 0
    a_black_games: int = 0
    moves: int = 0
    seconds: float = 0.0
    a_move_seconds: float = 0.0
    b_move_seconds: float = 0.0
    resumed: int = 0
    pairs: dict[int, list[float]] = field(default_factory=dict)
    resignations: list[Resignation] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def rate(self) -> float:
        return self.score / self.games if self.games else 0.5

    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.score, self.games)

    @property
    def elo(self) -> float:
        return elo_difference(self.rate, self.games)

    def elo_interval(self) -> tuple[float, float]:
        return elo_interval(self.score, self.games)

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval()
        elo_low, elo_high = self.elo_interval()
        return {"a": self.a, "b": self.b, "games": self.games, "wins": self.wins, "losses": self.losses,
                "draws": self.draws, "a_black_wins": self.a_black_wins, "a_black_games": self.a_black_games,
                "win_rate": self.rate, "win_rate_interval": [low, high], "elo": self.elo,
                "elo_interval": [elo_low, elo_high], "moves": self.moves, "seconds": self.seconds,
                "a_move_seconds": self.a_move_seconds, "b_move_seconds": self.b_move_seconds, "resumed": self.resumed,
                "a_resigned": self.resigned_by("A"), "b_resigned": self.resigned_by("B"),
                "resignations": [r.to_dict() for r in sorted(self.resignations, key=lambda r: (r.game or 0, r.move))],
                **({"opening_pairs": self.pair_counts()} if self.pairs else {})}

    def pair_counts(self) -> dict[str, int]:
        """Finished opening pairs by A's points in them: ``a_won_both``, ``split`` (one game each, or two draws),
        ``b_won_both``, and the others (a win and a draw either way), of the pairs whose two games are over."""
        counts = {"pairs": 0, "a_won_both": 0, "split": 0, "b_won_both": 0, "a_ahead": 0, "b_ahead": 0}
        for points, games in self.pairs.values():
            if games == 2:
                counts["pairs"] += 1
                counts[_PAIR_KINDS[points]] += 1
        return counts

    def resigned_by(self, side: str) -> int:
        """The games that ``side`` (``"A"`` or ``"B"``) resigned."""
        return sum(resignation.by == side for resignation in self.resignations)

    def add(self, outcome: Outcome, a_color: Color, moves: int, pair: int | None = None,
            game: int | None = None) -> None:
        """Count one finished game of ``moves`` moves, number ``game`` (from 1), in which A played ``a_color``
        (from opening pair ``pair``, if any)."""
        self.moves += moves
        value = outcome.value_for(a_color)
        if outcome.reason == "resign" and outcome.winner is not None:
            loser = outcome.winner.opponent
            self.resignations.append(Resignation(game, "A" if loser == a_color else "B", loser, moves + 1))
        if pair is not None:
            points = self.pairs.setdefault(pair, [0.0, 0])
            points[0] += (value + 1) / 2
            points[1] += 1
        self.wins += value > 0
        self.losses += value < 0
        self.draws += value == 0
        if a_color == Color.BLACK:
            self.a_black_games += 1
            self.a_black_wins += value > 0

    def describe(self) -> str:
        low, high = self.interval()
        elo_low, elo_high = self.elo_interval()
        return (f"{self.a} vs {self.b}: {self.wins} wins, {self.losses} losses, {self.draws} draws in {self.games} "
                f"games ({self.a_black_wins}/{self.a_black_games} wins as black); win rate {100 * self.rate:.1f}% "
                f"[95% CI {100 * low:.1f}-{100 * high:.1f}%], Elo {signed(self.elo)} [{signed(elo_low)}, "
                f"{signed(elo_high)}]" + self._describe_resignations() + self._describe_pairs())

    def _describe_resignations(self) -> str:
        if not self.resignations:
            return ""
        return f"; resigned: A {self.resigned_by('A')}, B {self.resigned_by('B')}"

    def _describe_pairs(self) -> str:
        if not self.pairs:
            return ""
        counts = self.pair_counts()
        return (f"; {counts['pairs']} opening pairs: A won both in {counts['a_won_both']}, B in "
                f"{counts['b_won_both']}, split {counts['split']}")
