"""The network's architecture and outputs as plain values, without torch: what both forward passes share.

:class:`NetConfig` names an architecture (see :mod:`engine.nn.net` for what
each part computes) and :class:`NetOutput` holds the heads' outputs, tensors
from :class:`~engine.nn.net.PolicyValueNet` or numpy arrays from
:class:`~engine.nn.numpy_net.NumpyNet`. They live here, apart from the torch
network, so that reading a model file's description and running the numpy
forward pass import no torch (``engine gomocup`` under its 350 MB limit).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any, Generic, NamedTuple, TypeVar

from engine.core.checks import check_choice

__all__ = ["NetConfig", "NetOutput", "HEADS", "AUX_HEADS", "VALUE_HIDDEN", "POOLED_HEAD_FILTERS", "MIN_STDEV",
           "BN_EPSILON", "MAX_BLOCKS", "DTYPES", "TORCH_RUNTIMES", "RUNTIMES", "parse_aux_heads", "state_shapes"]

DTYPES = ("auto", "fp32", "bf16", "int8")
"""The network's arithmetic (``--dtype``); int8 is the CPU's quantized tower (:mod:`engine.nn.int8`)."""
TORCH_RUNTIMES = ("auto", "eager", "compile")
"""How the torch network runs (``--runtime``): :func:`~engine.nn.evaluator.pick_runtime`."""
RUNTIMES = (*TORCH_RUNTIMES, "numpy")
"""Every runtime: torch's, or the numpy forward pass (:mod:`engine.nn.numpy_evaluator`)."""

HEADS = ("fc", "pooled")
AUX_HEADS = ("ownership", "score")
"""The auxiliary heads a network may have, in their canonical order."""
VALUE_HIDDEN = 256
POOLED_HEAD_FILTERS = 32
MIN_STDEV = 0.01
"""The least score standard deviation, in units of the board size (0.09 points on 9x9)."""
BN_EPSILON = 1e-5
MAX_BLOCKS = 1000
"""More residual blocks than any network trained anywhere: a description asking for more is not a network."""
"""The batch norms' epsilon (torch's default, which ``nn.BatchNorm2d`` layers keep)."""
_NAME = re.compile(r"b(\d+)c(\d+)(-pooled)?")

Array = TypeVar("Array")


class NetOutput(NamedTuple, Generic[Array]):
    """What the heads give for a batch of B positions on N x N (see the module docstring): tensors from
    the network, numpy arrays from the evaluator. An auxiliary head the network lacks gives None."""

    policy: Array                  # [B, N*N + 1]
    value: Array                   # [B], in [-1, 1]
    ownership: Array | None        # [B, N*N], in [-1, 1]
    score_mean: Array | None       # [B], points
    score_stdev: Array | None      # [B], points, > 0

    def map(self, function: Callable[[Array], Any]) -> "NetOutput[Any]":
        """``function`` applied to every output present (the absent heads stay None)."""
        return NetOutput(*(None if output is None else function(output) for output in self))


def parse_aux_heads(text: str | Iterable[str]) -> tuple[str, ...]:
    """``"ownership,score"``, ``"none"`` (or ``""``) or a sequence of names, as the canonical tuple.

    Raises ValueError naming an unknown or repeated head.
    """
    names = [n.strip().lower() for n in (text.split(",") if isinstance(text, str) else text)]
    names = [n for n in names if n and n != "none"]
    unknown = [n for n in names if n not in AUX_HEADS]
    if unknown or len(set(names)) != len(names):
        raise ValueError(f"bad auxiliary heads {', '.join(names)!r}: expected distinct names among "
                         f"{', '.join(AUX_HEADS)}, or none")
    return tuple(head for head in AUX_HEADS if head in names)


