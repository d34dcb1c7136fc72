"""Tree search and move choice: the array tree's kernels (``tree``), PUCT search over it (``mcts``),
the evaluator protocol with the network-free evaluators (``evaluator``), and the ``Player`` that
every front end and self-play share (``player``). No torch here: networks arrive as evaluators."""
