"""Growing a network: more residual blocks and more filters, keeping what the smaller one learnt.

A self-play run starts with a small network, whose games are cheap while it knows little, and outgrows it:
its losses go flat while the opponents still beat it. Training a larger network from scratch would throw
the run's knowledge away. Growing keeps the function instead. Every new filter of the residual stream
copies an existing one (Net2Net's wider network, Chen et al. 2016): the layers writing the stream write the
copy too, and the layers reading it split the original's weights among its copies, so the sums they make
are unchanged. Every new block is appended as the identity: its last batch norm's scale and shift start at
zero (the zero-init residual trick), so it adds nothing until training moves them. A little noise on the
copies' weights lets them drift apart; without it they would get equal gradients forever.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine import Model

__all__ = ["grow_model"]


def grow_model(model: Model, blocks: int, filters: int, noise: float = 0.01, seed: int = 0) -> Model:
    """``model`` with ``blocks`` residual blocks of ``filters`` filters (at least its own), the same outputs
    up to ``noise`` (the relative spread of the copied filters' weights; 0 keeps them exact).

    The result is described as the same generation, after the same training steps."""
    import numpy as np
    import torch

    from engine import Model, PolicyValueNet
    from training.models import initialise

    old = model.net.config
    if blocks < old.blocks or filters < old.filters:
        raise ValueError(f"a {old.name} network grows to at least {old.blocks} blocks of {old.filters} filters, "
                         f"not {blocks} of {filters}")
    config = replace(old, blocks=blocks, filters=filters)
    rng = np.random.default_rng(seed)
    source = np.concatenate([np.arange(old.filters), rng.integers(0, old.filters, filters - old.filters)])
    copies = torch.from_numpy(np.bincount(source, minlength=old.filters)[source]).float()
    index = torch.from_numpy(source)
    generator = torch.Generator().manual_seed(seed)
    grown = PolicyValueNet(config)
    initialise(grown, generator)   # the new blocks' first convolutions: PyTorch's own initialisation
    state = grown.state_dict()
    trunk_prefixes = ("stem.", *(f"tower.{block}." for block in range(old.blocks)))
    readers = {"heads.policy_conv.0.weight", "heads.value_conv.0.weight"}
    if old.heads == "fc":
        readers.add("ownership_head.weight")   # fc heads' ownership reads the stream itself
    for name, tensor in model.net.state_dict().items():
        if name.startswith(trunk_prefixes):
            value = tensor[index] if tensor.ndim else tensor     # every trunk layer writes the stream
            if name.endswith(".0.weight") and not name.startswith("stem."):
                value = value[:, index] / copies.view(1, -1, 1, 1)   # and reads it (the stem reads the planes)
            if name.endswith(".0.weight") and noise:
                spread = 1 + noise * torch.randn(value.shape, generator=generator)
                value = torch.cat([value[:old.filters], value[old.filters:] * spread[old.filters:]])
        elif name in readers:
            value = tensor[:, index] / copies.view(1, -1, 1, 1)   # the heads read the stream
        else:
            value = tensor
        if state[name].shape != value.shape:
            raise ValueError(f"cannot grow {name}: {tuple(value.shape)} does not map to {tuple(state[name].shape)}")
        state[name] = value.clone()
    for block in range(old.blocks, blocks):   # new blocks add nothing until trained
        state[f"tower.{block}.second.1.weight"].zero_()
        state[f"tower.{block}.second.1.bias"].zero_()
    grown.load_state_dict(state, strict=True)
    return Model(grown.eval(), replace(model.info, config=config), None)
