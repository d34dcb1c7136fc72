"""The search tree as preallocated arrays, and its compiled kernels (mctx style).

Node ``i``'s fields live in two arrays, one row per field:

``ints: int32[INT_ROWS, M]``
    ``ints[VISITS, i]``        completed simulations through node i
    ``ints[VIRTUAL, i]``       simulations in flight through node i (virtual loss)
    ``ints[ACTION, i]``        action that leads from the parent to node i
    ``ints[PARENT, i]``        parent node, -1 for the root (node 0)
    ``ints[FIRST_CHILD, i]``   first child (children are contiguous), UNEXPANDED or PENDING
    ``ints[NUM_CHILDREN, i]``  number of children (the legal actions at expansion)
    ``ints[PROVEN, i]``        PROVEN_WIN / PROVEN_LOSS: the game is proven won / lost for the player who moved
                               into i; UNPROVEN otherwise (see "The solver" below)
``floats: float32[FLOAT_ROWS, M]``
    ``floats[VALUE_SUM, i]``     sum of backed-up values, from the view of the player who moved into i
    ``floats[PRIOR, i]``         prior probability of the edge into i
    ``floats[NET_VALUE, i]``     evaluator's value of node i, from the view of the side to move at i
    ``floats[SCORE_SUM, i]``     sum of backed-up score means (points, komi included), same view as VALUE_SUM
    ``floats[SCORE_SQUARES, i]`` sum of backed-up ``stdev**2 + mean**2`` (points squared, no sign)
    ``floats[VALUE_SQUARES, i]`` sum of the squares of the backed-up values (the spread of a node's values)
``count: int64[1]``              nodes in use

:class:`Tree` owns one search's arrays: it allocates them small and doubles them when an expansion
finds no room, and re-roots them onto a subtree when the game moves on.

Values and scores flip sign once per ply. A simulation walks down by PUCT with virtual
loss (each simulation in flight counts as a loss), replays the path's moves
on a copy of the root position, and stops at an unexpanded node: a finished
game is backed up at once with its exact value and score (stdev 0); anything else becomes a leaf
of the batch, marked PENDING so that no other simulation of the batch takes it.
The score rows stay 0 for leaves of an evaluator without a score head; then
only finished games add to them, and the search reports no score.

The subtree's mean score of node i is ``SCORE_SUM / VISITS`` and its standard
deviation ``sqrt(SCORE_SQUARES / VISITS - mean**2)``: KataGo's combination of
the leaves' predicted spreads with the spread of their means. The score rows
mean something only once ``VISITS > 0``: the first backup through a node
writes them, so that creating a node does not (zeroing two more rows for
every child made ``engine bench search`` on 19x19 about 15% slower). So does
the squares of the values row, ``VALUE_SQUARES``. With
``score_utility`` > 0 selection adds KataGo's score utility to each visited
child's Q: ``score_utility * 2/pi * atan((mean - center) / scale)``, ``center``
being the root's mean score (seen, like the child's mean, from the player choosing).

The solver (Winands, Björnsson and Saito's MCTS-solver, 2008): a finished game that is won or lost, and a leaf
whose evaluation is a proof (the evaluator says so: Gomoku's decisive moves), get a proven status. Backup
carries it up: a node with a child proven won for its side to move is proven lost for the player who moved into
it, and a node all of whose children are proven lost for that side is proven won. A proven node below the root
is not searched again: a simulation that reaches it backs up its exact value (+1 / -1) at once, and so do the
nodes it proves. Selection never enters a child proven lost for the player choosing while another remains, and
enters a child proven won at once. A draw proves nothing. Like the score rows, a node's status means something
only once ``VISITS > 0``: selection clears it when it first reaches the node, so that creating a node does not.
"""

from __future__ import annotations

import math
import time

import numpy as np

from engine.core.board import PASS_POINT, TO_PLAY, copy_array
from engine.core.dispatch import drop_own_eyes, fill_legal_mask, game_result, is_terminal, pack_rules, play_point
from engine.core.jit import njit
from engine.core.position import Position
from engine.core.types import BLACK

__all__ = ["VISITS", "VIRTUAL", "ACTION", "PARENT", "FIRST_CHILD", "NUM_CHILDREN", "PROVEN", "INT_ROWS",
           "VALUE_SUM", "PRIOR", "NET_VALUE", "SCORE_SUM", "SCORE_SQUARES", "VALUE_SQUARES", "FLOAT_ROWS",
           "UNEXPANDED", "PENDING", "UNPROVEN", "PROVEN_WIN", "PROVEN_LOSS", "STDEV_PRIOR", "STDEV_PRIOR_WEIGHT",
           "reset_tree", "value_stdev", "exploration_factor", "value_stdevs", "select_leaves", "expand_and_backup",
           "compact_subtree", "principal_variation", "terminal_outcome", "root_children_of", "Tree",
           "compile_kernels_beside_selection"]

