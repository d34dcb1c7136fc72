"""How self-play plays: its settings as a plain frozen dataclass, apart from self-play itself (which loads numpy
and the rules core), so that ``--help`` reads each default from here (:class:`engine.cli.options.Setting`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine import PlayerConfig, SearchConfig

__all__ = ["SelfPlayConfig", "selfplay_player_config", "opening_moves"]


def selfplay_player_config() -> PlayerConfig:
    """Self-play's player: root noise, KataGo's forced playouts with the pruned policy target (the strength
    experiment's choice: experiments/strength/README.md), temperature 1 for the opening, resignation after three
    moves running valued lost, tree reuse; a game-ending pass is judged on the board as it
    stands, as the record's result is scored (no dead-stone estimate)."""
    return PlayerConfig(visits=400, noise=True, temperature=1.0, temperature_moves=opening_moves(19),
                        resign_threshold=-0.9, resign_consecutive=3, reuse_tree=True, remove_dead_stones=False,
                        search=SearchConfig(batch_size=8, forced_playouts_k=2.0))


def opening_moves(size: int) -> int:
    """Moves played by sampling the visits on an N x N board: N*N / 12 (30 on 19x19), at least 1."""
    return max(1, size * size // 12)


@dataclass(frozen=True)
class SelfPlayConfig:
    """How self-play plays. ``player`` decides every move; its ``visits`` are the full search's
    (``readouts``), its resignation rule holds except in ``resign_disabled_share`` of the games, and
    its ``temperature_moves`` does not scale with the board by itself (commands set :func:`opening_moves`).
    ``random_moves``: each game opens with that many uniformly random legal moves, which give no policy
    target, as a match's ``random_moves`` open its games (so the network learns the positions such
    matches reach: in Gomoku a stray stone leaves the side to move a tempo up).
    """

    player: PlayerConfig = field(default_factory=selfplay_player_config)
    cheap_readouts: int | None = None
    full_search_share: float = 0.25
    """Playout Cap Randomization (KataGo): the share of moves given the full search, with root noise, that
    become policy targets; the others get the cheap search (:attr:`cheap`), which only moves the game along."""
    parallel_games: int = 16
    resign_disabled_share: float = 0.1
    holdout_share: float = 0.05
    """The share of games written to the output's ``holdout/`` folder: training leaves them out, and the loop
    measures each new network's policy loss on them."""
    random_moves: int = 0
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.player.visits is None or self.player.visits < 2:
            raise ValueError(f"self-play needs at least 2 visits a full search, not {self.player.visits}")
        for name in ("full_search_share", "resign_disabled_share", "holdout_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], not {getattr(self, name)}")
        if self.random_moves < 0:
            raise ValueError(f"random_moves must be at least 0, not {self.random_moves}")
        if self.parallel_games < 1 or self.player.search.batch_size < 1:
            raise ValueError("parallel_games and the search's batch_size must be positive")

    @property
    def readouts(self) -> int:
        """Visits of a full search (a policy target): the player's."""
        assert self.player.visits is not None
        return self.player.visits

    @property
    def cheap(self) -> int:
        """Visits of a cheap search: ``cheap_readouts``, else a sixth of the full search (at least 2)."""
        cheap = self.cheap_readouts if self.cheap_readouts is not None else self.readouts // 6
        return max(2, min(cheap, self.readouts))
