"""Ownership in the search: who will own each point, from the network (one evaluation, or averaged over a search
tree) or from random playouts where the evaluator has no ownership head.

* :mod:`engine.search.ownership.estimate`: one position's map, the network's or the playouts', from black's view,
  and the outcome it implies.
* :mod:`engine.search.ownership.pool`: the network's maps of a search's evaluated nodes, averaged over a subtree.

The playouts themselves and the reading of a map as dead and seki stones are rules-core work
(:mod:`engine.core.ownership`).
"""

from engine.search.ownership.estimate import black_view, estimate_ownership, judged_outcome
from engine.search.ownership.pool import OwnershipPool

__all__ = ["OwnershipPool", "black_view", "estimate_ownership", "judged_outcome"]