VISITS, VIRTUAL, ACTION, PARENT, FIRST_CHILD, NUM_CHILDREN, PROVEN = 0, 1, 2, 3, 4, 5, 6
INT_ROWS = 7
VALUE_SUM, PRIOR, NET_VALUE, SCORE_SUM, SCORE_SQUARES, VALUE_SQUARES = 0, 1, 2, 3, 4, 5
FLOAT_ROWS = 6
UNEXPANDED = -1
PENDING = -2
UNPROVEN, PROVEN_WIN, PROVEN_LOSS = 0, 1, -1
STDEV_PRIOR, STDEV_PRIOR_WEIGHT = 0.4, 2.0
"""The spread of values a node is assumed to have before its visits show one, and that assumption's weight in
visits (KataGo's cpuctUtilityStdevPrior and cpuctUtilityStdevPriorWeight): see :func:`exploration_factor`."""
LOST_SCORE = 1e9
"""Taken off a proven-lost child's Q + U in selection: it ranks below every child that is not."""


@njit(cache=True, inline="always")  # inlined: its callers pass constants, and numba compiles a call per constant
def _init_node(ints, floats, i, parent, action, prior):
    ints[VISITS, i] = 0
    ints[VIRTUAL, i] = 0
    ints[ACTION, i] = action
    ints[PARENT, i] = parent
    ints[FIRST_CHILD, i] = UNEXPANDED
    ints[NUM_CHILDREN, i] = 0
    floats[VALUE_SUM, i] = 0.0
    floats[PRIOR, i] = prior
    floats[NET_VALUE, i] = 0.0


@njit(cache=True)
def reset_tree(ints, floats, count):
    """An empty tree: just an unexpanded root."""
    _init_node(ints, floats, 0, -1, -1, 1.0)
    ints[PROVEN, 0] = UNPROVEN
    count[0] = 1


@njit(cache=True, inline="always")  # inlined: selection calls it at every node it walks through
def value_stdev(ints, floats, node):
    """The standard deviation of the values backed up through ``node`` (at least one visit), blending
    ``STDEV_PRIOR`` (weighing ``STDEV_PRIOR_WEIGHT`` visits) with the values' own, so that a few values that
    happen to agree do not read as certainty."""
    visits = ints[VISITS, node]
    mean = floats[VALUE_SUM, node] / visits
    squares = max(floats[VALUE_SQUARES, node] / visits, mean * mean)
    variance = (((mean * mean + STDEV_PRIOR * STDEV_PRIOR) * STDEV_PRIOR_WEIGHT + squares * visits)
                / (STDEV_PRIOR_WEIGHT + visits - 1.0) - mean * mean)
    return math.sqrt(max(variance, 0.0))


@njit(cache=True)
def exploration_factor(ints, floats, node, stdev_scale):
    """How much more (above 1) or less (below 1) to explore below ``node`` than ``c_puct`` says, from the spread
    of the values backed up through it (KataGo's utility-stdev-scaled exploration): where the values disagree
    (a fight whose outcome turns on the reply) the search widens, where they agree it reads deeper.

    ``1 + stdev_scale * (stdev / STDEV_PRIOR - 1)``, the stdev that of :func:`value_stdev`; 1 where
    ``stdev_scale`` is 0."""
    if stdev_scale == 0.0 or ints[VISITS, node] <= 1:
        return 1.0
    return 1.0 + stdev_scale * (value_stdev(ints, floats, node) / STDEV_PRIOR - 1.0)


@njit(cache=True)
def value_stdevs(ints, floats, first, count, out):
    """``out[k]``: :func:`value_stdev` of node ``first + k`` for ``k < count`` (0 where unvisited)."""
    for k in range(count):
        node = first + k
        out[k] = value_stdev(ints, floats, node) if ints[VISITS, node] > 0 else 0.0


