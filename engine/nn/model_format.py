"""Model files: the network's weights and a description of them, in one safetensors file.

A model file is a `safetensors <https://github.com/huggingface/safetensors>`_
file (a JSON header, then raw tensor bytes; nothing in it is executed or
unpickled). Its header metadata holds one key, ``"engine.model"``, whose value
is a JSON object (format version 2)::

    {"format_version": 2,
     "game": "go",                       # "go", "gomoku" or "chain-reaction"
     "board_size": 19,                   # null: size-independent (pooled heads)
     "encoder": "zero17", "num_planes": 17,
     "architecture": {"blocks": 6, "filters": 64, "in_planes": 17,
                      "board_size": 19, "heads": "fc",
                      "aux_heads": ["ownership", "score"]},   # [] for none
     "generation": 12, "training_steps": 40000,
     "komi": 6.5,                        # Go: the komi of the training games; null or absent: unknown
     "created": "2025-01-31T12:00:00+00:00",
     "weights_crc32": 1234567890}       # CRC-32 of the tensors' bytes, by sorted name

Format version 1 is the same without ``aux_heads`` (networks had none); such
files still load, as networks without auxiliary heads, and play as before.
A field that a reader may ignore and still play as the file's network would (``komi``: without it the search
takes the values as they are) joins the current version; one it must understand starts a new version.
Files are always written in the current version. The tensors are the
network's ``state_dict`` (float32 weights, batch-norm running statistics).
Files are named :func:`model_name` + ``.safetensors``
(``000012-b6c64.safetensors``), so a plain sort puts generations in order.

This module reads the format without torch (tensors come out as numpy arrays):
the torch network's loader (:mod:`engine.nn.model_file`, which also writes
files) and the numpy forward pass (:mod:`engine.nn.numpy_net`) share it.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.atomic import atomic_path, utc_timestamp
from engine.core.checks import check_choice
from engine.core.rules import GAMES
from engine.core.types import EngineError
from engine.nn.config import NetConfig, state_shapes

__all__ = ["FORMAT_VERSION", "METADATA_KEY", "MODEL_SUFFIX", "ModelFormatError", "ModelInfo", "model_name",
           "read_info", "read_weights", "rewrite_info", "weights_checksum", "is_leela_zero"]

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
METADATA_KEY = "engine.model"
MODEL_SUFFIX = ".safetensors"


class ModelFormatError(EngineError, ValueError):
    """A model file that cannot be read, or that does not fit the game, board or encoder asked for."""


def model_name(generation: int, config: NetConfig) -> str:
    """``000012-b6c64``: zero-padded generation first, so names sort by generation."""
    return f"{int(generation):06d}-{config.name}"


@dataclass(frozen=True)
class ModelInfo:
    """What a model file says about its network. ``board_size`` is None for size-independent nets."""

    game: str
    encoder: str
    num_planes: int
    config: NetConfig
    generation: int = 0
    training_steps: int = 0
    created: str = field(default_factory=utc_timestamp)
    komi: float | None = None
    """Go: the komi (points) the network's values and scores were learnt at; None: unknown."""

    def __post_init__(self) -> None:
        if self.komi is not None and not (isinstance(self.komi, (int, float)) and math.isfinite(self.komi)):
            raise ValueError(f"a model's komi is a finite number of points or null, not {self.komi!r}")
        check_choice("game", self.game, GAMES)
        if self.num_planes != self.config.in_planes:
            raise ValueError(f"encoder {self.encoder!r} has {self.num_planes} planes but the network reads "
                             f"{self.config.in_planes}")

    @property
    def board_size(self) -> int | None:
        return self.config.board_size

    @property
    def name(self) -> str:
        return model_name(self.generation, self.config)

    def describe(self) -> str:
        """``gomoku 15x15 with encoder gomoku4 (4 planes)``, as error messages say it."""
        size = "any size" if self.board_size is None else f"{self.board_size}x{self.board_size}"
        return f"{self.game} {size} with encoder {self.encoder} ({self.num_planes} planes)"

    def to_dict(self) -> dict[str, Any]:
        """The metadata of the current format version (what :func:`save_model` writes)."""
        return {"format_version": FORMAT_VERSION, "game": self.game, "board_size": self.board_size,
                "encoder": self.encoder, "num_planes": self.num_planes, "architecture": self.config.to_dict(),
                "generation": self.generation, "training_steps": self.training_steps, "created": self.created,
                "komi": self.komi}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ModelInfo":
        """Parse the metadata of any readable version; raises ValueError/KeyError/TypeError on anything malformed.

        Version 2 must name its auxiliary heads; version 1 has none. A file without ``komi`` has an unknown komi.
        """
        version = int(data["format_version"])
        if version not in READABLE_VERSIONS:
            raise ValueError(f"format version {version} is not supported (this engine reads "
                             f"{', '.join(map(str, READABLE_VERSIONS))})")
        if version >= 2 and "aux_heads" not in data["architecture"]:
            raise ValueError(f"a version {version} architecture must name its aux_heads")
        config = NetConfig.from_dict(data["architecture"])
        if data["board_size"] != config.board_size:
            raise ValueError(f"board size {data['board_size']} disagrees with the architecture's "
                             f"{config.board_size}")
        return cls(game=str(data["game"]), encoder=str(data["encoder"]), num_planes=int(data["num_planes"]),
                   config=config, generation=int(data["generation"]),
                   training_steps=int(data["training_steps"]), created=str(data["created"]),
                   komi=_komi(data.get("komi")))


