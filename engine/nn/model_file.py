"""Model files with the torch network: save a :class:`Model`, load one as a :class:`~engine.nn.net.PolicyValueNet`.

The format, its description (:class:`ModelInfo`) and every check made on
reading live in :mod:`engine.nn.model_format`, which imports no torch and which
the numpy forward pass (:mod:`engine.nn.numpy_net`) reads through as well; the
names of that module are re-exported here.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch

from engine.atomic import atomic_path, utc_timestamp
from engine.nn.model_format import (
    FORMAT_VERSION,
    METADATA_KEY,
    MODEL_SUFFIX,
    ModelFormatError,
    ModelInfo,
    model_name,
    read_info,
    read_weights,
    rewrite_info,
    weights_checksum,
)
from engine.nn.net import PolicyValueNet

__all__ = ["FORMAT_VERSION", "METADATA_KEY", "MODEL_SUFFIX", "ModelFormatError", "ModelInfo", "Model", "model_name",
           "save_model", "load_model", "read_info", "rewrite_info"]


@dataclass
class Model:
    """A network and its description, as loaded from (or about to be saved to) a file."""

    net: PolicyValueNet
    info: ModelInfo
    path: Path | None = None

    @property
    def name(self) -> str:
        return self.info.name

    def with_generation(self, generation: int, training_steps: int, komi: float | None = None) -> "Model":
        """The same network described as a later generation, trained on games at ``komi`` (None: unknown), for
        saving after training."""
        info = replace(self.info, generation=generation, training_steps=training_steps, created=utc_timestamp(),
                       komi=komi)
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
    crc = weights_checksum({name: tensor.numpy() for name, tensor in tensors.items()})
    metadata = {**model.info.to_dict(), "weights_crc32": crc}
    with atomic_path(path) as temp:
        save_file(tensors, str(temp), metadata={METADATA_KEY: json.dumps(metadata, sort_keys=True)})
    return path


def load_model(path: str | os.PathLike[str], *, expect_game: str | None = None, expect_size: int | None = None,
               expect_encoder: Any = None, device: str | torch.device = "cpu") -> Model:
    """Load a model file as a torch network, refusing one that does not fit.

    ``expect_encoder`` is an encoder name, or an object with ``name`` and
    ``num_planes``. A size-independent model fits every ``expect_size``.
    (:func:`engine.nn.loading.load_model` loads Leela Zero weights too.)
    Raises :class:`ModelFormatError` naming the file for a mismatch, a file
    that is not a model, or weights that do not fit the described network
    (:func:`~engine.nn.model_format.read_weights`).
    """
    path, info, arrays = read_weights(path, expect_game=expect_game, expect_size=expect_size,
                                      expect_encoder=expect_encoder)
    net = PolicyValueNet(info.config)
    try:
        net.load_state_dict({name: torch.from_numpy(array) for name, array in arrays.items()}, strict=True)
    except RuntimeError as error:
        raise ModelFormatError(f"model {path.name}: the weights do not fit a {info.config.name} network "
                               f"({str(error).splitlines()[0]})") from error
    return Model(net.to(device).eval(), info, path)