@njit(cache=True)
def _best_child(ints, floats, node, c_puct, fpu_reduction, fpu_value, score_utility, score_center, score_scale,
                forced_k, stdev_scale, fpu_from_mean):
    """The child maximising Q + U, where Q counts virtual visits as losses (plus the score utility, if on); a child
    proven won for the player choosing at once, one proven lost only when every child is.

    An unvisited child's Q is ``fpu_value`` where that is not NaN, else the node's own evaluation less
    ``fpu_reduction * sqrt(visited prior)``; with ``fpu_from_mean`` the node's evaluation is blended with its mean
    backed-up value, the mean weighing ``visited prior ** 2`` (KataGo's fpuParentWeightByVisitedPolicy): once
    the likely replies are read, what they found says more than the first look. ``stdev_scale``: see
    :func:`exploration_factor`.

    ``forced_k`` > 0 (KataGo's forced playouts, for the root of a self-play search): a child that has
    visits but fewer than ``sqrt(forced_k * P * sum of the children's visits)`` is taken first.
    """
    first = ints[FIRST_CHILD, node]
    last = first + ints[NUM_CHILDREN, node]
    visited_prior = 0.0
    child_visits = 0
    for c in range(first, last):
        n = ints[VISITS, c] + ints[VIRTUAL, c]
        if n > 0:
            visited_prior += floats[PRIOR, c]
            child_visits += n
    if forced_k > 0.0:
        for c in range(first, last):
            n = ints[VISITS, c] + ints[VIRTUAL, c]
            if n > 0 and n < math.sqrt(forced_k * floats[PRIOR, c] * child_visits) and ints[PROVEN, c] == UNPROVEN:
                return c
    parent_value = floats[NET_VALUE, node]
    if fpu_from_mean and ints[VISITS, node] > 0:
        weight = min(1.0, visited_prior * visited_prior)
        parent_value = weight * -floats[VALUE_SUM, node] / ints[VISITS, node] + (1.0 - weight) * parent_value
    fpu = parent_value - fpu_reduction * math.sqrt(visited_prior)
    if not math.isnan(fpu_value):
        fpu = fpu_value
    parent_visits = ints[VISITS, node] + ints[VIRTUAL, node]
    explore = c_puct * exploration_factor(ints, floats, node, stdev_scale) * math.sqrt(max(parent_visits, 1))
    best = first
    best_score = -1e30
    for c in range(first, last):
        n = ints[VISITS, c] + ints[VIRTUAL, c]
        q = fpu
        if n > 0:  # only a visited child is proven
            proven = ints[PROVEN, c]
            if proven == PROVEN_WIN:
                return c
            q = (floats[VALUE_SUM, c] - ints[VIRTUAL, c]) / n - (LOST_SCORE if proven == PROVEN_LOSS else 0.0)
        if score_utility != 0.0 and ints[VISITS, c] > 0:
            mean = floats[SCORE_SUM, c] / ints[VISITS, c]
            q += score_utility * (2.0 / math.pi) * math.atan((mean - score_center) / score_scale)
        score = q + explore * floats[PRIOR, c] / (1 + n)
        if score > best_score:
            best_score = score
            best = c
    return best


@njit(cache=True)
def _prove_parent(ints, child):
    """Prove ``child``'s parent, if the proven ``child`` decides it: lost for the player who moved into it when
    the child is won for its side to move, won when every child is lost for that side."""
    parent = ints[PARENT, child]
    if ints[PROVEN, child] == PROVEN_WIN:
        ints[PROVEN, parent] = PROVEN_LOSS
        return
    first = ints[FIRST_CHILD, parent]
    for c in range(first, first + ints[NUM_CHILDREN, parent]):
        if ints[VISITS, c] == 0 or ints[PROVEN, c] != PROVEN_LOSS:
            return
    ints[PROVEN, parent] = PROVEN_WIN


@njit(cache=True)
def _prove(ints, node, value):
    """Mark ``node`` proven from its exact ``value`` (for its side to move: +1 won, -1 lost; 0 proves nothing)."""
    if value > 0.0:
        ints[PROVEN, node] = PROVEN_LOSS
    elif value < 0.0:
        ints[PROVEN, node] = PROVEN_WIN


@njit(cache=True)
def _backup(ints, floats, leaf, value, scored, score, squares):
    """Back ``value`` (for the side to move at ``leaf``) up to the root, releasing virtual loss; with
    ``scored`` also ``score`` (same view) and ``squares`` (its ``stdev**2 + mean**2``).

    The solver: a proven node backs up its exact value, and proves its parent where it decides it."""
    node = leaf
    v = -value
    s = -score
    while node >= 0:
        proven = ints[PROVEN, node]
        if proven != UNPROVEN:
            v = float(proven)
        first = ints[VISITS, node] == 0  # the squares and score rows start here, not at _init_node (module docstring)
        floats[VALUE_SUM, node] += v
        if first:
            floats[VALUE_SQUARES, node] = v * v
        else:
            floats[VALUE_SQUARES, node] += v * v
        if scored:
            if first:
                floats[SCORE_SUM, node] = s
                floats[SCORE_SQUARES, node] = squares
            else:
                floats[SCORE_SUM, node] += s
                floats[SCORE_SQUARES, node] += squares
        ints[VISITS, node] += 1
        ints[VIRTUAL, node] -= 1
        parent = ints[PARENT, node]
        if proven != UNPROVEN and parent >= 0 and ints[PROVEN, parent] == UNPROVEN:
            _prove_parent(ints, node)
        v = -v
        s = -s
        node = parent


