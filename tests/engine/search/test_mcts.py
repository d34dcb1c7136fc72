"""The search with a uniform evaluator and a fixed-prior fake: budgets, legality, finds wins, reuse."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
import pytest

from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.position import Position
from engine.core.rules import Rules
from engine.core.scoring import score
from engine.core.types import BLACK, WHITE
from engine.formats.diagram import game_from_diagram
from engine.search import mcts
from engine.search.batching import step
from engine.search.config import SearchConfig
from engine.search.evaluator import Evaluation
from engine.search.mcts import Search, SearchJob, SearchResult
from engine.search.tree import (
    ACTION,
    FIRST_CHILD,
    NUM_CHILDREN,
    PARENT,
    PRIOR,
    PROVEN,
    VALUE_SQUARES,
    VALUE_SUM,
    VIRTUAL,
    VISITS,
)


class Uniform:
    """Uniform priors over the legal actions, value 0."""

    def __init__(self) -> None:
        self.calls = 0
        self.batch_sizes: list[int] = []

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        self.calls += 1
        self.batch_sizes.append(len(positions))
        masks = np.stack([p.legal_mask() for p in positions]).astype(np.float32)
        return Evaluation(masks / np.maximum(masks.sum(axis=1, keepdims=True), 1), np.zeros(len(positions), np.float32))


class FixedPriors(Uniform):
    """Puts ``weight`` of the prior on one action wherever it is legal, to steer the search."""

    def __init__(self, action: int, weight: float = 0.9) -> None:
        super().__init__()
        self.action = action
        self.weight = weight

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        evaluation = super().evaluate(positions, legal)
        for row in evaluation.priors:
            if row[self.action] > 0:
                row *= (1 - self.weight) / max(row.sum() - row[self.action], 1e-9)
                row[self.action] = self.weight
        return evaluation


class AreaValue(Uniform):
    """Uniform priors; the value is the area lead as it stands, squashed (a material-minded fake)."""

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        values = []
        for p in positions:
            lead = score(p.cells, p.info, p.size, p.rules.komi, "area")
            values.append(np.tanh((lead if p.to_play == BLACK else -lead) / 4))
        return super().evaluate(positions, legal)._replace(values=np.asarray(values, np.float32))


def _game(rules: Rules, vertices: list[str]) -> Game:
    game = Game(rules)
    for vertex in vertices:
        game.play(gtp_to_action(vertex, rules.size))
    return game


@pytest.mark.parametrize("rules,visits,batch", [(Rules.go(9), 300, 8), (Rules.go(5, "tromp-taylor"), 500, 1),
                                                (Rules.gomoku(7, 4), 400, 16), (Rules.go(19), 200, 32)])
def test_visits_add_up_and_no_virtual_loss_is_left(rules: Rules, visits: int, batch: int) -> None:
    search = Search(Game(rules), Uniform(), SearchConfig(batch_size=batch), seed=0)
    result = search.run(visits)
    assert search.root_visits == visits
    assert result.visits.sum() == visits - 1  # the root's own evaluation is the first visit
    assert search.tree.ints[VIRTUAL, :search.tree.nodes].sum() == 0


def test_batches_reach_the_configured_size() -> None:
    evaluator = Uniform()
    Search(Game(Rules.go(9)), evaluator, SearchConfig(batch_size=8), seed=0).run(400)
    assert max(evaluator.batch_sizes) == 8
    assert np.median(evaluator.batch_sizes) >= 6


def test_illegal_moves_get_no_visits() -> None:
    game = game_from_diagram("""
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
        """, Rules.go(5, "chinese"), BLACK)
    game.play(gtp_to_action("C4", 5))  # black captures at C4: white may not retake B4 at once (ko)
    result = Search(game, Uniform(), seed=1).run(600)
    legal = game.legal_mask()
    assert not legal[gtp_to_action("B4", 5)]
    assert (result.visits[~legal] == 0).all()
    assert (result.priors[~legal] == 0).all()


_BLACK_EYES = """
    . X . X O
    X X X X O
    . . X O .
    . . X O O
    . . X O .
    """


@pytest.mark.parametrize("keep", [True, False])
def test_the_search_keeps_its_own_eyes_unless_told(keep: bool) -> None:
    """A5 and C5 are black's one-point eyes: with ``keep_own_eyes`` no node where black is to move has a child
    there (neither the root nor the replies to white's moves, which cannot spoil them); without, both get
    visits like any move."""
    eyes = [gtp_to_action(vertex, 5) for vertex in ("A5", "C5")]
    rules = Rules.go(5, "chinese")
    config = SearchConfig(batch_size=4, keep_own_eyes=keep)
    black = Search(game_from_diagram(_BLACK_EYES, rules, BLACK), Uniform(), config, seed=0)
    assert (black.run(300).visits[eyes] == 0).all() == keep
    white = Search(game_from_diagram(_BLACK_EYES, rules, WHITE), Uniform(), config, seed=0)
    white.run(600)
    tree = white.tree
    replies = np.concatenate([tree.ints[ACTION, tree.children(node)]
                              for node in range(tree.children().start, tree.children().stop)])
    assert np.isin(eyes, replies).any() != keep
    assert tree.ints[VIRTUAL, :tree.nodes].sum() == 0


def test_renju_forbidden_points_are_never_searched() -> None:
    """Black's double-three point (E5 joins E6-E7 and C5-D5) is never a child anywhere in the tree."""
    game = game_from_diagram("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . X X . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . O O O .
        . . . . . . . . .
        """, Rules.gomoku(9, 5, "renju"), BLACK)
    forbidden = gtp_to_action("E5", 9)
    assert not game.legal_mask()[forbidden]
    search = Search(game, Uniform(), seed=0)
    result = search.run(300)
    assert result.visits[forbidden] == 0
    assert result.visits.sum() == 299


def test_superko_forbidden_root_moves_are_never_searched() -> None:
    """Root legality comes from the Game, so positional superko holds at the root."""
    rules = Rules.go(2, "tromp-taylor", komi=0.5)
    game = _game(rules, ["A1", "B2", "pass"])
    search = Search(game, Uniform(), seed=0)
    result = search.run(200)
    assert (result.visits[~game.legal_mask()] == 0).all()


def test_finds_a_gomoku_five() -> None:
    game = _game(Rules.gomoku(9, 5), ["E5", "A1", "F5", "A9", "G5", "J1", "H5", "B2"])
    result = Search(game, Uniform(), seed=0).run(800)
    assert result.best_action in (gtp_to_action("D5", 9), gtp_to_action("J5", 9))
    assert result.value > 0.8


class NoisyValues(Uniform):
    """Uniform priors; values drawn uniformly from [-0.2, 0.2], a network that knows nothing but is not constant."""

    def __init__(self) -> None:
        super().__init__()
        self.rng = np.random.default_rng(0)

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        values = self.rng.uniform(-0.2, 0.2, len(positions)).astype(np.float32)
        return super().evaluate(positions, legal)._replace(values=values)


@pytest.mark.parametrize("evaluator,config", [
    (NoisyValues, SearchConfig(batch_size=4)),
    # values all 0 leave the spread-scaled exploration no spread: it shrinks c_puct to 15% and the search stops
    # trying new moves, so this case searches its constant evaluator with plain PUCT
    (Uniform, SearchConfig(batch_size=4, c_puct_stdev_scale=0.0, fpu_from_mean=False)),
])
def test_blocks_an_open_four_in_the_making(evaluator: type[Uniform], config: SearchConfig) -> None:
    """Black threatens 4 in a row on 6x6 (k=4): white must block at once; a guiding prior is not needed."""
    game = _game(Rules.gomoku(6, 4), ["B2", "F6", "C3", "F5"])  # black has B2-C3 on the diagonal
    game.play(gtp_to_action("D4", 6))  # three on the diagonal, A1 and E5 both open
    result = Search(game, evaluator(), config, seed=0).run(3000)
    assert result.best_action in (gtp_to_action("A1", 6), gtp_to_action("E5", 6))


def test_finds_the_deciding_capture() -> None:
    """Black to move captures the two white stones in atari; any other move lets them escape.

    Uniform priors and zero values give the search no reason to prefer any move
    before the game's end, so this test values positions by their area count.
    """
    game = game_from_diagram("""
        . . . . .
        . X X X .
        X O O . .
        . X X X .
        . . . . .
        """, Rules.go(5, "chinese", komi=0.5), BLACK)
    result = Search(game, AreaValue(), SearchConfig(batch_size=4), seed=0).run(1000)
    assert result.best_action == gtp_to_action("D3", 5)


def test_seeded_search_is_reproducible() -> None:
    def run() -> np.ndarray:
        game = Game(Rules.go(9))
        return Search(game, Uniform(), SearchConfig(batch_size=8), seed=7).run(300, noise=True).visits

    np.testing.assert_array_equal(run(), run())


def test_noise_changes_the_root_priors_but_keeps_them_a_distribution() -> None:
    game = Game(Rules.go(9))
    search = Search(game, Uniform(), seed=3)
    result = search.run(50, noise=True)
    assert not np.allclose(result.priors[:-1], result.priors[0])
    assert result.priors.sum() == pytest.approx(1.0, abs=1e-4)


def test_shaped_root_searches_only_the_allowed_moves_with_the_whole_policy_evaluated() -> None:
    rules = Rules.go(5)
    favourite = gtp_to_action("C3", 5)
    evaluator = FixedPriors(favourite, weight=0.9)
    allowed = np.zeros(rules.num_actions, dtype=np.bool_)
    allowed[[favourite, gtp_to_action("B2", 5), gtp_to_action("D4", 5)]] = True
    search = Search(Game(rules), evaluator, SearchConfig(batch_size=4))
    search.shape_root(allowed=allowed, temperature=2.0)
    result = search.run(40)
    assert set(np.flatnonzero(result.visits)) <= set(np.flatnonzero(allowed))
    assert result.visits.sum() == 39
    widened = np.sqrt(0.9) / (np.sqrt(0.9) + 25 * np.sqrt(0.1 / 25))  # 0.9 ** (1/2) against 25 moves of 0.1 / 25
    assert result.priors[favourite] == pytest.approx(widened, rel=1e-4)
    assert result.priors[favourite] < 0.9


def test_a_shape_that_allows_no_legal_move_is_ignored_and_temperature_must_be_positive() -> None:
    search = Search(Game(Rules.go(5)), Uniform())
    search.shape_root(allowed=np.zeros(26, dtype=np.bool_))
    assert search.run(30).visits.sum() == 29
    with pytest.raises(ValueError, match="temperature"):
        search.shape_root(temperature=0.0)


def test_line_visits_follow_the_principal_variation() -> None:
    search = Search(Game(Rules.go(5)), FixedPriors(gtp_to_action("C3", 5)), SearchConfig(batch_size=2))
    result = search.run(60)
    visits = search.line_visits(result.pv)
    assert len(visits) == len(result.pv) and visits[0] == result.visits[result.pv[0]]
    assert visits == sorted(visits, reverse=True)
    assert search.line_visits([gtp_to_action("A1", 5), gtp_to_action("A1", 5)]) in ([], [0], [1])


def test_tree_reuse_keeps_the_chosen_subtree() -> None:
    game = Game(Rules.go(9))
    search = Search(game, FixedPriors(gtp_to_action("E5", 9)), SearchConfig(batch_size=8), seed=0)
    result = search.run(400)
    chosen = result.best_action
    kept = int(result.visits[chosen])
    game.play(chosen)
    search.set_game(game)
    assert search.root_visits == kept
    after = search.run(kept + 100)
    assert after.visits.sum() == kept + 100 - 1


def test_tree_is_rebuilt_when_the_game_does_not_follow() -> None:
    game = Game(Rules.go(9))
    search = Search(game, Uniform(), seed=0)
    search.run(100)
    other = _game(Rules.go(9), ["A1", "B1"])
    search.set_game(other)
    assert search.root_visits == 0
    assert search.run(50).visits.sum() == 49


def test_finished_game_returns_its_exact_value() -> None:
    game = _game(Rules.go(5, "chinese", komi=0.5), ["C3", "pass", "pass"])
    result = Search(game, Uniform(), seed=0).run(10)
    assert result.simulations == 0
    assert result.value == -1.0  # white to move; black owns the board


def test_tree_grows_when_full_and_is_pruned_at_its_capacity() -> None:
    game = Game(Rules.go(5))
    search = Search(game, Uniform(), SearchConfig(batch_size=8), seed=0)
    initial = search.tree.allocated
    assert search.run(2000).simulations == 2000
    assert search.tree.allocated > initial and search.tree.nodes > initial and search.tree.prunings == 0
    capped = Search(game, AreaValue(), SearchConfig(batch_size=8, capacity=600), seed=0)
    result = capped.run(5000)
    assert result.simulations == 5000 and not capped.tree.full
    assert capped.tree.prunings >= 2 and capped.tree.nodes <= 600 and capped.tree.allocated == 600
    assert result.visits.sum() == capped.root_visits - 1 == 4999  # no visit lost to pruning


def test_pruning_drops_the_children_of_the_least_visited_nodes_only() -> None:
    game = Game(Rules.go(5))
    search = Search(game, AreaValue(), SearchConfig(batch_size=4, capacity=4000), seed=0)
    search.run(600)
    tree = search.tree
    count = tree.nodes
    before_ints, before_floats = tree.ints[:, :count].copy(), tree.floats[:, :count].copy()
    root_children = tree.children()
    old_of_new = tree.prune()
    assert old_of_new is not None and tree.nodes <= tree.allocated // 2 < count
    kept = old_of_new[:tree.nodes]
    assert len(set(kept.tolist())) == tree.nodes
    for row in (VISITS, PROVEN):
        assert (tree.ints[row, :tree.nodes] == before_ints[row, kept]).all()
    assert (tree.floats[:, :tree.nodes] == before_floats[:, kept]).all()
    assert tree.children() == slice(1, 1 + root_children.stop - root_children.start)
    assert (tree.ints[ACTION, tree.children()] == before_ints[ACTION, root_children]).all()
    was_expanded = before_ints[FIRST_CHILD, kept] >= 0
    still = tree.ints[FIRST_CHILD, :tree.nodes] >= 0
    visits = tree.ints[VISITS, :tree.nodes]
    pruned = was_expanded & ~still
    assert pruned.any() and still[1:].any()
    bound = visits[pruned].max() + 1
    assert (visits[1:][still[1:]] >= bound).all()  # every node that keeps its children has more visits
    for node in np.flatnonzero(still):  # and keeps them all, in order, pointing back at it
        children = tree.children(int(node))
        old_children = slice(before_ints[FIRST_CHILD, kept[node]],
                             before_ints[FIRST_CHILD, kept[node]] + before_ints[NUM_CHILDREN, kept[node]])
        assert (kept[children] == np.arange(old_children.start, old_children.stop)).all()
        assert (tree.ints[PARENT, children] == node).all()
    assert search.run(search.root_visits + 300).visits.sum() == search.root_visits - 1


def test_a_reused_slot_starts_its_squares_of_values_afresh() -> None:
    """Creating a node leaves its squares-of-values row as it was (the first backup writes it): a tree started
    afresh over the slots of a deeper search holds at each node the squares of its own values only."""
    search = Search(Game(Rules.go(5)), NoisyValues(), SearchConfig(batch_size=4), seed=0)
    search.run(2000)
    search.reset()   # the same arrays, every slot but the root's as the deeper search left it
    search.run(300)
    tree = search.tree
    once = np.flatnonzero(tree.ints[VISITS, :tree.nodes] == 1)   # one value backed up: its square is the row
    assert once.size > 50
    assert np.allclose(tree.floats[VALUE_SQUARES, once], tree.floats[VALUE_SUM, once] ** 2)


def test_a_tree_too_small_to_prune_is_full_and_stops() -> None:
    """5x5 has 26 actions: a tree of 40 nodes cannot keep the root's children in half of it."""
    capped = Search(Game(Rules.go(5)), Uniform(), SearchConfig(batch_size=1, capacity=40), seed=0)
    result = capped.run(200)
    assert capped.tree.full and result.simulations < 200 and capped.tree.prunings == 0


def test_pruning_keeps_the_ownership_of_the_nodes_that_stay() -> None:
    game = Game(Rules.go(5, "chinese"))
    search = Search(game, ScoreByMove(0, 1), SearchConfig(batch_size=4, capacity=1500), seed=0)
    search.run(1500)
    pool = search.ownership_pool
    assert search.tree.prunings >= 1 and len(pool) > 0
    nodes = pool.nodes[:len(pool)]
    assert (nodes < search.tree.nodes).all()
    assert (search.tree.ints[VISITS, nodes] > 0).all()  # rows of evaluated nodes only, none of a dropped one


class Slow(Uniform):
    """Uniform priors, each call taking ``seconds`` on the search's clock (a network on a loaded machine)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.now = 0.0

    def monotonic(self) -> float:
        """The clock the search reads (``time.monotonic`` in :mod:`engine.search.mcts`)."""
        return self.now

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        self.now += self.seconds
        return super().evaluate(positions, legal)


def _stepped(search: Search, visits: int, seconds: float) -> SearchResult:
    """The search run as the shared scheduler runs its jobs, one :func:`step` at a time."""
    job = SearchJob(search, search.evaluator, visits, seconds=seconds)
    while not job.finished:
        step([job])
    return job.result()


@pytest.mark.parametrize("driver", ["run", "step"])
def test_a_timed_search_begins_no_step_that_would_end_past_its_time(driver: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Steps of 0.2 s in 0.5 s: a third would end past it (at 0.6 s), so the search stops after two at most;
    the first step always runs, however short the time. A search run alone and a job of the scheduler keep
    time alike."""
    def timed(seconds: float) -> SearchResult:
        slow = Slow(0.2)
        monkeypatch.setattr(mcts, "time", SimpleNamespace(monotonic=slow.monotonic))
        search = Search(Game(Rules.go(5)), slow, SearchConfig(batch_size=4), seed=0)
        return search.run(10_000, seconds=seconds) if driver == "run" else _stepped(search, 10_000, seconds)

    result = timed(0.5)
    assert result.seconds < 0.5 and result.simulations in (1, 1 + 4)   # the root, then a batch if time allows
    assert timed(0.01).simulations == 1


# -------------------------------------------------- the network's score and ownership over the tree
def _steered(legal: np.ndarray, action: int) -> np.ndarray:
    """Priors ``float32[1, A]``: 0.99 on ``action``, the rest spread over the other legal actions."""
    priors = legal[None].astype(np.float32)
    priors[0, action] = 0.0
    priors *= 0.01 / priors.sum()
    priors[0, action] = 0.99
    return priors


def _heads(legal: np.ndarray, action: int, mean: float, stdev: float, ownership: np.ndarray) -> Evaluation:
    return Evaluation(_steered(legal, action), np.zeros(1, np.float32), ownership[None].astype(np.float32),
                      np.float32([mean]), np.float32([stdev]))


def _three_node_tree(game: Game) -> Search:
    """Root -> C3 -> D3, evaluated one by one (batches of 1): scores 3, -5, 1 with stdevs 2, 1, 4 (each
    from its side to move) and ownership 0.5 everywhere at the root, 0.25 after C3 (the replier's view),
    1 on A5 (action 0) and 0 elsewhere after D3."""
    search = Search(game, Uniform(), SearchConfig(batch_size=1), seed=0)
    c3, d3 = gtp_to_action("C3", 5), gtp_to_action("D3", 5)
    corner = np.zeros(25)
    corner[0] = 1.0
    assert search.begin()
    for action, mean, stdev, ownership in ((c3, 3.0, 2.0, np.full(25, 0.5)), (d3, -5.0, 1.0, np.full(25, 0.25)),
                                           (0, 1.0, 4.0, corner)):
        leaves, legal, finished = search.gather(1)
        assert len(leaves) == 1 and finished == 0
        search.complete(_heads(legal[0], action, mean, stdev, ownership))
    assert search.root_visits == 3 and search.tree.child(0, c3) >= 0
    return search


@pytest.mark.parametrize("to_play", ["B", "W"])
def test_score_and_ownership_are_averaged_over_the_tree(to_play: str) -> None:
    """Every node's evaluation counts once, each turned to the root's side to move (hand-computed)."""
    game = game_from_diagram("\n".join([". . . . ."] * 5), Rules.go(5, "chinese"), to_play)
    search = _three_node_tree(game)
    result = search.result()
    c3 = gtp_to_action("C3", 5)
    # root 3, after C3 +5 (its -5 is the opponent's), after D3 1: mean 3; E[stdev^2 + mean^2] = (13 + 26 + 17) / 3
    assert result.score_mean == pytest.approx(3.0)
    assert result.score_stdev == pytest.approx(np.sqrt(56 / 3 - 9), rel=1e-5)
    assert result.move_scores[c3] == pytest.approx(3.0)            # (5 + 1) / 2
    assert result.move_score_stdevs[c3] == pytest.approx(np.sqrt(43 / 2 - 9), rel=1e-5)
    assert result.move_scores[gtp_to_action("A1", 5)] == 0.0       # unvisited
    want = np.full(25, (0.5 - 0.25) / 3, np.float32)
    want[0] = (0.5 - 0.25 + 1) / 3
    np.testing.assert_allclose(result.ownership, want, atol=1e-3)  # float16 rows
    after_c3 = np.full(25, -0.25 / 2, np.float32)
    after_c3[0] = (1 - 0.25) / 2
    np.testing.assert_allclose(search.ownership(c3), after_c3, atol=1e-3)
    assert search.ownership(gtp_to_action("A1", 5)) is None


@pytest.mark.parametrize("to_play", ["B", "W"])
def test_the_ownership_spread_is_over_the_same_nodes(to_play: str) -> None:
    """The standard deviation, point by point, of the rows the mean averages (hand-computed; no sign flips it)."""
    game = game_from_diagram("\n".join([". . . . ."] * 5), Rules.go(5, "chinese"), to_play)
    search = _three_node_tree(game)
    want = np.full(25, np.std([0.5, -0.25, 0.0]), np.float32)
    want[0] = np.std([0.5, -0.25, 1.0])
    np.testing.assert_allclose(search.ownership_stdev(), want, atol=1e-3)
    after_c3 = np.full(25, 0.125, np.float32)
    after_c3[0] = 0.625
    np.testing.assert_allclose(search.ownership_stdev(gtp_to_action("C3", 5)), after_c3, atol=1e-3)
    assert search.ownership_stdev(gtp_to_action("A1", 5)) is None
    assert Search(game, Uniform(), seed=0).ownership_stdev() is None


def test_kept_out_moves_are_not_searched_within_their_depth() -> None:
    """Black's C3 at the root only, white's C3 in the first two plies: no node plays them there; black's second
    move (ply 3) may; a position whose only move is kept out keeps it (the root, here: black may play only C3)."""
    game = Game(Rules.go(5, "chinese"))
    c3 = gtp_to_action("C3", 5)
    until = np.zeros((3, 26), dtype=np.int64)
    until[BLACK, c3], until[WHITE, c3] = 1, 2
    search = Search(game, Uniform(), SearchConfig(batch_size=8), seed=0)
    search.shape_root(kept_out=until)
    search.run(3000)
    ints, count = search.tree.ints, search.tree.nodes
    depth = np.zeros(count, dtype=np.int64)
    for node in range(1, count):
        depth[node] = depth[ints[3, node]] + 1      # PARENT: nodes come after their parents
    plays_c3 = ints[ACTION, 1:count] == c3
    assert not plays_c3[depth[1:count] <= 2].any() and plays_c3[depth[1:count] == 3].any()
    only = np.ones((3, 26), dtype=np.int64)
    only[BLACK, c3] = 0
    search.set_game(game)
    search.shape_root(kept_out=only)
    result = search.run(50)
    assert set(np.flatnonzero(result.visits)) == {c3}
    search.set_game(game)                             # forgets what was kept out, and the tree that lacks it
    assert len(np.flatnonzero(search.run(200).visits)) > 1


def test_tree_reuse_carries_the_score_and_the_ownership() -> None:
    game = Game(Rules.go(5, "chinese"))
    search = _three_node_tree(game)
    game.play(gtp_to_action("C3", 5))
    search.set_game(game)
    result = search.result()  # white to move now, over the subtree after C3: its own evaluation and D3's
    assert search.root_visits == 2
    assert result.score_mean == pytest.approx(-3.0)
    assert result.score_stdev == pytest.approx(np.sqrt(43 / 2 - 9), rel=1e-5)
    want = np.full(25, 0.25 / 2, np.float32)
    want[0] = (0.25 - 1) / 2
    np.testing.assert_allclose(result.ownership, want, atol=1e-3)


def test_without_the_heads_there_is_no_score_or_ownership() -> None:
    result = Search(Game(Rules.go(5)), Uniform(), seed=0).run(50)
    assert result.score_mean is None and result.move_scores is None and result.ownership is None


class ScoreByMove(Uniform):
    """Uniform priors and value 0; a stone on ``good`` is worth 10 points to its owner, one on ``bad`` -10."""

    def __init__(self, good: int, bad: int) -> None:
        super().__init__()
        self.good, self.bad = good, bad

    def evaluate(self, positions: Sequence[Position], legal: np.ndarray | None = None) -> Evaluation:
        evaluation = super().evaluate(positions, legal)
        scores = []
        for p in positions:
            board = p.board().reshape(-1)
            value = {0: 0.0, BLACK: 10.0, WHITE: -10.0}
            lead = value[int(board[self.good])] - value[int(board[self.bad])]  # black's
            scores.append(lead if p.to_play == BLACK else -lead)
        n = len(positions)
        return evaluation._replace(ownership=np.zeros((n, p.size ** 2), np.float32),
                                   score_mean=np.float32(scores), score_stdev=np.ones(n, np.float32))


def test_score_utility_steers_the_search_only_when_on() -> None:
    good, bad = gtp_to_action("C3", 5), gtp_to_action("A1", 5)
    game = Game(Rules.go(5, "chinese"))
    off = Search(game, ScoreByMove(good, bad), SearchConfig(batch_size=1), seed=0).run(200)
    on = Search(game, ScoreByMove(good, bad), SearchConfig(batch_size=1, score_utility=0.5), seed=0).run(200)
    assert on.move_scores[good] == pytest.approx(10.0, abs=0.5) and on.move_scores[bad] == pytest.approx(-10.0)
    assert abs(off.visits[good] - off.visits[bad]) <= 1  # equal priors and values: the score is not looked at
    assert on.visits[good] > 10 * on.visits[bad] and on.best_action == good


def test_finished_games_back_up_their_exact_score() -> None:
    """White passed: black's pass ends the game, which black wins by 25 - 0.5 on the board as it stands."""
    game = _game(Rules.go(5, "chinese", komi=0.5), ["C3", "pass"])
    result = Search(game, ScoreByMove(0, 1), SearchConfig(batch_size=4), seed=0).run(300)
    assert result.visits[game.rules.pass_action] > 0
    assert result.move_scores[game.rules.pass_action] == pytest.approx(24.5)
    assert result.move_score_stdevs[game.rules.pass_action] == pytest.approx(0.0, abs=1e-2)


def test_pruning_and_rerooting_work_in_the_trees_own_arrays_and_clear_what_they_leave() -> None:
    game = Game(Rules.go(5))
    search = Search(game, AreaValue(), SearchConfig(batch_size=4, capacity=4000), seed=0)
    search.run(600)
    tree = search.tree
    ints, floats, count = tree.ints, tree.floats, tree.nodes
    assert tree.prune() is not None and tree.ints is ints and tree.floats is floats
    assert (ints[:, tree.nodes:count] == 0).all() and (floats[:, tree.nodes:count] == 0).all()
    best = int(np.argmax(search.result().visits))
    game.play(best)
    count = tree.nodes
    search.set_game(game)
    assert tree.ints is ints and 1 < tree.nodes < count and (ints[:, tree.nodes:count] == 0).all()
    assert ints[PARENT, 0] == -1 and ints[ACTION, 0] == -1 and floats[PRIOR, 0] == 1.0
    assert search.run(search.root_visits + 300).visits.sum() == search.root_visits - 1


def test_a_search_whose_budget_can_fill_the_tree_takes_its_capacity_at_the_start() -> None:
    game = Game(Rules.go(5))
    capacity = 26 * 400
    bounded = Search(game, AreaValue(), SearchConfig(batch_size=4, capacity=capacity), seed=0)
    bounded.run(100)
    assert bounded.tree.allocated < capacity   # 100 visits of 26 children each cannot fill it: it grows as needed
    open_ended = Search(game, AreaValue(), SearchConfig(batch_size=4, capacity=capacity), seed=0)
    job = SearchJob(open_ended, open_ended.evaluator, 400)
    assert open_ended.tree.allocated == capacity and not job.finished
    assert open_ended.run(400).visits.sum() == 399


def test_a_timed_search_grows_its_tree_as_it_goes_instead() -> None:
    capacity = 26 * 400
    timed = Search(Game(Rules.go(5)), AreaValue(), SearchConfig(batch_size=4, capacity=capacity), seed=0)
    SearchJob(timed, timed.evaluator, 400, seconds=5.0)
    assert timed.tree.allocated < capacity   # the reservation would be spent from the move's clock
