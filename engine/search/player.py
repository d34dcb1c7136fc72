"""``Player``: decides every move, for GTP, Gomocup, the analysis engine, matches and self-play alike.

One seam turns a position and its budget into a decision: :meth:`Player.begin` starts the move's search
(a :class:`MoveSearch`), :meth:`MoveSearch.step` runs it a leaf batch at a time (or a scheduler steps many
moves' :attr:`MoveSearch.job` together, one evaluator call serving all: self-play, matches), and
:meth:`MoveSearch.finish` turns it into a :class:`Decision`. :meth:`Player.choose` is the three in a row.

The player owns the search limits, tree reuse, root noise and temperature, and the
decisions a search cannot make alone: when to resign (the root value stays
below a threshold, and the score lead below a margin, for several of the player's own moves, never early
in a handicap game: :mod:`engine.search.resign`; or a Gomoku game is
over and lost: a controller may still ask for a move), when to pass (never
into a loss under area scoring, and back at once when the opponent passed,
the game is won as it stands and the board is settled: :mod:`engine.search.passing`), when to capture
instead (cleanup: stones called dead are taken off the board before the game
ends) and playing on in a game that two passes ended (GTP knows no end of game).

A move given ``seconds`` is due by one :class:`~engine.search.deadline.Deadline` that the threat guard
and the search share; whatever is left of the time when the guard stops goes to the search, and a
search cut short still answers (its most visited move, or the network's favourite where nothing was
visited).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

import numpy as np

from engine.core.game import Game
from engine.core.rules import Rules
from engine.core.types import Color, GameOverError
from engine.search.config import PlayerConfig, SearchConfig
from engine.search.deadline import Deadline
from engine.search.evaluator import Evaluator
from engine.search.guard import guarded_moves
from engine.search.levels import seen_at_level
from engine.search.mcts import Search, SearchJob, SearchResult
from engine.search.passing import pass_margin
from engine.search.resign import ResignationWatch

__all__ = ["Decision", "MoveSearch", "Player", "PLAY_OPENING"]

GUARD_SHARE = 0.5
"""Of a timed move, the share of its time the threat guard may read for (the search has the rest)."""
PLAY_OPENING = 1 / 6
"""``temperature_moves`` None: the moves drawn at the start of a game, as a share of the board's points (13 on
9x9, 60 on 19x19), enough for the games of a network against itself to differ (docs/gtp.md, *Variety*)."""


@dataclass(frozen=True)
class Decision:
    """The move chosen (an action; ``None`` with ``resign``) and the search behind it (None: the player resigned
    a game that is over without searching): its visits and policy target (training's pi), its value.
    ``would_resign``: the resignation rule says resign, whether or not the player does (a player made with
    ``resigns=False`` plays on and says so, for self-play's false-resignation count)."""

    action: int | None
    resign: bool
    search: SearchResult | None
    would_resign: bool = False


class MoveSearch:
    """One move's search in progress (:meth:`Player.begin`): step it until it is done, then :meth:`finish` it.
    ``decided``: a decision made without a search (``job`` None).

    A caller that batches many moves' leaves into one evaluator call steps :attr:`job` (None: no search, the
    player resigns a game that is over) through :func:`engine.search.batching.step` instead of :meth:`step`.
    """

    def __init__(self, player: Player, game: Game, job: SearchJob | None, dead: Collection[int] = (),
                 stop: Callable[[], bool] | None = None, progress: Callable[[Search], None] | None = None,
                 progress_every: float = 0.1, decided: Decision | None = None) -> None:
        self.player = player
        self.game = game
        self.job = job
        self._dead = dead
        self._stop = stop
        self._progress = progress
        self._progress_every = progress_every
        self._last_report = time.monotonic()
        self._stopped = False
        self._decision = decided

    @property
    def done(self) -> bool:
        """Whether the search is over: a limit reached, ``stop()`` said so, or there was nothing to search."""
        return self.job is None or self._stopped or self.job.finished

    def step(self) -> bool:
        """Run one leaf batch through the player's evaluator (nothing once done); whether the search wants more."""
        job = self.job
        if job is None or self.done:
            return False
        job.step()
        self._stopped = self._stop is not None and self._stop()
        due = time.monotonic() - self._last_report >= self._progress_every
        if self._progress is not None and due and not self.done:
            self._progress(job.search)
            self._last_report = time.monotonic()
        return not self.done

    def finish(self) -> Decision:
        """The move (or resignation) the search found, as the player decides it; the same decision if asked
        again."""
        if self._decision is None:
            assert self.job is not None
            self._decision = self.player.decide(self.game, self.job.result(), self._dead)
        return self._decision


class Player:
    """Chooses moves for either colour of a game with one evaluator. ``resigns`` False: never resign, but watch
    the rule (:attr:`Decision.would_resign`)."""

    def __init__(self, evaluator: Evaluator, config: PlayerConfig = PlayerConfig(), seed: int | None = None, *,
                 resigns: bool = True) -> None:
        self.evaluator = evaluator
        self.config = config
        self.resigns = resigns
        self.rng = np.random.default_rng(seed)
        self._seed = seed
        self._search: Search | None = None
        self._resignation = ResignationWatch(config.resign_threshold, config.resign_consecutive,
                                            config.resign_min_score)

    def new_game(self) -> None:
        """Forget the tree and the resignation counters."""
        self._search = None
        self._resignation.reset()

    def rehearse(self, rules: Rules, visits: int) -> None:
        """Search and play two moves of a game under ``rules``, ``visits`` each, as :meth:`choose` does, so that
        every kernel a move runs is compiled before a timed move needs it: the search's, the rules core's for a
        move played, the tree's reuse and, in Gomoku, the threat guard's reading of defences (the game starts
        from a threat white must stop: a double three of black's). The player then starts afresh."""
        game = _threatened(rules)
        for _ in range(2):
            game.play(self.search_for(game, to_play=True).run(visits).best_action)
        self.new_game()

    def search_for(self, game: Game, *, to_play: bool = False, deadline: Deadline | None = None) -> Search:
        """The search tree for the game's position: the last one, moved on, if it can be reused. ``to_play``:
        the search chooses a move to play, so the threat guard (``config.threat_guard``, reading until
        ``deadline`` at most), the blind spots, the overlooked ataris and the root temperature shape its root;
        analysis sees every move."""
        fresh = not self.config.reuse_tree or self.config.search.gumbel_considered > 0  # Gumbel starts afresh
        config = self._search_config(game)
        if self._search is None or fresh or self._search.rules != game.rules or self._search.config != config:
            self._search = Search(game, self.evaluator, config, seed=self._seed)
        else:
            self._search.set_game(game)
        if to_play:
            allowed = guarded_moves(game, self.evaluator, deadline=deadline) if self.config.threat_guard else None
            allowed = seen_at_level(allowed, game, self.config.blind_spots, self.config.overlooked_ataris, self.rng)
            if allowed is not None or self.config.root_temperature != 1.0:
                self._search.shape_root(allowed=allowed, temperature=self.config.root_temperature)
        return self._search

    def _search_config(self, game: Game) -> SearchConfig:
        """The search's settings for ``game``: with the score utility of a handicap game where it applies."""
        utility = self.config.handicap_score_utility
        if game.handicap and utility and not self.config.search.score_utility:
            return replace(self.config.search, score_utility=utility)
        return self.config.search

    def analyse(self, game: Game, *, visits: int | None = None, playouts: int | None = None,
                seconds: float | None = None, stop: Callable[[], bool] | None = None,
                progress: Callable[[Search], None] | None = None, noise: bool = False,
                to_play: bool = False) -> SearchResult:
        """Search the game's position for the side to move, with explicit limits (``to_play``: see
        :meth:`search_for`)."""
        search = self.search_for(game, to_play=to_play)
        return search.run(visits, playouts=playouts, seconds=seconds, stop=stop, progress=progress, noise=noise)

    def begin(self, game: Game, color: int | None = None, *, visits: int | None = None, noise: bool | None = None,
              seconds: float | None = None, stop: Callable[[], bool] | None = None,
              progress: Callable[[Search], None] | None = None, dead: Collection[int] = ()) -> MoveSearch:
        """Begin the search of a move for ``color`` (default: the side to move), to be decided without playing
        it, within ``seconds`` (and ``config.seconds``) from now, the threat guard's reading included.

        ``visits`` and ``noise`` (None: the config's) set this move's budget and root noise (self-play's
        full and cheap searches). ``stop()``, asked after every :meth:`MoveSearch.step`, ends the search;
        ``progress(search)`` sees it every tenth of a second. In a Go game that two passes or the move cap
        ended the player plays on (:meth:`Game.play_on`, on a copy): GTP knows no end of game. In a Gomoku
        game that is over it resigns when it lost (:meth:`concedes`), without a search. ``dead`` (cleanup,
        ``kgs-genmove_cleanup``): stones called dead, see :meth:`decide`.
        """
        if self.concedes(game, color):
            return MoveSearch(self, game, None, decided=Decision(None, True, None))
        game = self.for_color(game, color)
        if game.is_over:
            game = game.copy()
            game.play_on()
        cfg = self.config
        seconds = cfg.seconds if seconds is None else (seconds if cfg.seconds is None else min(seconds, cfg.seconds))
        deadline = None if seconds is None else Deadline.after(seconds)
        guard_deadline = None if deadline is None else deadline.share(GUARD_SHARE)
        search = self.search_for(game, to_play=True, deadline=guard_deadline)
        seconds = None if deadline is None else deadline.remaining()
        job = SearchJob(search, self.evaluator, cfg.visits if visits is None else visits,
                        cfg.noise if noise is None else noise, playouts=cfg.playouts, seconds=seconds)
        return MoveSearch(self, game, job, dead, stop, progress)

    def choose(self, game: Game, color: int | None = None, *, seconds: float | None = None,
               stop: Callable[[], bool] | None = None, progress: Callable[[Search], None] | None = None,
               dead: Collection[int] = ()) -> Decision:
        """Search and decide a move, as :meth:`begin` describes, stepping the search to its end here."""
        move = self.begin(game, color, seconds=seconds, stop=stop, progress=progress, dead=dead)
        while move.step():
            pass
        return move.finish()

    @staticmethod
    def concedes(game: Game, color: int | None = None) -> bool:
        """Whether ``color`` (default: the side to move) resigns without a search: a Gomoku or Chain Reaction
        game that is over and that it lost. Raises :class:`~engine.core.types.GameOverError` for such a game that
        is over otherwise (there is no move to make); a Go game that is over goes on (:meth:`choose`)."""
        if game.rules.game == "go" or not game.is_over:
            return False
        outcome = game.outcome()
        mover = game.to_play if color is None else Color(color)
        if outcome is not None and outcome.winner is not None and outcome.winner != mover:
            return True
        raise GameOverError("the game is over")

    @staticmethod
    def for_color(game: Game, color: int | None) -> Game:
        """The game with ``color`` to move (GTP may ask for a move out of turn)."""
        if color is None or Color(color) == game.to_play:
            return game
        return game.with_side_to_move(color)

    def decide(self, game: Game, result: SearchResult, dead: Collection[int] = ()) -> Decision:
        """The move (or resignation) for the side to move in ``game`` after a search of its position.

        ``dead``: stones called dead (GTP ``final_status_list``); while any of
        the opponent's are on the board the player does not pass but plays its
        best other move (most visits, then prior), so that they are captured
        before the game ends (KGS's cleanup phase).
        """
        would_resign = self._resignation.see(game.to_play, result, game)
        if would_resign and self.resigns:
            return Decision(None, True, result, would_resign=True)
        action = self._pick(game, result)
        if action == game.rules.pass_action and dead:
            action = self._cleanup(game, result, dead)
        return Decision(action, False, result, would_resign=would_resign)

    @staticmethod
    def _cleanup(game: Game, result: SearchResult, dead: Collection[int]) -> int:
        """The best move other than a pass while opponent stones in ``dead`` remain; else pass."""
        pass_action = game.rules.pass_action
        board = game.position.board().reshape(-1)
        if not any(board[action] == game.to_play.opponent for action in dead):
            return pass_action
        legal = game.legal_mask()
        legal[pass_action] = False
        if not legal.any():
            return pass_action
        return int(np.argmax(np.where(legal, result.visits.astype(np.float64) + result.priors, -1.0)))

    def _pick(self, game: Game, result: SearchResult) -> int:
        legal = game.legal_mask()
        pass_action = game.rules.pass_action
        if result.visits.sum() <= 0:   # a search stopped before any child was visited: the best prior
            if not legal.any():
                return pass_action
            return int(np.argmax(np.where(legal, result.priors.astype(np.float64), -1.0)))
        ends = game.position.passes > 0  # the opponent passed: a pass now ends the game
        judged = self._pass_margin(game, result) if ends else None
        if judged is not None and judged[0] > 0:
            return pass_action  # the opponent passed and the game is won on a settled board: end it
        opening = self.config.temperature_moves
        opening = int(PLAY_OPENING * game.rules.num_points) if opening is None else opening
        sampled = len(game.moves) < opening and self.config.temperature > 0
        if sampled and result.gumbel_action is None:  # a Gumbel search's move is already sampled by its noise
            action = self._sample(result)
        else:
            action = result.best_action
        if action == pass_action and not ends:
            judged = self._pass_margin(game, result)
        if action == pass_action and judged is not None and judged[0] <= 0:  # unwon, or unsettled at the end
            # play on, but never inside our own area: under area scoring that cannot gain a point and
            # filling our own eyes can lose groups
            candidates = legal.copy()
            candidates[:pass_action] &= judged[1] != int(game.to_play)
            candidates[pass_action] = False
            visits = np.where(candidates, result.visits, -1.0)
            if visits.max() >= 0:
                action = int(np.argmax(visits))
        return action

    def _pass_margin(self, game: Game, result: SearchResult) -> tuple[float, np.ndarray] | None:
        return pass_margin(game, result, self.config.remove_dead_stones, self._seed)

    def _sample(self, result: SearchResult) -> int:
        """A move drawn from the visits sharpened by ``1 / temperature``, among the near-best of the moves that
        policy keeps (not those proven lost, when another has visits)."""
        policy = result.policy(self.config.temperature, reading=self.config.draw_by_reading).astype(np.float64)
        if self.config.near_best > 0:
            kept = np.where(policy > 0, result.visits, 0.0)
            policy = np.where(kept >= self.config.near_best * kept.max(), policy, 0.0)
        return int(self.rng.choice(len(policy), p=policy / policy.sum()))


def _threatened(rules: Rules) -> Game:
    """A Gomoku game where black's next move would make two open threes (white to move), on boards of 9 lines
    and more; an empty board otherwise."""
    game = Game(rules)
    if rules.game == "gomoku" and rules.size >= 9:
        c = rules.size // 2
        game.setup(black=[c * rules.size + c - 2, c * rules.size + c - 1, (c - 2) * rules.size + c,
                          (c - 1) * rules.size + c], to_play=Color.WHITE)
    return game