@njit(cache=True)
def _backup_exact(ints, floats, node, scored):
    """Back up a proven ``node``'s exact value again, with its mean score (its score rows stay as they are)."""
    visits = ints[VISITS, node]
    score, squares = 0.0, 0.0
    if scored and visits > 0:
        score = -floats[SCORE_SUM, node] / visits
        squares = floats[SCORE_SQUARES, node] / visits
    _backup(ints, floats, node, -float(ints[PROVEN, node]), scored, score, squares)


@njit(cache=True)
def _release(ints, leaf):
    node = leaf
    while node >= 0:
        ints[VIRTUAL, node] -= 1
        node = ints[PARENT, node]


@njit(cache=True)
def terminal_outcome(cells, info, W, action_point, spec, komi):
    """``(value, score)`` of a finished game for the side to move: +1 / -1 / 0 and its lead in points."""
    winner, lead = game_result(cells, info, W, action_point, spec, komi)
    mover = info[TO_PLAY]
    score = lead if mover == BLACK else -lead
    if winner == 0:
        return 0.0, score
    return (1.0 if winner == mover else -1.0), score


@njit(cache=True)
def select_leaves(ints, floats, root_cells, root_info, zobrist, W, action_point, spec, komi,
                  c_puct, fpu_reduction, root_fpu_reduction, fpu_value, scored, score_utility, score_center,
                  score_scale, forced_k, stdev_scale, fpu_from_mean, keep_eyes, root_path, budget, leaf_nodes,
                  leaf_cells, leaf_info, leaf_legal):
    """Run simulations down to at most ``leaf_nodes.shape[0]`` leaves, using up to ``budget`` simulations.

    Leaf ``j``'s state is left in ``leaf_cells[j]`` / ``leaf_info[j]`` and its
    legal actions in ``leaf_legal[j]``. Simulations that end in a finished game
    are backed up here. Returns ``(leaves, finished_games)``; the batch ends
    early when a simulation reaches a leaf already in it. ``scored``: the tree keeps
    scores (the evaluator has a score head); ``score_center`` is the root's mean
    score for its side to move (points); ``score_utility`` 0 turns the score term off.
    ``forced_k``: forced playouts at the root (0: off; see :func:`_best_child`). ``stdev_scale``: exploration
    scaled by the spread of values (0: off; :func:`exploration_factor`). ``fpu_from_mean``: see
    :func:`_best_child`. ``keep_eyes``: leave the
    moves that fill the mover's own one-point eyes out of the leaves' legal actions (Go; :func:`drop_own_eyes`).
    ``root_path`` (``int64[K]``, may be empty): simulation ``s`` of this call (finished games
    counted) descends from the root into child node ``root_path[s]`` instead of the PUCT choice
    (Gumbel's sequential halving chooses the root's children); past ``K`` the batch ends.
    """
    num_points = action_point.shape[0]
    root_flat = root_cells.ravel()
    leaves = 0
    finished = 0
    forced_root = root_path.shape[0] > 0
    if forced_root:
        budget = min(budget, root_path.shape[0])
    while leaves < leaf_nodes.shape[0] and leaves + finished < budget:
        cells = leaf_cells[leaves]
        info = leaf_info[leaves]
        copy_array(root_flat, cells.ravel())  # one contiguous copy, not a 2-D strided loop
        copy_array(root_info, info)
        node = np.int64(0)  # typed as the nodes below it, so that _best_child compiles once (not for a constant 0)
        center = score_center
        ints[VIRTUAL, 0] += 1
        while ints[FIRST_CHILD, node] >= 0 and ints[NUM_CHILDREN, node] > 0 and (
                node == 0 or ints[PROVEN, node] == UNPROVEN):
            if node == 0 and forced_root:
                node = root_path[leaves + finished]
            else:  # one call: numba compiles a call with a constant argument apart
                root = node == 0
                node = _best_child(ints, floats, node, c_puct, root_fpu_reduction if root else fpu_reduction,
                                   fpu_value, score_utility, center, score_scale, forced_k if root else 0.0,
                                   stdev_scale, fpu_from_mean)
            center = -center
            ints[VIRTUAL, node] += 1
            action = ints[ACTION, node]
            point = PASS_POINT if action == num_points else action_point[action]
            play_point(cells, info, zobrist, W, point, info[TO_PLAY], spec)
        if ints[VISITS, node] == 0:  # a node's first visit starts its proven status (module docstring)
            ints[PROVEN, node] = UNPROVEN
        elif node > 0 and ints[PROVEN, node] != UNPROVEN:  # a finished game or a proven position: exact value
            _backup_exact(ints, floats, node, scored)
            finished += 1
            continue
        if is_terminal(cells, info, spec):
            value, score = terminal_outcome(cells, info, W, action_point, spec, komi)
            _prove(ints, node, value)
            _backup(ints, floats, node, value, scored, score, score * score)
            finished += 1
            continue
        if ints[FIRST_CHILD, node] >= 0:  # expanded without children: renju's black has only forbidden points
            _backup(ints, floats, node, 0.0, scored, 0.0, 0.0)
            finished += 1
            continue
        if ints[FIRST_CHILD, node] == PENDING:
            _release(ints, node)
            break
        ints[FIRST_CHILD, node] = PENDING
        fill_legal_mask(cells, info, W, action_point, info[TO_PLAY], spec, leaf_legal[leaves])
        if keep_eyes:
            drop_own_eyes(cells, info, W, action_point, info[TO_PLAY], spec, leaf_legal[leaves])
        leaf_nodes[leaves] = node
        leaves += 1
    return leaves, finished


