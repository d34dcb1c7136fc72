"""Random networks are reproducible by their seed and leave the process's random state as they found it."""

from __future__ import annotations

import torch

from engine import Model
from training.grow import grow_model
from training.models import BootstrapConfig, fresh_value_head, random_model


def _weights(model: Model) -> list[torch.Tensor]:
    return [tensor.clone() for tensor in model.net.state_dict().values()]


def _same(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


def test_a_seed_makes_the_same_network_whatever_the_global_generator_holds() -> None:
    config = BootstrapConfig("go", 5, "elevenplane", 1, 8, seed=7)
    torch.manual_seed(1)
    first = _weights(random_model(config, 11))
    torch.manual_seed(2)
    again = _weights(random_model(config, 11))
    other = _weights(random_model(BootstrapConfig("go", 5, "elevenplane", 1, 8, seed=8), 11))
    assert _same(first, again)
    assert not _same(first, other)


def test_library_code_never_reseeds_the_global_generator() -> None:
    """A library that called ``torch.manual_seed`` would leave the same global stream whatever came before."""
    config = BootstrapConfig("go", 5, "elevenplane", 1, 8, seed=0)
    draws = []
    for global_seed in (123, 456):
        torch.manual_seed(global_seed)
        model = random_model(config, 11)
        fresh_value_head(model, seed=0)
        grow_model(model, 2, 12, seed=0)
        draws.append(torch.rand(4))
    assert not torch.equal(draws[0], draws[1])
