"""Averaging networks: the mean of the weights of networks trained on from one ancestor predicts better than each.

Networks trained on from one starting point, on different data or at different rates, stay in one basin of the
loss, and the mean of their weights lies nearer its floor than any of them (the idea behind stochastic weight
averaging, Izmailov et al. 2018, and "model soups", Wortsman et al. 2022); experiments/go19-supervised (*Soups*)
measures it on 19x19. The batch norms' running statistics are averaged with the weights, which held up in those
measurements without re-estimating them.

Networks with no common ancestor share no basin (their filters are in different orders), and their average is
noise: nothing in a model file can tell the two cases apart, so the caller chooses which networks to average.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine import Model

__all__ = ["average_models"]


def average_models(models: Sequence[Model], weights: Sequence[float] | None = None) -> Model:
    """The weighted mean of ``models``' weights and batch-norm statistics (equal ``weights`` when None).

    The models must be one game, encoder and network shape; raises ValueError naming the first that is not.
    The result is described as the latest generation among them, after the most training steps.
    """
    from engine import Model, PolicyValueNet, utc_timestamp

    if not models:
        raise ValueError("no models to average")
    weights = [1.0] * len(models) if weights is None else [float(weight) for weight in weights]
    if len(weights) != len(models):
        raise ValueError(f"{len(weights)} weights for {len(models)} models")
    if min(weights) < 0 or sum(weights) <= 0:
        raise ValueError("weights must be >= 0 and not all 0")
    first = models[0].info
    for model in models[1:]:
        info = model.info
        if (info.game, info.encoder, info.config) != (first.game, first.encoder, first.config):
            where = f" ({model.path})" if model.path else ""
            raise ValueError(f"cannot average a {info.config.name} network for {info.describe()}{where} with a "
                             f"{first.config.name} network for {first.describe()}")
    total = sum(weights)
    states = [model.net.state_dict() for model in models]
    averaged = {}
    for name, tensor in states[0].items():
        if tensor.is_floating_point():
            averaged[name] = sum(state[name].double() * (weight / total)
                                 for state, weight in zip(states, weights)).to(tensor.dtype)
        else:   # batch norms' counts of batches seen
            averaged[name] = max((state[name] for state in states), key=int).clone()
    net = PolicyValueNet(first.config)
    net.load_state_dict(averaged, strict=True)
    info = replace(first, generation=max(model.info.generation for model in models),
                   training_steps=max(model.info.training_steps for model in models), created=utc_timestamp(),
                   komi=first.komi if all(model.info.komi == first.komi for model in models) else None)
    return Model(net.eval(), info, None)
