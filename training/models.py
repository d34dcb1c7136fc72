"""Creating models: generation 0 from random weights, with the encoder and rules they are for."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engine import Rules

__all__ = ["BootstrapConfig", "DEFAULT_ENCODERS", "bootstrap", "default_rules"]

DEFAULT_ENCODERS = {"go": "zero17", "gomoku": "gomoku4"}


@dataclass(frozen=True)
class BootstrapConfig:
    """A new network: game, board size, encoder (None: the game's default), architecture, seed.

    ``heads="pooled"`` makes a size-independent network (``board_size`` is then only the size
    the caller plays on).
    """

    game: str = "go"
    size: int = 9
    encoder: str | None = None
    blocks: int = 6
    filters: int = 64
    heads: str = "fc"
    seed: int = 0

    @property
    def encoder_name(self) -> str:
        return self.encoder or DEFAULT_ENCODERS[self.game]


def default_rules(game: str, size: int, win_length: int | None = None) -> Rules:
    """Chinese rules for Go; freestyle Gomoku with ``win_length`` in a row (default 5, at most N)."""
    if game == "go":
        return Rules.go(size)
    return Rules.gomoku(size, win_length if win_length is not None else min(5, size))


def bootstrap(path: str | os.PathLike[str], config: BootstrapConfig) -> Path:
    """Write a randomly initialised model (generation 0) to ``path`` atomically; return the path."""
    import torch

    from encoders import get_encoder
    from engine import Model, ModelInfo, NetConfig, PolicyValueNet, save_model

    encoder = get_encoder(config.encoder_name, default_rules(config.game, config.size))
    net_config = NetConfig(config.blocks, config.filters, encoder.num_planes,
                           None if config.heads == "pooled" else config.size, config.heads)
    torch.manual_seed(config.seed)
    net = PolicyValueNet(net_config)
    info = ModelInfo(config.game, encoder.name, encoder.num_planes, net_config, generation=0, training_steps=0)
    return save_model(path, Model(net, info))