def _komi(value: Any) -> float | None:
    """The metadata's komi: a number, or None (null or absent); ValueError for anything else (``true`` too)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"komi must be a number of points or null, not {value!r}")
    return float(value)


def weights_checksum(tensors: Mapping[str, np.ndarray]) -> int:
    """CRC-32 of the tensors' bytes in name order: catches bit rot that the safetensors header cannot."""
    crc = 0
    for name in sorted(tensors):
        crc = zlib.crc32(np.ascontiguousarray(tensors[name]).reshape(-1).view(np.uint8), crc)
    return crc


def _open(path: Path) -> Any:
    """The safetensors handle of ``path`` (its tensors as numpy arrays), or a ModelFormatError naming the file."""
    from safetensors import SafetensorError, safe_open

    if not path.is_file():
        raise ModelFormatError(f"model {path}: {'not a regular file' if path.exists() else 'no such file'}")
    try:
        return safe_open(str(path), framework="numpy")
    except (SafetensorError, OSError, ValueError) as error:
        raise ModelFormatError(f"model {path.name} is not a readable safetensors model file "
                               f"(corrupt, truncated or another format): {error}") from error


def _metadata(path: Path, handle: Any) -> tuple[ModelInfo, int]:
    """The file's description and its weights' checksum, or a ModelFormatError naming the file."""
    text = (handle.metadata() or {}).get(METADATA_KEY)
    if text is None:
        raise ModelFormatError(f"model {path.name} has no {METADATA_KEY!r} metadata: it was not written by "
                               f"this engine's save_model")
    try:
        data = json.loads(text)
        return ModelInfo.from_dict(data), int(data["weights_crc32"])
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError) as error:
        raise ModelFormatError(f"model {path.name} has malformed metadata: {error!r}"[:500]) from error


GZIP_MAGIC = b"\x1f\x8b"
_NUMBER_BYTES = frozenset(b"0123456789+-.eE \t\r\n")


def is_leela_zero(path: str | os.PathLike[str]) -> bool:
    """Whether the file's content is Leela Zero weights: gzipped, or a version line then numbers.

    A model file cannot pass: its first 8 bytes are a length with zero bytes in it; nor can a KataGo model.
    """
    path = Path(path)
    if not path.is_file() or is_katago_model(path):
        return False
    with open(path, "rb") as handle:
        head = handle.read(64)
    if head.startswith(GZIP_MAGIC):
        return True
    first, newline, rest = head.partition(b"\n")
    return bool(newline) and first.strip().isdigit() and all(byte in _NUMBER_BYTES for byte in rest)


KATAGO_SUFFIXES = (".bin.gz", ".bin", ".txt.gz", ".txt")


