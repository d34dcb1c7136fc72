"""The network layer, and the only part of the engine that imports torch: the policy/value
network (``net``), self-describing model files (``model_file``), the network behind the
evaluator protocol (``evaluator``), joining a model file to its encoder (``loading``) and the
networks that ship with the engine (``networks``).

Part of it loads without torch, for processes that must stay small (``engine gomocup``): the
architecture (``config``), reading model files (``model_format``), what every network evaluator
shares (``cached_evaluator``), the numpy forward pass and its evaluator (``numpy_net``,
``numpy_evaluator``), numpy's BLAS threads (``blas``) and ``loading`` itself (tests/test_layers.py
holds them to it)."""