@njit(cache=True)
def expand_and_backup(ints, floats, count, leaf_nodes, leaves, leaf_legal, priors, values, scores, proofs):
    """Give each leaf its children (legal actions with their priors) and back its value and score up.

    ``scores[j]`` (``float32[L, 2]``, or ``[0, 2]`` without a score head) is leaf j's
    mean score from its side to move, in points, and its ``stdev**2 + mean**2``.
    ``proofs[j]`` (``bool[L]``, or ``[0]`` when the evaluator proves nothing): leaf j's value is exact.
    Returns False if the tree ran out of room (the leaf then stays unexpanded).
    """
    scored = scores.shape[0] > 0
    proving = proofs.shape[0] > 0
    capacity = ints.shape[1]
    room = True
    for j in range(leaves):
        node = leaf_nodes[j]
        legal = leaf_legal[j]
        k = 0
        for a in range(legal.shape[0]):
            if legal[a]:
                k += 1
        if count[0] + k > capacity:
            ints[FIRST_CHILD, node] = UNEXPANDED
            room = False
        else:
            first = count[0]
            c = first
            for a in range(legal.shape[0]):
                if legal[a]:
                    _init_node(ints, floats, c, node, a, priors[j, a])
                    c += 1
            count[0] = c
            ints[FIRST_CHILD, node] = first
            ints[NUM_CHILDREN, node] = k
        value = np.float64(values[j])  # the types select_leaves passes: one compiled _prove and _backup
        floats[NET_VALUE, node] = value
        if proving and proofs[j]:
            _prove(ints, node, value)
        score, squares = (np.float64(scores[j, 0]), np.float64(scores[j, 1])) if scored else (0.0, 0.0)
        _backup(ints, floats, node, value, scored, score, squares)
    return room


