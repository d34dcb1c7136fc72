"""The network layer, and the only part of the engine that imports torch: the policy/value
network (``net``), self-describing model files (``model_file``), the network behind the
evaluator protocol (``evaluator``), joining a model file to its encoder (``loading``) and the
networks that ship with the engine (``networks``)."""
