"""How a match is played: its settings as a plain frozen dataclass, apart from the match itself (which loads numpy
and the rules core), so that ``--help`` reads each default from here (:class:`engine.cli.options.Setting`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import PlayerConfig, SearchConfig
from training.gtp_client import DEFAULT_TIMEOUT

__all__ = ["MatchConfig", "match_player_config", "SCORERS", "HANDICAP_TAKERS", "MAX_HANDICAP"]


def match_player_config() -> PlayerConfig:
    """How models play a match: no noise, the first moves sampled from the visits (so that games differ),
    resignation only on a position valued all but lost three times running, tree reuse, Gomoku's threat guard;
    half the visits of a front end's move, so that a match of many games stays affordable; its passes judged on
    the board as it stands, as the rules core scores a match's games."""
    return PlayerConfig(visits=400, noise=False, temperature=1.0, temperature_moves=2, resign_threshold=-0.95,
                        resign_consecutive=3, reuse_tree=True, remove_dead_stones=False, threat_guard=True,
                        search=SearchConfig(batch_size=8))


SCORERS = ("board", "a", "b")
"""Who scores a Go game that ends on the board: the rules core on the board as it stands, or A's or B's
``final_score`` (its dead-stone judgement)."""

HANDICAP_TAKERS = ("a", "b")
"""Which contestant takes Black and the handicap stones in every game of a handicap match."""
MAX_HANDICAP = 9
"""The most handicap stones a match gives: GTP's fixed placements stop at 9."""


@dataclass(frozen=True)
class MatchConfig:
    """A match: games, how model players play (``player``: visits, leaf batch, opening, resignation), the seed;
    the openings (each game pair's first stones: :mod:`engine.formats.openings` lines) and uniformly random
    moves after them; who scores
    a Go game that ends on the board (:data:`SCORERS`, or
    ``referee``: a third engine's command line, shown each such game); threads with their own seats (``jobs``)
    and games in flight in each (``parallel_games``); seconds a GTP engine may take over one command.

    ``handicap``: Go games that start from that many fixed handicap stones (0, or 2 to :data:`MAX_HANDICAP`), White
    to move; the contestant ``handicap_taker`` names (:data:`HANDICAP_TAKERS`) is Black in every game, so colours
    do not alternate and there is no opening list (the stones are the opening)."""

    games: int = 100
    parallel_games: int = 8
    player: PlayerConfig = field(default_factory=match_player_config)
    seed: int = 0
    random_moves: int = 0
    openings: tuple[str, ...] = ()
    scorer: str = "board"
    referee: str | None = None
    jobs: int = 1
    timeout: float = DEFAULT_TIMEOUT
    handicap: int = 0
    handicap_taker: str = "b"

    def __post_init__(self) -> None:
        object.__setattr__(self, "openings", tuple(self.openings))   # a run file holds a list
        if self.scorer not in SCORERS or self.jobs < 1 or self.parallel_games < 1:
            raise ValueError(f"scorer is one of {', '.join(SCORERS)} and jobs and parallel games at least 1, not "
                             f"{self.scorer!r}, {self.jobs} and {self.parallel_games}")
        if self.handicap not in (0, *range(2, MAX_HANDICAP + 1)) or self.handicap_taker not in HANDICAP_TAKERS:
            raise ValueError(f"a handicap is 0 or 2 to {MAX_HANDICAP} stones taken by {' or '.join(HANDICAP_TAKERS)}, "
                             f"not {self.handicap} taken by {self.handicap_taker!r}")
        if self.handicap and self.openings:
            raise ValueError("a handicap match has no opening list: its games start from the handicap stones")
