"""Feature encoders: positions in, the planes a network reads out; and the 8 board symmetries.

::

    from encoders import get_encoder
    encoder = get_encoder("zero17", Rules.go(19))
    planes = encoder.encode_batch(positions)      # uint8[B, 17, 19, 19]

Encoders import only the engine's rules core. See :mod:`encoders.base` for the
interface and perspective, the encoder modules for each plane layout and
:mod:`encoders.symmetry` for the symmetries.
"""

from __future__ import annotations

from encoders.base import Encoder, EncoderError, State, superko_banned
from encoders.registry import ENCODERS, encoder_names, get_encoder

__all__ = [
    "Encoder", "EncoderError", "State", "superko_banned",
    "ENCODERS", "encoder_names", "get_encoder",
]
