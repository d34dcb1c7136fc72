"""The search's solver: proven wins and losses carried up the tree as exact values, and the root's choice."""

from __future__ import annotations

import numpy as np

from engine.core.board import TO_PLAY, geometry
from engine.core.coords import gtp_to_action
from engine.core.dispatch import pack_rules, winning_point
from engine.core.game import Game
from engine.core.position import PositionBatch
from engine.core.rules import Rules
from engine.core.types import BLACK
from engine.formats.diagram import game_from_diagram
from engine.search.config import SearchConfig
from engine.search.evaluator import Evaluation, Positions, UniformEvaluator, apply_decisive_moves
from engine.search.mcts import Search
from engine.search.tree import (
    FIRST_CHILD,
    PARENT,
    PROVEN,
    PROVEN_LOSS,
    PROVEN_WIN,
    UNPROVEN,
    VIRTUAL,
    Tree,
    expand_and_backup,
)
from tests.engine.core.test_gomoku_positions import DOUBLE_FOUR

NO_SCORES = np.zeros((0, 2), np.float32)


class FivesOnly:
    """Uniform priors and value 0, but a position whose side to move can make five at once is proven won: the
    search must find anything deeper by itself. ``loved`` gets ``weight`` of every prior where it is legal."""

    def __init__(self, loved: int = -1, weight: float = 0.9) -> None:
        self.loved, self.weight = loved, weight

    def evaluate(self, positions: Positions, legal: np.ndarray | None = None) -> Evaluation:
        batch = PositionBatch.stack(positions)
        evaluation = UniformEvaluator().evaluate(batch, legal)
        priors, values = evaluation.priors, evaluation.values
        _love(priors, self.loved, self.weight)
        geo, spec = geometry(batch.rules.size), pack_rules(batch.rules)
        proven = np.array([winning_point(cells, info, geo.width, geo.action_point, spec, int(info[TO_PLAY])) >= 0
                           for cells, info in zip(batch.cells, batch.info)], dtype=np.bool_)
        values[proven] = 1.0
        return Evaluation(priors, values, proven=proven)


class LovesOneMove:
    """Uniform priors with ``weight`` of them on ``loved``, value 0, and Gomoku's decisive moves (their proofs)."""

    def __init__(self, loved: int, weight: float = 0.9) -> None:
        self.loved, self.weight = loved, weight

    def evaluate(self, positions: Positions, legal: np.ndarray | None = None) -> Evaluation:
        batch = PositionBatch.stack(positions)
        evaluation = UniformEvaluator().evaluate(batch, legal)
        _love(evaluation.priors, self.loved, self.weight)
        proven = apply_decisive_moves(batch, evaluation.priors, evaluation.values)
        return evaluation._replace(proven=proven)


def _love(priors: np.ndarray, action: int, weight: float) -> None:
    """Give ``action`` (-1: none) ``weight`` of the priors where it is legal, the rest in proportion."""
    if action < 0:
        return
    rows = priors[:, action] > 0
    priors[rows] *= (1 - weight) / np.maximum(1 - priors[rows, action:action + 1], 1e-9)
    priors[rows, action] = weight


# ------------------------------------------------------------ hand-built trees
def _expand(tree: Tree, node: int, actions: list[int], value: float = 0.0, proven: bool = False) -> None:
    """Expand ``node`` with children for ``actions`` (of 4), backing up ``value`` for its side to move."""
    legal = np.zeros((1, 4), np.bool_)
    legal[0, actions] = True
    priors = legal / legal.sum()
    path = node
    while path >= 0:  # the virtual visits that selection would have added
        tree.ints[VIRTUAL, path] += 1
        path = tree.ints[PARENT, path]
    assert expand_and_backup(tree.ints, tree.floats, tree.count, np.array([node]), 1, legal,
                             priors.astype(np.float32), np.float32([value]), NO_SCORES, np.array([proven]))


def test_a_child_won_for_the_side_to_move_proves_its_parent_lost_for_the_other() -> None:
    tree = Tree(64, 64)
    _expand(tree, 0, [0, 1, 2])
    _expand(tree, 2, [0, 1])  # an unproven grandchild level
    _expand(tree, 4, [3], value=-1.0, proven=True)  # node 4 (root -> 2 -> 0): lost for its side to move
    assert tree.ints[PROVEN, 4] == PROVEN_WIN   # won for the root's side, who moved into it
    assert tree.ints[PROVEN, 2] == PROVEN_LOSS  # so the opponent, moving into 2, has lost
    assert tree.ints[PROVEN, 0] == UNPROVEN     # the root's side still has two other moves
    assert tree.floats[0, 2] == -1.0  # node 2 backed up its exact loss, not the leaf's own


