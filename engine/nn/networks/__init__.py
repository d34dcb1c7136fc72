"""Networks that ship with the engine, so that ``engine gtp`` plays real moves on a fresh install.

One model file a game at most, named here; :func:`bundled_model` is what the
front ends use when no ``--model`` is given. How each file was made (data,
command, held-out accuracy, strength) is in the README's *Bundled network*.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["BUNDLED", "bundled_model"]

#: The bundled model file of each game (a file name in this folder).
BUNDLED = {"go": "go-gnugo9-b4c48-pooled.safetensors"}


def bundled_model(game: str) -> Path | None:
    """The model file bundled for ``game``, or None when none ships (or the file is missing)."""
    name = BUNDLED.get(game)
    if name is None:
        return None
    path = Path(__file__).with_name(name)
    return path if path.is_file() else None
