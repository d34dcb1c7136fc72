"""The encoders by name. Model and chunk files store an encoder's name and plane count;
:func:`get_encoder` turns them back into an encoder, or says clearly why it cannot."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from encoders.base import Encoder, EncoderError
from encoders.history import LZ18Encoder, Zero17Encoder
from encoders.katago import KataGoEncoder
from encoders.liberties import ElevenPlaneEncoder, FifteenPlaneEncoder, SevenPlaneEncoder
from encoders.orbs import Orbs8Encoder
from encoders.stones import Gomoku4Encoder, OnePlaneEncoder
from engine.core.rules import Rules

__all__ = ["ENCODERS", "encoder_names", "get_encoder"]

ENCODERS: Mapping[str, type[Encoder]] = MappingProxyType({
    cls.name: cls for cls in (OnePlaneEncoder, SevenPlaneEncoder, ElevenPlaneEncoder, FifteenPlaneEncoder,
                              Zero17Encoder, LZ18Encoder, Gomoku4Encoder, Orbs8Encoder, KataGoEncoder)
})
"""Encoder classes by name, in the order docs/networks.md lists them."""


def encoder_names(game: str | None = None) -> list[str]:
    """The names of the encoders that fit ``game`` ("go", "gomoku", "chain-reaction"), or of all of them."""
    return [name for name, cls in ENCODERS.items() if game is None or game in cls.games]


def get_encoder(name: str, rules: Rules, num_planes: int | None = None) -> Encoder:
    """The encoder called ``name`` for ``rules``' game and board size.

    ``num_planes``, when given (as a model or chunk file records it), must
    match the encoder's. Raises :class:`EncoderError` naming the valid choices.
    """
    cls = ENCODERS.get(name.strip().lower())
    if cls is None:
        raise EncoderError(f"unknown encoder {name!r}: expected one of {', '.join(encoder_names())}")
    if rules.game not in cls.games:
        raise EncoderError(f"encoder {cls.name!r} does not fit {rules.game}: expected one of "
                           f"{', '.join(encoder_names(rules.game))}")
    if num_planes is not None and num_planes != cls.num_planes:
        raise EncoderError(f"encoder {cls.name!r} has {cls.num_planes} planes, not {num_planes}")
    return cls(rules)