@dataclass(frozen=True)
class NetConfig:
    """The architecture: ``blocks`` residual blocks of ``filters`` 3x3 filters.

    ``board_size`` is required by the ``"fc"`` heads and must be ``None`` for
    ``"pooled"`` ones, which fit every size. ``aux_heads``: any of
    :data:`AUX_HEADS`, kept in their canonical order (a list is accepted).
    ``value_black_plane``: None when the value head gives the side to move's
    value (every network trained here); else the head gives black's value
    (Leela Zero weights version 2) and this input plane is ones when black is
    to move and zeros when white is, so the forward can flip the value.
    """

    blocks: int
    filters: int
    in_planes: int
    board_size: int | None = 19
    heads: str = "fc"
    aux_heads: tuple[str, ...] = ()
    value_black_plane: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "aux_heads", parse_aux_heads(self.aux_heads))
        check_choice("heads", self.heads, HEADS)
        for field in ("blocks", "filters", "in_planes"):
            value = getattr(self, field)
            if not isinstance(value, int) or isinstance(value, bool) or value < (0 if field == "blocks" else 1):
                raise ValueError(f"{field} must be a positive int, not {value!r}")
        if self.blocks > MAX_BLOCKS:
            raise ValueError(f"blocks must be at most {MAX_BLOCKS}, not {self.blocks}")
        if self.heads == "fc" and not (isinstance(self.board_size, int) and self.board_size >= 2):
            raise ValueError(f"fc heads need a board size >= 2, not {self.board_size!r}")
        if self.heads == "pooled" and self.board_size is not None:
            raise ValueError("pooled heads fit every board size: board_size must be None")
        plane = self.value_black_plane
        if plane is not None and not (isinstance(plane, int) and 0 <= plane < self.in_planes):
            raise ValueError(f"value_black_plane must be an input plane 0..{self.in_planes - 1}, not {plane!r}")

    @property
    def name(self) -> str:
        """``b6c64`` (``b6c64-pooled`` for size-independent heads), as model names use it."""
        return f"b{self.blocks}c{self.filters}" + ("-pooled" if self.heads == "pooled" else "")

    @classmethod
    def from_name(cls, name: str, in_planes: int, board_size: int | None = None) -> "NetConfig":
        """Parse ``b6c64`` or ``b6c64-pooled``; ``board_size`` is ignored for pooled heads."""
        match = _NAME.fullmatch(name.strip().lower())
        if match is None:
            raise ValueError(f"not a network name: {name!r} (expected e.g. b6c64 or b6c64-pooled)")
        pooled = match.group(3) is not None
        return cls(int(match.group(1)), int(match.group(2)), in_planes, None if pooled else board_size,
                   "pooled" if pooled else "fc")

    def to_dict(self) -> dict[str, Any]:
        """The fields, ``value_black_plane`` only where set: files of side-to-move networks stay as before."""
        fields = asdict(self)
        if self.value_black_plane is None:
            del fields["value_black_plane"]
        return fields

    @classmethod
    def from_dict(cls, fields: dict[str, Any]) -> "NetConfig":
        return cls(**fields)


def state_shapes(config: NetConfig) -> dict[str, tuple[int, ...]]:
    """The name and shape of every tensor of the network's ``state_dict`` (what a model file holds).

    Both loaders check a file against it, so that a file that does not fit is refused with the same
    message whichever runtime reads it; a test holds it to :class:`~engine.nn.net.PolicyValueNet`'s.
    """
    shapes: dict[str, tuple[int, ...]] = {}

    def conv_bn(name: str, inputs: int, outputs: int, kernel: int) -> None:
        shapes[f"{name}.0.weight"] = (outputs, inputs, kernel, kernel)
        for statistic in ("weight", "bias", "running_mean", "running_var"):
            shapes[f"{name}.1.{statistic}"] = (outputs,)
        shapes[f"{name}.1.num_batches_tracked"] = ()

    def layer(name: str, inputs: int, outputs: int, kernel: int | None = None) -> None:
        shapes[f"{name}.weight"] = (outputs, inputs) if kernel is None else (outputs, inputs, kernel, kernel)
        shapes[f"{name}.bias"] = (outputs,)

    filters = config.filters
    conv_bn("stem", config.in_planes, filters, 3)
    for block in range(config.blocks):
        conv_bn(f"tower.{block}.first", filters, filters, 3)
        conv_bn(f"tower.{block}.second", filters, filters, 3)
    if config.heads == "fc":
        assert config.board_size is not None
        points = config.board_size ** 2
        conv_bn("heads.policy_conv", filters, 2, 1)
        layer("heads.policy_fc", 2 * points, points + 1)
        conv_bn("heads.value_conv", filters, 1, 1)
        layer("heads.value_fc.0", points, VALUE_HIDDEN)
        spatial = filters
    else:
        spatial = POOLED_HEAD_FILTERS
        conv_bn("heads.policy_conv", filters, spatial, 1)
        layer("heads.policy_points", spatial, 1, kernel=1)
        layer("heads.policy_pass", 3 * spatial, 1)
        conv_bn("heads.value_conv", filters, spatial, 1)
        layer("heads.value_fc.0", 3 * spatial, VALUE_HIDDEN)
    layer("heads.value_fc.2", VALUE_HIDDEN, 1)
    if "ownership" in config.aux_heads:
        layer("ownership_head", spatial, 1, kernel=1)
    if "score" in config.aux_heads:
        layer("score_head", VALUE_HIDDEN, 2)
    return shapes
