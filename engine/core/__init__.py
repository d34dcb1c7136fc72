"""The rules core: one set of compiled kernels for Go and Gomoku behind ``Position`` and ``Game``.

Types and rules (``types``, ``rules``, ``coords``), the padded board and its
kernels (``board``, ``go``, ``gomoku``, ``scoring``), the one packed-spec
dispatch that compiled callers use (``rules_kernels``), the Python-facing state
(``position``, ``game``, ``handicap``) and random playouts (``playout``,
``ownership``). Nothing here imports any other layer.
"""