def is_katago_model(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is named as a KataGo model (``.bin.gz``, ``.bin``, ``.txt.gz``, ``.txt``) and starts as
    one: a name token, then a model version (read by :mod:`engine.nn.katago_format`)."""
    path = Path(path)
    if not path.is_file() or not path.name.lower().endswith(KATAGO_SUFFIXES):
        return False
    try:
        with open(path, "rb") as handle:
            gzipped = handle.read(2) == GZIP_MAGIC
        with (gzip.open if gzipped else open)(path, "rb") as handle:
            tokens = handle.read(4096).split(maxsplit=2)
    except (OSError, EOFError, zlib.error):
        return False
    return len(tokens) >= 2 and tokens[1].isdigit() and 3 <= int(tokens[1]) <= 64


def read_info(path: str | os.PathLike[str]) -> ModelInfo:
    """The description of a model file, without loading its weights."""
    path = Path(path)
    with _open(path) as handle:
        return _metadata(path, handle)[0]


def _check_fit(path: Path, info: ModelInfo, game: str | None, size: int | None, encoder: Any) -> None:
    """Refuse a model whose game, board size or encoder differs from what the caller plays."""
    encoder_name = getattr(encoder, "name", encoder)
    planes = getattr(encoder, "num_planes", None)
    wrong_game = game is not None and game != info.game
    wrong_encoder = encoder_name is not None and (encoder_name != info.encoder or
                                                  (planes is not None and planes != info.num_planes))
    if wrong_game or wrong_encoder:
        ours = "this game" + ("" if game is None else f" is {game}")
        if encoder_name is not None:
            ours += (" with" if game else " uses") + f" encoder {encoder_name}"
            ours += "" if planes is None else f" ({planes} planes)"
        raise ModelFormatError(f"model {path.name} was trained for {info.game} with encoder {info.encoder} "
                               f"({info.num_planes} planes); {ours}")
    if size is not None and info.board_size is not None and size != info.board_size:
        raise ModelFormatError(f"model {path.name} plays {info.board_size}x{info.board_size} only (fully "
                               f"connected heads); this game is {size}x{size}")




def _check_shapes(path: Path, config: NetConfig, tensors: Mapping[str, np.ndarray]) -> None:
    """Refuse weights whose names or shapes differ from the network's (:func:`~engine.nn.config.state_shapes`)."""
    expected = state_shapes(config)
    problems = [f"missing {', '.join(sorted(set(expected) - set(tensors)))}" if set(expected) - set(tensors) else "",
                f"unexpected {', '.join(sorted(set(tensors) - set(expected)))}" if set(tensors) - set(expected) else ""]
    problems += [f"{name} is {list(tensors[name].shape)}, not {list(shape)}" for name, shape in expected.items()
                 if name in tensors and tuple(tensors[name].shape) != shape]
    problems = [problem for problem in problems if problem]
    if problems:
        raise ModelFormatError(f"model {path.name}: the weights do not fit a {config.name} network "
                               f"({'; '.join(problems)})")


def read_weights(path: str | os.PathLike[str], *, expect_game: str | None = None, expect_size: int | None = None,
                 expect_encoder: Any = None) -> tuple[Path, ModelInfo, dict[str, np.ndarray]]:
    """The model file read path, its description and its tensors (numpy arrays by ``state_dict`` name), checked.

    What every loader shares (the torch network's :func:`~engine.nn.model_file.load_model` and the numpy
    forward pass's :func:`~engine.nn.numpy_net.load_numpy_net`). ``expect_encoder`` is an encoder name, or an
    object with ``name`` and ``num_planes``; a size-independent model fits every ``expect_size``. Raises
    :class:`ModelFormatError` naming the file for a mismatch, a file that is not a model, weights that fail their
    checksum, weights that do not fit the described network, and weights of another type or with NaN or
    infinite numbers.
    """
    from safetensors import SafetensorError

    path = Path(path)
    with _open(path) as handle:
        info, crc = _metadata(path, handle)
        _check_fit(path, info, expect_game, expect_size, expect_encoder)
        try:
            tensors = {name: handle.get_tensor(name) for name in handle.keys()}
        except (SafetensorError, OSError) as error:
            raise ModelFormatError(f"model {path.name}: cannot read its weights ({error})") from error
    if weights_checksum(tensors) != crc:
        raise ModelFormatError(f"model {path.name} is corrupt: its weights fail their checksum")
    _check_shapes(path, info.config, tensors)
    _check_values(path, tensors)
    return path, info, tensors


def _check_values(path: Path, tensors: Mapping[str, np.ndarray]) -> None:
    """Refuse tensors of another type than the network's (float32; int64 batch-norm counters) or holding NaN or
    infinite numbers: a network computed from them would answer nothing but NaN."""
    for name, array in tensors.items():
        expected = np.dtype(np.int64 if name.endswith("num_batches_tracked") else np.float32)
        if array.dtype != expected:
            raise ModelFormatError(f"model {path.name}: {name} holds {array.dtype} numbers, not {expected}")
        if expected.kind == "f" and not np.isfinite(array).all():
            raise ModelFormatError(f"model {path.name} is corrupt: {name} holds NaN or infinite numbers")


def rewrite_info(path: str | os.PathLike[str], info: ModelInfo) -> Path:
    """Give the model file at ``path`` the description ``info``, its tensors written back byte for byte (the file
    is read and checked first, and replaced atomically); ValueError where ``info`` describes another network."""
    from safetensors.numpy import save_file

    path, old, tensors = read_weights(path)
    if info.config != old.config or info.encoder != old.encoder or info.game != old.game:
        raise ValueError(f"model {path.name}: a new description must keep the network's game, encoder and "
                         f"architecture ({old.describe()}, {old.config.name})")
    metadata = {**info.to_dict(), "weights_crc32": weights_checksum(tensors)}
    with atomic_path(path) as temp:
        save_file(tensors, str(temp), metadata={METADATA_KEY: json.dumps(metadata, sort_keys=True)})
    return path