@njit(cache=True)
def compact_subtree(ints, floats, new_root, root_legal, min_visits, count, old_of_new):
    """Renumber the subtree under ``new_root`` as nodes ``0 ..`` of the same arrays, breadth first, with it as
    node 0; the nodes it leaves are zeroed (a new node is only partly initialised: :func:`_init_node`). In place,
    so that a tree's arrays, once taken, are the whole of its memory: the scratch is a few rows of the nodes
    kept, not a second tree.

    The new root keeps only children whose action ``root_legal`` allows (the
    game's superko may forbid what the tree's simple ko allowed, analysis may allow only some); where that drops
    any, its proven status is what its remaining children prove. A node below the new root with fewer than
    ``min_visits`` visits keeps its statistics but loses its children: it is a leaf again (:meth:`Tree.prune`).
    ``old_of_new[k]`` (``int64[M]``) is left holding the old index of new node ``k``.
    """
    before = count[0]
    links = np.empty((3, before), dtype=np.int32)  # each new node's parent, first child and number of children
    old_of_new[0] = new_root
    links[0, 0] = -1
    new = 0
    used = 1
    dropped = False
    while new < used:  # breadth first: new node ``new`` is the old node old_of_new[new]
        old = old_of_new[new]
        first = ints[FIRST_CHILD, old]
        if first < 0 or (new > 0 and ints[VISITS, old] < min_visits):
            links[1, new] = UNEXPANDED
            links[2, new] = 0
            new += 1
            continue
        start = used
        for c in range(first, first + ints[NUM_CHILDREN, old]):
            if new == 0 and not root_legal[ints[ACTION, c]]:
                dropped = True
                continue
            old_of_new[used] = c
            links[0, used] = new
            used += 1
        links[1, new] = start
        links[2, new] = used - start
        new += 1
    kept_ints = np.empty(used, dtype=np.int32)
    for row in (VISITS, ACTION, PROVEN):  # old_of_new[k] may be below k: gather each row before writing it
        for k in range(used):
            kept_ints[k] = ints[row, old_of_new[k]]
        ints[row, :used] = kept_ints
    kept_floats = np.empty(used, dtype=np.float32)
    for row in range(FLOAT_ROWS):
        for k in range(used):
            kept_floats[k] = floats[row, old_of_new[k]]
        floats[row, :used] = kept_floats
    ints[VIRTUAL, :used] = 0
    ints[PARENT, :used] = links[0, :used]
    ints[FIRST_CHILD, :used] = links[1, :used]
    ints[NUM_CHILDREN, :used] = links[2, :used]
    ints[ACTION, 0] = -1
    floats[PRIOR, 0] = 1.0
    ints[:, used:before] = 0
    floats[:, used:before] = 0.0
    count[0] = used
    if dropped:
        ints[PROVEN, 0] = UNPROVEN
        for c in range(ints[FIRST_CHILD, 0], ints[FIRST_CHILD, 0] + ints[NUM_CHILDREN, 0]):
            if ints[VISITS, c] > 0 and ints[PROVEN, c] != UNPROVEN:
                _prove_parent(ints, c)


@njit(cache=True)
def principal_variation(ints, node, out):
    """Most-visited path from ``node``: actions into ``out``; returns its length."""
    n = 0
    while n < out.shape[0] and ints[FIRST_CHILD, node] >= 0 and ints[NUM_CHILDREN, node] > 0:
        first = ints[FIRST_CHILD, node]
        best = first
        for c in range(first, first + ints[NUM_CHILDREN, node]):
            if ints[VISITS, c] > ints[VISITS, best]:
                best = c
        if ints[VISITS, best] == 0:
            break
        out[n] = ints[ACTION, best]
        n += 1
        node = best
    return n


@njit(cache=True)
def root_children_of(ints, nodes, out):
    """``out[k]``: the root child whose subtree holds ``nodes[k]`` (-1 for the root itself)."""
    for k in range(nodes.shape[0]):
        node = nodes[k]
        if node == 0:
            out[k] = -1
            continue
        while ints[PARENT, node] != 0:
            node = ints[PARENT, node]
        out[k] = node


