"""Model files: the network's weights and a description of them, in one safetensors file.

A model file is a `safetensors <https://github.com/huggingface/safetensors>`_
file (a JSON header, then raw tensor bytes; nothing in it is executed or
unpickled). Its header metadata holds one key, ``"engine.model"``, whose value
is a JSON object (format version 2)::

    {"format_version": 2,
     "game": "go",                       # "go" or "gomoku"
     "board_size": 19,                   # null: size-independent (pooled heads)
     "encoder": "zero17", "num_planes": 17,
     "architecture": {"blocks": 6, "filters": 64, "in_planes": 17,
                      "board_size": 19, "heads": "fc",
                      "aux_heads": ["ownership", "score"]},   # [] for none
     "generation": 12, "training_steps": 40000,
     "created": "2025-01-31T12:00:00+00:00",
     "weights_crc32": 1234567890}       # CRC-32 of the tensors' bytes, by sorted name

Format version 1 is the same without ``aux_heads`` (networks had none); such
files still load, as networks without auxiliary heads, and play as before.
Files are always written in the current version. The tensors are the
network's ``state_dict`` (float32 weights, batch-norm running statistics).
Files are named :func:`model_name` + ``.safetensors``
(``000012-b6c64.safetensors``), so a plain sort puts generations in order.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

from engine.atomic import atomic_path, utc_timestamp
from engine.core.types import EngineError
from engine.nn.net import NetConfig, PolicyValueNet

__all__ = ["FORMAT_VERSION", "METADATA_KEY", "MODEL_SUFFIX", "ModelFormatError", "ModelInfo", "Model", "model_name",
           "save_model", "load_model", "read_info"]

FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
METADATA_KEY = "engine.model"
MODEL_SUFFIX = ".safetensors"
GAMES = ("go", "gomoku")


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

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"unknown game {self.game!r}: expected go or gomoku")
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
                "generation": self.generation, "training_steps": self.training_steps, "created": self.created}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ModelInfo":
        """Parse the metadata of any readable version; raises ValueError/KeyError/TypeError on anything malformed.

        Version 2 must name its auxiliary heads; version 1 has none.
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
                   training_steps=int(data["training_steps"]), created=str(data["created"]))


@dataclass
class Model:
    """A network and its description, as loaded from (or about to be saved to) a file."""

    net: PolicyValueNet
    info: ModelInfo
    path: Path | None = None

    @property
    def name(self) -> str:
        return self.info.name

    def with_generation(self, generation: int, training_steps: int) -> "Model":
        """The same network described as a later generation (for saving after training)."""
        info = replace(self.info, generation=generation, training_steps=training_steps, created=utc_timestamp())
        return Model(self.net, info, None)


def save_model(path: str | os.PathLike[str], model: Model) -> Path:
    """Write ``model`` to ``path`` atomically (:func:`~engine.atomic.atomic_path`), creating its folder.

    A reader never sees a half-written file, and a failed write leaves no
    temporary file behind. Returns the path written.
    """
    from safetensors.torch import save_file

    path = Path(path)
    if model.net.config != model.info.config:
        raise ValueError(f"the network is {model.net.config} but the description says {model.info.config}")
    tensors = {name: tensor.detach().to("cpu").contiguous() for name, tensor in model.net.state_dict().items()}
    metadata = {**model.info.to_dict(), "weights_crc32": _checksum(tensors)}
    with atomic_path(path) as temp:
        save_file(tensors, str(temp), metadata={METADATA_KEY: json.dumps(metadata, sort_keys=True)})
    return path


def _checksum(tensors: dict[str, torch.Tensor]) -> int:
    """CRC-32 of the tensors' bytes in name order: catches bit rot that the safetensors header cannot."""
    crc = 0
    for name in sorted(tensors):
        crc = zlib.crc32(tensors[name].contiguous().reshape(-1).view(torch.uint8).numpy(), crc)
    return crc


def _open(path: Path) -> Any:
    """The safetensors handle of ``path``, or a ModelFormatError naming the file."""
    from safetensors import SafetensorError, safe_open

    if not path.is_file():
        raise ModelFormatError(f"model {path}: no such file")
    try:
        return safe_open(str(path), framework="pt", device="cpu")
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
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ModelFormatError(f"model {path.name} has malformed metadata: {error!r}") from error


def _resolve(path: str | os.PathLike[str]) -> Path:
    """``path``, or for Leela Zero weights (recognised by content) the model file converted from them."""
    from engine.nn import leela  # it builds on this module

    return leela.converted_model_path(path) if leela.is_leela_zero(path) else Path(path)


def read_info(path: str | os.PathLike[str]) -> ModelInfo:
    """The description of a model file (or of Leela Zero weights, converted once), without loading its weights."""
    path = _resolve(path)
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


def load_model(path: str | os.PathLike[str], *, expect_game: str | None = None, expect_size: int | None = None,
               expect_encoder: Any = None, device: str | torch.device = "cpu") -> Model:
    """Load a model file, refusing one that does not fit.

    ``expect_encoder`` is an encoder name, or an object with ``name`` and
    ``num_planes``. A size-independent model fits every ``expect_size``.
    Leela Zero weights load too (:mod:`engine.nn.leela`: converted once, then
    read from the cache).
    Raises :class:`ModelFormatError` naming the file for a mismatch, a file
    that is not a model, or weights that do not fit the described network.
    """
    from safetensors import SafetensorError

    path = _resolve(path)
    with _open(path) as handle:
        info, crc = _metadata(path, handle)
        _check_fit(path, info, expect_game, expect_size, expect_encoder)
        try:
            tensors = {name: handle.get_tensor(name) for name in handle.keys()}
        except (SafetensorError, OSError) as error:
            raise ModelFormatError(f"model {path.name}: cannot read its weights ({error})") from error
    if _checksum(tensors) != crc:
        raise ModelFormatError(f"model {path.name} is corrupt: its weights fail their checksum")
    net = PolicyValueNet(info.config)
    try:
        net.load_state_dict(tensors, strict=True)
    except RuntimeError as error:
        raise ModelFormatError(f"model {path.name}: the weights do not fit a {info.config.name} network "
                               f"({str(error).splitlines()[0]})") from error
    return Model(net.to(device).eval(), info, path)
