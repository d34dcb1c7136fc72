"""A picture of one search: where the visits went on the board, and how deep the tree grew.

The left panel is the position with each move's share of the root's visits as a heat map, the visits
and the deepest line under the move written on its point; the right panel counts the tree's visited
nodes by depth. ``engine search-picture`` draws it for any model and position, and ``engine loop`` for
each network it rates. Drawn on a bare ``Figure`` (no pyplot), as the loop's other plots.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine import BLACK, WHITE, Evaluator, Game, Search, SearchConfig, action_to_gtp, atomic_path

__all__ = ["SearchPicture", "picture_search", "draw_search"]


@dataclass(frozen=True)
class SearchPicture:
    """What one search from ``game``'s position saw: per action its visits and the depth of the deepest
    visited node below it (0 where unvisited; the root's children are at depth 1), and the visited
    nodes at each depth (``nodes_by_depth[d]``, the root at 0)."""

    game: Game
    visits: np.ndarray
    deepest: np.ndarray
    nodes_by_depth: np.ndarray
    value: float
    best_action: int


def picture_search(game: Game, evaluator: Evaluator, visits: int, config: SearchConfig = SearchConfig(),
                   seed: int | None = 0) -> SearchPicture:
    """Search ``game``'s position with ``visits`` visits and read the tree's shape."""
    search = Search(game, evaluator, config, seed=seed)
    result = search.run(visits)
    nodes_by_depth, deepest = search.tree.depths(game.rules.num_actions)
    return SearchPicture(game, result.visits.astype(np.int64), deepest, nodes_by_depth, float(result.value),
                         result.best_action)



def draw_search(picture: SearchPicture, path: str | os.PathLike[str], title: str = "") -> Path:
    """Write ``picture`` as a PNG at ``path`` (atomically)."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, Rectangle

    rules = picture.game.rules
    n = rules.size
    position = picture.game.position
    figure = Figure(figsize=(11, 5))
    board, depths = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.2, 1]})
    on_board = picture.visits[:n * n].reshape(n, n)
    total = max(int(picture.visits.sum()), 1)
    image = board.imshow(on_board / total, cmap="Oranges", vmin=0.0, extent=(-0.5, n - 0.5, n - 0.5, -0.5))
    figure.colorbar(image, ax=board, fraction=0.046, pad=0.04, label="share of the root's visits")
    stones = position.board()
    orbs = position.orbs() if rules.game == "chain-reaction" else None
    for row in range(n):
        for col in range(n):
            color = stones[row, col]
            if color in (BLACK, WHITE):
                face = "black" if color == BLACK else "white"
                board.add_patch(Circle((col, row), 0.3, facecolor=face, edgecolor="black", linewidth=0.8))
                if orbs is not None:
                    board.text(col, row, str(orbs[row, col]), ha="center", va="center", fontsize=9,
                               color="white" if color == BLACK else "black")
            action = row * n + col
            if picture.visits[action] > 0:
                board.text(col, row + 0.38, f"{picture.visits[action]} d{picture.deepest[action]}",
                           ha="center", va="center", fontsize=7, color="navy",
                           bbox={"facecolor": "white", "alpha": 0.6, "edgecolor": "none", "pad": 0.5})
    best = picture.best_action
    if best < n * n:
        board.add_patch(Rectangle((best % n - 0.5, best // n - 0.5), 1.0, 1.0, fill=False, edgecolor="tab:red",
                                  linewidth=2))
    board.set_xticks(range(n), [action_to_gtp(col, n)[0] for col in range(n)])   # GTP vertices, as --moves
    board.set_yticks(range(n), [str(n - row) for row in range(n)])
    board.set_xlim(-0.5, n - 0.5)
    board.set_ylim(n - 0.5, -0.5)
    mover = "black" if position.to_play == BLACK else "white"
    board.set_title(f"{rules}: {total} visits, {mover} to move, value {picture.value:+.2f}\n"
                    "per move: visits and deepest line (d); framed: the move chosen", fontsize="medium")
    depths.bar(np.arange(picture.nodes_by_depth.shape[0]), picture.nodes_by_depth, color="tab:blue")
    depths.set_xlabel("depth (the root at 0)")
    depths.set_ylabel("visited nodes")
    depths.set_title("the tree by depth", fontsize="medium")
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    with atomic_path(path) as temp:
        figure.savefig(temp, format="png", dpi=80)
    return Path(path)