class Tree:
    """One search's node arrays (``ints``, ``floats`` and ``count`` as above), ``initial`` nodes at first and
    doubled whenever full, up to ``capacity`` nodes; at ``capacity`` a full tree is pruned (:meth:`prune`), so
    that a search of any length goes on within a fixed memory bound; ``full`` only where even pruning finds no
    room. It times its growth and pruning (``growth_seconds`` in all, ``last_growth`` the latest growth,
    ``last_prune`` the latest pruning), so that a timed search can allow for the next; ``prunings`` counts them."""

    def __init__(self, initial: int, capacity: int) -> None:
        self.capacity = capacity
        self.ints = np.zeros((INT_ROWS, initial), dtype=np.int32)
        self.floats = np.zeros((FLOAT_ROWS, initial), dtype=np.float32)
        self.count = np.zeros(1, dtype=np.int64)
        self.full = False
        self.growth_seconds = 0.0
        self.last_growth = 0.0
        self.last_prune = 0.0
        self.prunings = 0
        self.reset()

    @property
    def nodes(self) -> int:
        return int(self.count[0])

    @property
    def allocated(self) -> int:
        """Nodes the arrays hold room for now."""
        return int(self.ints.shape[1])

    @property
    def root_visits(self) -> int:
        return int(self.ints[VISITS, 0])

    @property
    def root_expanded(self) -> bool:
        return bool(self.ints[FIRST_CHILD, 0] >= 0)

    def reset(self) -> None:
        """Just an unexpanded root."""
        reset_tree(self.ints, self.floats, self.count)

    def children(self, node: int = 0) -> slice:
        """The node indices of ``node``'s children (contiguous; empty while it is unexpanded)."""
        first = int(self.ints[FIRST_CHILD, node])
        return slice(first, first + int(self.ints[NUM_CHILDREN, node])) if first >= 0 else slice(0, 0)

    def child(self, node: int, action: int) -> int:
        """The child of ``node`` reached by ``action``, or -1 if the tree has none."""
        children = self.children(node)
        hits = np.flatnonzero(self.ints[ACTION, children] == action)
        return children.start + int(hits[0]) if hits.size else -1

    def root_statistics(self, actions: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per action (``float32[actions]``): the root's completed visits, visits in flight, mean value (the root's
        side to move, 0 where unvisited) and prior."""
        visits, pending = np.zeros(actions, np.float32), np.zeros(actions, np.float32)
        q, priors = np.zeros(actions, np.float32), np.zeros(actions, np.float32)
        children = self.children()
        acts = self.ints[ACTION, children]
        n = self.ints[VISITS, children].astype(np.float32)
        visits[acts] = n
        pending[acts] = self.ints[VIRTUAL, children]
        q[acts] = np.where(n > 0, self.floats[VALUE_SUM, children] / np.maximum(n, 1), 0.0)
        priors[acts] = self.floats[PRIOR, children]
        return visits, pending, q, priors

    def root_value_stdevs(self, actions: int) -> np.ndarray:
        """Per action (``float32[actions]``): the spread of the values backed up through the root's child by it
        (:func:`value_stdev`; 0 where unvisited)."""
        stdevs = np.zeros(actions, np.float32)
        children = self.children()
        spread = np.zeros(children.stop - children.start, np.float32)
        value_stdevs(self.ints, self.floats, children.start, len(spread), spread)
        stdevs[self.ints[ACTION, children]] = spread
        return stdevs

    def depths(self, actions: int) -> tuple[np.ndarray, np.ndarray]:
        """The tree's shape: its visited nodes at each depth (``int64[D + 1]``, the root at 0), and per action
        (``int64[actions]``) the depth of the deepest visited node below the root's child by it (0 where
        there is none; the children are at depth 1). Nodes are allocated after their parents."""
        count = self.nodes
        parents, moves = self.ints[PARENT, :count], self.ints[ACTION, :count]
        visited = self.ints[VISITS, :count] > 0
        depth = np.zeros(count, dtype=np.int64)
        root_action = np.full(count, -1, dtype=np.int64)
        for node in range(1, count):
            parent = parents[node]
            depth[node] = depth[parent] + 1
            root_action[node] = moves[node] if parent == 0 else root_action[parent]
        deepest = np.zeros(actions, dtype=np.int64)
        below_root = visited & (root_action >= 0)
        np.maximum.at(deepest, root_action[below_root], depth[below_root])
        return np.bincount(depth[visited]), deepest

    def make_room(self) -> np.ndarray | None:
        """After an expansion found no room: double the arrays (up to ``capacity``), else prune. Returns what
        :meth:`prune` returns when it pruned (the old index of each node that stays), else None."""
        larger = min(2 * self.allocated, self.capacity)
        if larger <= self.allocated:
            return self.prune()
        self.last_growth = self._grow(larger, resident=False)
        return None

    def reserve(self) -> None:
        """Take the whole capacity now and write it once, so that it is resident from here on: a search that
        will fill the tree (analysis, pondering) holds its memory bound from its first minute instead of
        creeping up to it, and pruning and re-rooting then work within these arrays."""
        if self.allocated < self.capacity:
            self._grow(self.capacity, resident=True)

    def _grow(self, size: int, *, resident: bool) -> float:
        """Arrays of ``size`` nodes in place of these, holding the nodes in use; with ``resident`` every page is
        written now, else the new pages are calloc's, zeroed as the tree first touches them. Its seconds, also
        added to ``growth_seconds``."""
        started, used = time.perf_counter(), self.nodes
        ints = np.zeros((INT_ROWS, size), dtype=np.int32)
        floats = np.zeros((FLOAT_ROWS, size), dtype=np.float32)
        ints[:, :used], floats[:, :used] = self.ints[:, :used], self.floats[:, :used]
        if resident:
            ints[:, used:], floats[:, used:] = 0, 0.0
        self.ints, self.floats = ints, floats
        seconds = time.perf_counter() - started
        self.growth_seconds += seconds
        return seconds

    def prune(self) -> np.ndarray | None:
        """Free at least half the arrays: the nodes below the root with the fewest visits become leaves again
        (keeping their visits, values and scores, losing their children), the smallest visit count that frees
        enough being the bound. Most of a full tree is the unvisited children of nodes visited once or twice, so
        the lines the search reads stay. A pruned node that selection reaches again is evaluated and expanded
        anew (the evaluation cache usually holds it). Returns ``old_of_new`` as :meth:`reroot` does; None, and
        ``full`` set, where nothing can be freed (a capacity below the root's own children)."""
        started = time.perf_counter()
        ints, root_children = self.ints, self.children()
        base = 1 + root_children.stop - root_children.start  # the root and its children: always kept
        if base > self.allocated // 2:
            self.full = True  # the leaf that found no room stays unexpanded; its value was backed up
            return None
        expanded = np.flatnonzero(ints[FIRST_CHILD, 1:self.nodes] >= 0) + 1
        # the nodes kept at bound t: the root, its children, and the children of every expanded node with at
        # least t visits (whose ancestors have more, so are kept too)
        children_at = np.bincount(ints[VISITS, expanded], weights=ints[NUM_CHILDREN, expanded], minlength=1)
        fits = np.flatnonzero(base + np.cumsum(children_at[::-1])[::-1] <= self.allocated // 2)
        bound = int(fits[0]) if fits.size else children_at.size
        everything = np.ones(int(ints[ACTION, root_children].max(initial=0)) + 1, dtype=np.bool_)
        old_of_new = self._compact(0, everything, bound)
        self.prunings += 1
        self.last_prune = time.perf_counter() - started
        self.growth_seconds += self.last_prune
        return old_of_new

    def next_growth_seconds(self, new_nodes: int) -> float:
        """What growing or pruning may add to a step that adds up to ``new_nodes`` nodes, where they may not fit:
        twice the latest growth (each copies twice as much) while the arrays may grow, else the latest pruning's
        time; 0 where they fit."""
        if self.allocated - self.nodes >= new_nodes:
            return 0.0
        return 2 * self.last_growth if self.allocated < self.capacity else self.last_prune

    def reroot(self, child: int, root_legal: np.ndarray) -> np.ndarray:
        """Keep only ``child``'s subtree, with ``child`` as the root (0: the root itself) keeping the children whose
        action ``root_legal`` (``bool[A]``) allows. Returns ``old_of_new`` (``int64[allocated]``): the old index of
        each node that stays."""
        return self._compact(child, root_legal, 0)

    def _compact(self, new_root: int, root_legal: np.ndarray, min_visits: int) -> np.ndarray:
        """:func:`compact_subtree` in these arrays; ``old_of_new`` as it leaves it."""
        old_of_new = np.empty(self.allocated, dtype=np.int64)
        compact_subtree(self.ints, self.floats, new_root, root_legal, min_visits, self.count, old_of_new)
        return old_of_new


def compile_kernels_beside_selection(position: Position) -> None:
    """Compile (or load from the cache) the kernels of a search under ``position``'s rules other than
    :func:`select_leaves` itself and the moves it plays, for the argument types the search passes them
    (``Search._select``, whose :func:`select_leaves` calls the private ones on a leaf's state like
    ``position``'s; ``Search.complete``; the ownership pool; :class:`Tree`), on a throwaway two-child tree.

    A second process runs this on a cold start (:mod:`engine.nn.cold_start`). What :func:`select_leaves` calls
    comes first, as its compile types those soon after it starts; then what runs after it.
    """
    tree = Tree(8, 8)
    ints, floats, root, child = tree.ints, tree.floats, np.int64(0), np.int64(1)
    _best_child(ints, floats, root, 1.0, 0.0, math.nan, 0.0, 0.0, 1.0, 0.0, 0.0, False)
    exploration_factor(ints, floats, root, 0.0)
    _backup(ints, floats, root, 0.0, False, 0.0, 0.0)
    _backup_exact(ints, floats, root, False)
    _release(ints, root)
    _prove(ints, root, 0.0)
    geo, spec = position.geo, pack_rules(position.rules)
    is_terminal(position.cells, position.info, spec)
    terminal_outcome(position.cells, position.info, geo.width, geo.action_point, spec, float(position.rules.komi))
    legal = np.ones((1, 2), dtype=np.bool_)
    expand_and_backup(ints, floats, tree.count, np.zeros(1, dtype=np.int64), 1, legal,
                      np.full((1, 2), 0.5, dtype=np.float32), np.zeros(1, dtype=np.float32),
                      np.zeros((0, 2), dtype=np.float32), np.zeros(0, dtype=np.bool_))
    _prove_parent(ints, child)
    principal_variation(ints, 0, np.zeros(2, dtype=np.int64))
    tree.root_value_stdevs(2)
    root_children_of(ints, np.arange(2, dtype=np.int64), np.empty(2, dtype=np.int64))
    tree.reroot(0, legal[0])
