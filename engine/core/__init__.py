"""The rules core: one set of compiled kernels for Go, Gomoku and Chain Reaction behind ``Position`` and ``Game``.

Types and rules (``types``, ``rules``, ``coords``), the padded board and its
kernels (``board``, ``go``, ``gomoku``, ``chain_reaction``, ``scoring``), the one packed-spec
dispatch between the games that Position, the search and the playouts all call
(``dispatch``), the Python-facing state (``position``, ``game``, ``handicap``),
the kernels' random state (``rng``) and random playouts (``playout``,
``ownership``). Nothing here imports any other layer.
"""