def test_a_node_whose_children_are_all_lost_is_won_for_the_player_who_moved_into_it() -> None:
    tree = Tree(64, 64)
    _expand(tree, 0, [0, 1])
    _expand(tree, 1, [2], value=1.0, proven=True)
    assert tree.ints[PROVEN, 1] == PROVEN_LOSS and tree.ints[PROVEN, 0] == UNPROVEN
    _expand(tree, 2, [2], value=1.0, proven=True)
    assert tree.ints[PROVEN, 2] == PROVEN_LOSS
    assert tree.ints[PROVEN, 0] == PROVEN_WIN  # the root's side to move has lost


def test_an_unproven_value_of_one_proves_nothing() -> None:
    tree = Tree(64, 64)
    _expand(tree, 0, [0, 1])
    _expand(tree, 1, [2], value=1.0, proven=False)
    _expand(tree, 2, [2], value=1.0, proven=False)
    assert (tree.ints[PROVEN, :tree.nodes] == UNPROVEN).all()


def test_rerooting_without_the_winning_child_unproves_the_root() -> None:
    tree = Tree(64, 64)
    _expand(tree, 0, [0, 1, 2])
    _expand(tree, 2, [3], value=-1.0, proven=True)  # action 1 wins for the root's side
    assert tree.ints[PROVEN, 0] == PROVEN_LOSS
    kept = tree.reroot(0, np.array([True, True, True, True]))
    assert tree.ints[PROVEN, 0] == PROVEN_LOSS and tree.ints[PROVEN, 2] == PROVEN_WIN and kept[2] == 2
    tree.reroot(0, np.array([True, False, True, True]))
    assert tree.ints[PROVEN, 0] == UNPROVEN


# ------------------------------------------------------------ Gomoku searches
OPEN_THREE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . X X X . . . .
    . . . . . . . . .
    . . . O . . . . .
    . . O . . . . . .
    . . . . . . . . .
    """


def test_a_win_proven_within_the_tree_is_chosen_and_reported_exactly() -> None:
    """Black's open three makes an open four, after which every white move allows a five: proven in the tree
    (the evaluator sees only fives at once)."""
    game = game_from_diagram(OPEN_THREE, Rules.gomoku(9), BLACK)
    search = Search(game, FivesOnly(), SearchConfig(batch_size=8), seed=0)
    result = search.run(1500)
    fours = {gtp_to_action("B5", 9), gtp_to_action("F5", 9)}
    assert result.value == 1.0
    assert search.tree.ints[PROVEN, 0] == PROVEN_LOSS
    assert result.best_action in fours and result.proven[result.best_action] == PROVEN_WIN
    assert result.policy(1.0)[result.best_action] == 1.0


WHITE_DOUBLE_FOUR = DOUBLE_FOUR.replace("X", "#").replace("O", "X").replace("#", "O")   # white's to make at E5


def test_a_move_proven_lost_is_never_chosen_even_when_the_priors_love_it() -> None:
    """Away from E5, black lets white make a double four there: a VCF the evaluator proves at white's turn."""
    game = game_from_diagram(WHITE_DOUBLE_FOUR, Rules.gomoku(9), BLACK)
    loved = gtp_to_action("J1", 9)
    search = Search(game, LovesOneMove(loved, 0.95), SearchConfig(batch_size=4), seed=0)
    result = search.run(200)
    assert result.proven[loved] == PROVEN_LOSS
    assert result.visits[loved] == 1  # visited once, proven, never entered again
    assert result.best_action != loved and result.proven[result.best_action] != PROVEN_LOSS
    assert result.policy(1.0)[loved] == 0.0


def test_the_root_avoids_a_proven_loss_that_has_the_most_visits() -> None:
    """Proofs outrank visits: the loved move's visits came before the opponent's five showed."""
    game = game_from_diagram("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X O O O O . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """, Rules.gomoku(9), BLACK)
    loved = gtp_to_action("J1", 9)
    search = Search(game, FivesOnly(loved, 0.99), SearchConfig(batch_size=1), seed=0)
    result = search.run(2)  # the root, then its loved child: proven lost at once
    assert result.proven[loved] == PROVEN_LOSS and result.visits[loved] == 1
    assert result.searched_action == loved
    assert result.best_action != loved and result.solved_action == result.best_action
    assert Search(game, FivesOnly(loved, 0.99), SearchConfig(batch_size=4), seed=0).run(300).best_action == \
        gtp_to_action("F5", 9)


# ------------------------------------------------------------ Go
def test_a_go_search_without_finished_games_proves_nothing() -> None:
    search = Search(Game(Rules.go(19)), UniformEvaluator(), SearchConfig(batch_size=8), seed=0)
    result = search.run(200)
    tree = search.tree
    assert (tree.ints[PROVEN, :tree.nodes] == UNPROVEN).all()
    assert (tree.ints[FIRST_CHILD, :tree.nodes] >= 0).sum() > 100
    assert result.solved_action is None and not result.proven.any() and abs(result.value) < 1.0
