"""Creating and choosing models: random networks (generation 0, or a fresh start for training),
the model that fits a set of chunks, and the rules a model plays."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import Rules, parse_aux_heads

if TYPE_CHECKING:
    import torch

    from engine import Model, ModelInfo

__all__ = ["BootstrapConfig", "DEFAULT_ENCODERS", "DEFAULT_AUX_HEADS", "bootstrap", "default_rules", "model_rules",
           "random_model", "model_for_chunks", "fresh_value_head", "initialise"]

DEFAULT_ENCODERS = {"go": "zero17", "gomoku": "gomoku4", "chain-reaction": "orbs8"}
DEFAULT_AUX_HEADS = {"go": ("ownership", "score"), "gomoku": (), "chain-reaction": ()}
"""A new network's auxiliary heads by game: Gomoku and Chain Reaction games end in a line or an elimination,
not a count of points."""


@dataclass(frozen=True)
class BootstrapConfig:
    """A new network: game, board size, encoder (None: the game's default), architecture, seed.

    ``heads="pooled"`` makes a size-independent network (``board_size`` is then only the size
    the caller plays on). ``aux_heads``: the auxiliary heads (``"ownership"``, ``"score"``; a
    comma-separated string or ``"none"`` is accepted), None for the game's default
    (:data:`DEFAULT_AUX_HEADS`).
    """

    game: str = "go"
    size: int = 9
    encoder: str | None = None
    blocks: int = 6
    filters: int = 64
    heads: str = "fc"
    seed: int = 0
    aux_heads: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.aux_heads is not None:
            object.__setattr__(self, "aux_heads", parse_aux_heads(self.aux_heads))

    @property
    def encoder_name(self) -> str:
        return self.encoder or DEFAULT_ENCODERS[self.game]

    @property
    def aux_head_names(self) -> tuple[str, ...]:
        """The auxiliary heads of the network: those asked for, else the game's default."""
        return DEFAULT_AUX_HEADS[self.game] if self.aux_heads is None else self.aux_heads


def default_rules(game: str, size: int, win_length: int | None = None) -> Rules:
    """The game's default rules (:meth:`Rules.default`); freestyle Gomoku with ``win_length`` in a row when given."""
    if game == "gomoku" and win_length is not None:
        return Rules.gomoku(size, win_length)
    return Rules.default(game, size)


def model_rules(info: ModelInfo, rules_text: str | None = None, size: int | None = None,
                win_length: int | None = None) -> Rules:
    """The rules a model plays: ``rules_text``, else its game's defaults (:func:`default_rules`), on
    ``size`` or the model's own board; ValueError for a size-independent model without a size, or
    rules of another game."""
    board = size or info.board_size
    if rules_text:
        rules = Rules.parse(rules_text, size=board)
    elif board is None:
        raise ValueError("this model fits every board size: give the size or the rules")
    else:
        rules = default_rules(info.game, board, win_length)
    if rules.game != info.game:
        raise ValueError(f"the model plays {info.game}, not {rules.game}")
    return rules


def random_model(config: BootstrapConfig, num_planes: int) -> Model:
    """A network of ``config``'s size with random weights (seeded), reading ``num_planes`` planes of its
    encoder: generation 0, not yet saved."""
    import torch

    from engine import Model, ModelInfo, NetConfig, PolicyValueNet

    net_config = NetConfig(config.blocks, config.filters, num_planes,
                           None if config.heads == "pooled" else config.size, config.heads, config.aux_head_names)
    net = PolicyValueNet(net_config)
    initialise(net, torch.Generator().manual_seed(config.seed))
    return Model(net, ModelInfo(config.game, config.encoder_name, num_planes, net_config))


def initialise(module: torch.nn.Module, generator: torch.Generator) -> None:
    """PyTorch's default initialisation of every convolution and linear layer in ``module``, drawn from
    ``generator``: seeded networks without seeding the process's global generator, which is the caller's."""
    import math

    import torch

    for layer in module.modules():
        if isinstance(layer, (torch.nn.Conv2d, torch.nn.Linear)):
            torch.nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=generator)
            if layer.bias is not None:
                bound = 1 / math.sqrt(layer.weight[0].numel())
                torch.nn.init.uniform_(layer.bias, -bound, bound, generator=generator)


def bootstrap(path: str | os.PathLike[str], config: BootstrapConfig) -> Path:
    """Write a randomly initialised model (generation 0) to ``path`` atomically; return the path."""
    from encoders import get_encoder
    from engine import save_model

    encoder = get_encoder(config.encoder_name, default_rules(config.game, config.size))
    return save_model(path, random_model(replace(config, encoder=encoder.name), encoder.num_planes))


def model_for_chunks(info: Any, path: str | os.PathLike[str] | None, new: BootstrapConfig | None = None) -> Model:
    """The model to train or validate on chunks described by ``info`` (a ``ChunkInfo``): the one at
    ``path``, refused unless it reads them, else a random network of ``new``'s size for them."""
    from engine import load_model

    if path is not None:
        return load_model(path, expect_game=info.game, expect_size=info.board_size, expect_encoder=info.encoder)
    if new is None:
        raise ValueError("give a model file, or the size of a new network")
    fits = replace(new, game=info.game, size=info.board_size, encoder=info.encoder)
    return random_model(fits, info.num_planes)


def fresh_value_head(model: Model, seed: int) -> None:
    """Give ``model`` new random value layers (seeded), keeping the tower, policy, ownership and score.

    A value head whose hidden units all died (a learning rate too high for it) predicts a constant and
    learns nothing more; training a network with a good tower and policy on from fresh value layers
    revives it at the cost of the value alone."""
    import torch

    initialise(model.net.heads.value_fc, torch.Generator().manual_seed(seed))
