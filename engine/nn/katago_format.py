"""KataGo's model files read into a plain description of the network: the layers, their weights, in order.

KataGo stores a network as one stream of whitespace-separated tokens (names,
integers, floats), optionally gzipped. In ``.txt`` / ``.txt.gz`` files every
weight is a decimal number; in ``.bin`` / ``.bin.gz`` files each block of
weights is ``@BIN@`` followed by that many little-endian float32s. The
stream is, in order:

* a header: model name, model version (8 to 17 here), spatial and global input
  channel counts; from version 13 seven output multipliers (score mean, score
  stdev, lead, variance time and the short-term error scales); from version
  15 the SGF-metadata encoder version (0: none), whether pass-alive features
  assume suicide, and six reserved zeros;
* the trunk: block count, channel counts, from version 15 its norm kind
  (batch norm, or RMS norm at the tip) and reserved zeros; the initial
  convolution (spatial inputs) and matrix (global inputs), the blocks, and the
  tip's norm and activation;
* the policy head and the value head (win/loss/no-result logits, the score
  values, the ownership convolution).

Blocks are ``ordinary_block`` (two norm-activation-convolutions),
``gpool_block`` (a second convolution pooled over the board into a bias),
``nested_bottleneck_block`` (a 1x1 down-projection, an inner stack of blocks,
a 1x1 up-projection), and since the transformer networks (``tf`` in names
such as ``b10c384h6nbttflrs``) ``transformer_attention_block`` (RMS norm,
multi-head attention with grouped key/value heads and rotary position
embeddings, fixed or learned) and ``transformer_ffn_block`` (RMS norm, a
SwiGLU feed-forward layer). Activations are named in the file from version 11
(identity, ReLU, Mish, SiLU); before that every activation is ReLU.

Weights are kept as float32 numpy arrays in the layout torch wants
(convolutions ``[out, in, kh, kw]``, matrices ``[in, out]``). Nothing is
executed or unpickled; a file that is corrupt, truncated, of another version
or holding a layer kind this reader does not know raises
:class:`~engine.nn.model_format.ModelFormatError` naming the file, the byte
offset and line, and what was expected there.
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Union

import numpy as np

from engine.nn.model_format import KATAGO_SUFFIXES, ModelFormatError, is_katago_model

__all__ = [
    "KataGoModel",
    "Conv",
    "BatchNorm",
    "Activation",
    "MatMul",
    "MatBias",
    "RMSNorm",
    "TransformerNorm",
    "OrdinaryBlock",
    "GlobalPoolBlock",
    "NestedBottleneckBlock",
    "AttentionBlock",
    "FeedForwardBlock",
    "Trunk",
    "PolicyHead",
    "ValueHead",
    "Multipliers",
    "read_katago_model",
    "is_katago_model",
    "KATAGO_SUFFIXES",
    "MIN_VERSION",
    "MAX_VERSION",
]

MIN_VERSION, MAX_VERSION = 8, 17
"""The model versions read here: those of KataGo's input features version 7 (every network since 2020)."""
ACTIVATIONS = {
    "ACTIVATION_IDENTITY": "identity",
    "ACTIVATION_RELU": "relu",
    "ACTIVATION_MISH": "mish",
    "ACTIVATION_SILU": "silu",
}
_TOKEN = re.compile(rb"\s*(\S+)")
_BINARY_MARK = b"@BIN@"


@dataclass(frozen=True, eq=False)
class _Weighted:
    """A layer whose ``weights`` hold its input channels on axis ``IN_AXIS`` and its output channels on
    ``OUT_AXIS``: the counts the loader's shape checks compare, read one way for every such layer."""

    IN_AXIS: ClassVar[int]
    OUT_AXIS: ClassVar[int]

    name: str
    weights: np.ndarray

    @property
    def in_channels(self) -> int:
        return self.weights.shape[self.IN_AXIS]

    @property
    def out_channels(self) -> int:
        return self.weights.shape[self.OUT_AXIS]


@dataclass(frozen=True, eq=False)
class Conv(_Weighted):
    """A convolution: ``weights`` float32[out, in, kh, kw], ``dilation`` (y, x)."""

    IN_AXIS = 1
    OUT_AXIS = 0

    dilation: tuple[int, int]


@dataclass(frozen=True, eq=False)
class BatchNorm:
    """Batch norm folded into ``x * scale + bias`` per channel (scale = gamma / sqrt(variance + epsilon))."""

    name: str
    scale: np.ndarray  # float32[C]
    bias: np.ndarray  # float32[C]

    @property
    def channels(self) -> int:
        return self.scale.shape[0]


@dataclass(frozen=True)
class Activation:
    name: str
    kind: str  # identity, relu, mish or silu


@dataclass(frozen=True, eq=False)
class MatMul(_Weighted):
    """A dense layer: ``weights`` float32[in, out]."""

    IN_AXIS = 0
    OUT_AXIS = 1


@dataclass(frozen=True, eq=False)
class MatBias:
    name: str
    weights: np.ndarray  # float32[C]


@dataclass(frozen=True, eq=False)
class RMSNorm:
    """The trunk tip's RMS norm: over channels at each point, or (``spatial``) over channels and the board."""

    name: str
    gamma: np.ndarray
    beta: np.ndarray
    epsilon: float
    spatial: bool


@dataclass(frozen=True, eq=False)
class TransformerNorm:
    """A transformer block's RMS norm over the channels of each point (weight, no bias)."""

    name: str
    weight: np.ndarray
    epsilon: float


@dataclass(frozen=True, eq=False)
class OrdinaryBlock:
    name: str
    pre_norm: BatchNorm
    pre_act: Activation
    conv1: Conv
    mid_norm: BatchNorm
    mid_act: Activation
    conv2: Conv


@dataclass(frozen=True, eq=False)
class GlobalPoolBlock:
    name: str
    pre_norm: BatchNorm
    pre_act: Activation
    regular_conv: Conv
    gpool_conv: Conv
    gpool_norm: BatchNorm
    gpool_act: Activation
    gpool_to_bias: MatMul
    mid_norm: BatchNorm
    mid_act: Activation
    final_conv: Conv


@dataclass(frozen=True, eq=False)
class NestedBottleneckBlock:
    name: str
    pre_norm: BatchNorm
    pre_act: Activation
    pre_conv: Conv
    blocks: tuple["Block", ...]
    post_norm: BatchNorm
    post_act: Activation
    post_conv: Conv


@dataclass(frozen=True, eq=False)
class AttentionBlock:
    """Multi-head attention over the board's points. ``rope_freqs`` (``float32[kv_heads, q_dim / 2, 2]``,
    x then y frequency) for learned rotary embeddings, else ``rope_theta`` for fixed ones, else neither."""

    name: str
    heads: int
    kv_heads: int
    q_dim: int
    v_dim: int
    norm: TransformerNorm
    q: MatMul
    k: MatMul
    v: MatMul
    out: MatMul
    rope_freqs: np.ndarray | None
    rope_theta: float | None


@dataclass(frozen=True, eq=False)
class FeedForwardBlock:
    """``x + linear2(silu(linear1(norm(x))) * gate(norm(x)))``: SwiGLU."""

    name: str
    norm: TransformerNorm
    linear1: MatMul
    gate: MatMul
    linear2: MatMul


Block = Union[OrdinaryBlock, GlobalPoolBlock, NestedBottleneckBlock, AttentionBlock, FeedForwardBlock]


@dataclass(frozen=True, eq=False)
class Trunk:
    channels: int
    initial_conv: Conv
    initial_matmul: MatMul
    blocks: tuple[Block, ...]
    tip_norm: BatchNorm | RMSNorm
    tip_act: Activation


@dataclass(frozen=True, eq=False)
class PolicyHead:
    """Policy logits: ``p2`` gives a channel per policy output at each point (0 is the ordinary policy, 1
    the optimistic one from version 12), the pass logits come from the pooled ``g1`` features (through a
    hidden layer from version 15)."""

    p1_conv: Conv
    g1_conv: Conv
    g1_norm: BatchNorm
    g1_act: Activation
    gpool_to_bias: MatMul
    p1_norm: BatchNorm
    p1_act: Activation
    p2_conv: Conv
    pass_mul: MatMul
    pass_bias: MatBias | None
    pass_act: Activation | None
    pass_mul2: MatMul | None


@dataclass(frozen=True, eq=False)
class ValueHead:
    """Value logits (win, loss, no result: the side to move's), score values (score mean, its stdev before
    softplus, lead, variance time, and from version 9 two short-term errors), ownership logits."""

    v1_conv: Conv
    v1_norm: BatchNorm
    v1_act: Activation
    v2_mul: MatMul
    v2_bias: MatBias
    v2_act: Activation
    v3_mul: MatMul
    v3_bias: MatBias
    sv3_mul: MatMul
    sv3_bias: MatBias
    ownership_conv: Conv


@dataclass(frozen=True)
class Multipliers:
    """How the score outputs are scaled into points (KataGo's defaults before version 13)."""

    td_score: float = 20.0
    score_mean: float = 20.0
    score_stdev: float = 20.0
    lead: float = 20.0
    variance_time: float = 40.0
    shortterm_value_error: float = 0.25
    shortterm_score_error: float = 30.0


@dataclass(frozen=True, eq=False)
class KataGoModel:
    """A KataGo network as its file describes it."""

    name: str
    version: int
    spatial_inputs: int
    global_inputs: int
    multipliers: Multipliers
    pass_alive_assumes_suicide: bool
    trunk: Trunk
    policy: PolicyHead
    value: ValueHead
    path: Path | None = None

    @property
    def policy_channels(self) -> int:
        return self.policy.p2_conv.out_channels

    @property
    def blocks(self) -> int:
        return len(self.trunk.blocks)

    def describe(self) -> str:
        return (
            f"KataGo model {self.name} (version {self.version}, {self.blocks} blocks, {self.trunk.channels} channels)"
        )


def read_katago_model(path: str | os.PathLike[str]) -> KataGoModel:
    """The network of the KataGo model file at ``path`` (``.bin.gz``, ``.bin``, ``.txt.gz`` or ``.txt``; gzip
    is recognised by its content). Raises :class:`ModelFormatError` naming the file for anything unreadable."""
    path = Path(path)
    if not path.is_file():
        raise ModelFormatError(f"KataGo model {path}: {'not a regular file' if path.exists() else 'no such file'}")
    try:
        raw = path.read_bytes()
        data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise ModelFormatError(f"KataGo model {path.name}: cannot read or decompress it ({error})") from error
    name = path.name.lower()
    binary = name.endswith((".bin", ".bin.gz")) or (
        not name.endswith((".txt", ".txt.gz")) and _BINARY_MARK in data[: 1 << 16]
    )
    model = _Parser(data, binary, path.name).model()
    return KataGoModel(**{**model.__dict__, "path": path})


class _Parser:
    """A cursor over the token stream, and one method per layer kind, in the file's order."""

    def __init__(self, data: bytes, binary: bool, filename: str) -> None:
        self.data, self.binary, self.filename = data, binary, filename
        self.pos = 0
        self.version = 0

    # ------------------------------------------------------------------ tokens
    def fail(self, expected: str, at: int | None = None) -> ModelFormatError:
        at = self.pos if at is None else at
        line = self.data.count(b"\n", 0, at) + 1
        return ModelFormatError(f"KataGo model {self.filename}: at byte {at} (line {line}): expected {expected}")

    def token(self, what: str) -> bytes:
        match = _TOKEN.match(self.data, self.pos)
        if match is None:
            raise self.fail(f"{what}, found the end of the file (truncated?)")
        self.pos = match.end()
        return match.group(1)

    def word(self, what: str) -> str:
        token = self.token(what)
        try:
            return token.decode("ascii")
        except UnicodeDecodeError:
            raise self.fail(what, self.pos - len(token)) from None

    def integer(self, what: str, low: int | None = None, high: int | None = None) -> int:
        token = self.token(what)
        try:
            value = int(token)
        except ValueError:
            raise self.fail(f"{what} (an integer), found {token[:20]!r}", self.pos - len(token)) from None
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = f"{low}..{high}" if high is not None else f">= {low}"
            raise self.fail(f"{what} in {bounds}, found {value}", self.pos - len(token))
        return value

    def real(self, what: str, positive: bool = False) -> float:
        token = self.token(what)
        try:
            value = float(token)
        except ValueError:
            raise self.fail(f"{what} (a number), found {token[:20]!r}", self.pos - len(token)) from None
        if not np.isfinite(value) or (positive and not value > 0):
            raise self.fail(f"{what} {'positive and ' if positive else ''}finite, found {value}", self.pos - len(token))
        return value

    def zeros(self, what: str, count: int) -> None:
        for i in range(count):
            self.integer(f"{what}: reserved option {i + 1} of {count} (0; a newer KataGo format?)", 0, 0)

    def floats(self, count: int, name: str) -> np.ndarray:
        start = self.pos
        if self.binary:
            skipped = 0
            while self.pos < len(self.data) and self.data[self.pos] != ord("@"):
                skipped += 1
                self.pos += 1
                if skipped > 100:
                    raise self.fail(
                        f"{name}: a binary block of weights (@BIN@); is this a text model named .bin?", start
                    )
            if self.data[self.pos : self.pos + 5] != _BINARY_MARK:
                raise self.fail(f"{name}: @BIN@ before its {count} weights", start)
            begin = self.pos + 5
            end = begin + 4 * count
            if end > len(self.data):
                raise self.fail(
                    f"{name}: {count} float32 weights, found {(len(self.data) - begin) // 4} (the file is truncated)",
                    begin,
                )
            values = np.frombuffer(self.data, dtype="<f4", count=count, offset=begin).astype(np.float32)
            self.pos = end
        else:
            tokens = []
            for _ in range(count):
                match = _TOKEN.match(self.data, self.pos)
                if match is None:
                    raise self.fail(f"{name}: {count} weights, found {len(tokens)} (the file is truncated)", start)
                tokens.append(match.group(1))
                self.pos = match.end()
            try:
                values = np.array([float(t) for t in tokens], dtype=np.float32)
            except ValueError:
                raise self.fail(f"{name}: {count} decimal weights; is this a binary model named .txt?", start) from None
        if not np.isfinite(values).all():
            raise self.fail(f"{name}: finite weights, found NaN or infinite ones", start)
        return values

    # ------------------------------------------------------------------ layers
    def conv(self) -> Conv:
        name = self.word("a convolution's name")
        ky = self.integer(f"{name}: kernel height", 1, 99)
        kx = self.integer(f"{name}: kernel width", 1, 99)
        cin = self.integer(f"{name}: input channels", 1)
        cout = self.integer(f"{name}: output channels", 1)
        dy = self.integer(f"{name}: dilation y", 1)
        dx = self.integer(f"{name}: dilation x", 1)
        if ky % 2 == 0 or kx % 2 == 0:
            raise self.fail(f"{name}: odd kernel sizes, found {ky}x{kx}")
        weights = self.floats(ky * kx * cin * cout, name).reshape(ky, kx, cin, cout).transpose(3, 2, 0, 1)
        return Conv(name, np.ascontiguousarray(weights), (dy, dx))

    def batch_norm(self) -> BatchNorm:
        name = self.word("a batch norm's name")
        channels = self.integer(f"{name}: channels", 1)
        epsilon = self.real(f"{name}: epsilon", positive=True)
        has_scale = self.integer(f"{name}: has scale (0 or 1)", 0, 1)
        has_bias = self.integer(f"{name}: has bias (0 or 1)", 0, 1)
        mean = self.floats(channels, name)
        variance = self.floats(channels, name)
        scale = self.floats(channels, name) if has_scale else np.ones(channels, np.float32)
        bias = self.floats(channels, name) if has_bias else np.zeros(channels, np.float32)
        merged = scale / np.sqrt(variance + np.float32(epsilon))
        if not np.isfinite(merged).all():
            raise self.fail(f"{name}: variances with variance + epsilon > 0")
        return BatchNorm(name, merged.astype(np.float32), (bias - merged * mean).astype(np.float32))

    def activation(self) -> Activation:
        name = self.word("an activation's name")
        if self.version < 11:
            return Activation(name, "relu")
        kind = self.word(f"{name}: activation kind")
        if kind not in ACTIVATIONS:
            raise self.fail(f"{name}: one of {', '.join(ACTIVATIONS)}, found {kind}", self.pos - len(kind))
        return Activation(name, ACTIVATIONS[kind])

    def matmul(self) -> MatMul:
        name = self.word("a matrix's name")
        cin = self.integer(f"{name}: input channels", 1)
        cout = self.integer(f"{name}: output channels", 1)
        return MatMul(name, self.floats(cin * cout, name).reshape(cin, cout))

    def matbias(self) -> MatBias:
        name = self.word("a bias's name")
        return MatBias(name, self.floats(self.integer(f"{name}: channels", 1), name))

    def rms_norm(self) -> RMSNorm:
        name = self.word("an RMS norm's name")
        channels = self.integer(f"{name}: channels", 1)
        epsilon = self.real(f"{name}: epsilon", positive=True)
        spatial = self.integer(f"{name}: spatial (0 or 1)", 0, 1)
        self.integer(f"{name}: channel group size (0: grouped RMS norm is not supported)", 0, 0)
        return RMSNorm(name, self.floats(channels, name), self.floats(channels, name), epsilon, bool(spatial))

    def transformer_norm(self) -> TransformerNorm:
        name = self.word("a transformer RMS norm's name")
        channels = self.integer(f"{name}: channels", 1)
        epsilon = self.real(f"{name}: epsilon", positive=True)
        return TransformerNorm(name, self.floats(channels, name), epsilon)

    def check(self, condition: bool, expected: str) -> None:
        if not condition:
            raise self.fail(expected)

    # ------------------------------------------------------------------ blocks
    def blocks(self, count: int, channels: int, owner: str) -> tuple[Block, ...]:
        blocks: list[Block] = []
        for _ in range(count):
            start = self.pos
            kind = self.word(f"{owner}: a block kind")
            reader = {
                "ordinary_block": self.ordinary_block,
                "gpool_block": self.gpool_block,
                "nested_bottleneck_block": self.nested_block,
                "transformer_attention_block": self.attention_block,
                "transformer_ffn_block": self.ffn_block,
            }.get(kind)
            if reader is None:
                raise self.fail(
                    f"{owner}: a block kind (ordinary_block, gpool_block, nested_bottleneck_block, "
                    f"transformer_attention_block, transformer_ffn_block), found {kind[:40]}",
                    start,
                )
            block = reader()
            inputs, outputs = _block_channels(block)
            self.check(
                inputs == channels and outputs == channels,
                f"{block.name}: {channels} channels in and out (its stack's), found {inputs} and {outputs}",
            )
            blocks.append(block)
        return tuple(blocks)

    def ordinary_block(self) -> OrdinaryBlock:
        name = self.word("a block's name")
        block = OrdinaryBlock(
            name, self.batch_norm(), self.activation(), self.conv(), self.batch_norm(), self.activation(), self.conv()
        )
        self.check(
            block.pre_norm.channels == block.conv1.in_channels
            and block.mid_norm.channels == block.conv1.out_channels == block.conv2.in_channels,
            f"{name}: matching channels between its norms and convolutions",
        )
        return block

    def gpool_block(self) -> GlobalPoolBlock:
        name = self.word("a block's name")
        block = GlobalPoolBlock(
            name,
            self.batch_norm(),
            self.activation(),
            self.conv(),
            self.conv(),
            self.batch_norm(),
            self.activation(),
            self.matmul(),
            self.batch_norm(),
            self.activation(),
            self.conv(),
        )
        pooled = block.gpool_norm.channels
        self.check(
            block.pre_norm.channels == block.regular_conv.in_channels == block.gpool_conv.in_channels
            and pooled == block.gpool_conv.out_channels
            and block.gpool_to_bias.in_channels == 3 * pooled
            and block.mid_norm.channels
            == block.regular_conv.out_channels
            == block.gpool_to_bias.out_channels
            == block.final_conv.in_channels,
            f"{name}: matching channels between its layers",
        )
        return block

    def nested_block(self) -> NestedBottleneckBlock:
        name = self.word("a block's name")
        count = self.integer(f"{name}: inner block count", 1)
        pre_norm, pre_act, pre_conv = self.batch_norm(), self.activation(), self.conv()
        inner = self.blocks(count, pre_conv.out_channels, name)
        block = NestedBottleneckBlock(
            name, pre_norm, pre_act, pre_conv, inner, self.batch_norm(), self.activation(), self.conv()
        )
        self.check(
            pre_norm.channels == pre_conv.in_channels
            and block.post_norm.channels == pre_conv.out_channels == block.post_conv.in_channels,
            f"{name}: matching channels between its layers",
        )
        return block

    def attention_block(self) -> AttentionBlock:
        name = self.word("a block's name")
        heads = self.integer(f"{name}: heads", 1)
        kv_heads = self.integer(f"{name}: key/value heads", 1)
        q_dim = self.integer(f"{name}: query head size", 1)
        v_dim = self.integer(f"{name}: value head size", 1)
        use_rope = self.integer(f"{name}: rotary embeddings (0 or 1)", 0, 1)
        learned = self.integer(f"{name}: learned rotary frequencies (0 or 1)", 0, 1)
        self.check(heads % kv_heads == 0, f"{name}: heads ({heads}) a multiple of key/value heads ({kv_heads})")
        self.check(not use_rope or q_dim % 2 == 0, f"{name}: an even query head size with rotary embeddings")
        norm, q, k, v, out = self.transformer_norm(), self.matmul(), self.matmul(), self.matmul(), self.matmul()
        self.check(
            q.out_channels == heads * q_dim
            and k.out_channels == kv_heads * q_dim
            and v.out_channels == kv_heads * v_dim
            and out.in_channels == heads * v_dim
            and q.in_channels == k.in_channels == v.in_channels == norm.weight.shape[0] == out.out_channels,
            f"{name}: projections of {heads} x {q_dim} (queries), {kv_heads} x {q_dim} (keys), "
            f"{kv_heads} x {v_dim} (values)",
        )
        freqs, theta = None, None
        if use_rope and learned:
            label = self.word(f"{name}: the rotary frequencies' name")
            self.check(self.integer(f"{label}: heads") == kv_heads, f"{label}: one row per key/value head")
            self.check(self.integer(f"{label}: pairs") == q_dim // 2, f"{label}: {q_dim // 2} pairs")
            self.check(self.integer(f"{label}: size of the last axis") == 2, f"{label}: x and y frequencies")
            freqs = self.floats(kv_heads * (q_dim // 2) * 2, label).reshape(kv_heads, q_dim // 2, 2)
        elif use_rope:
            self.word(f"{name}: the rotary theta's name")
            theta = self.real(f"{name}: rotary theta", positive=True)
        return AttentionBlock(name, heads, kv_heads, q_dim, v_dim, norm, q, k, v, out, freqs, theta)

    def ffn_block(self) -> FeedForwardBlock:
        name = self.word("a block's name")
        channels = self.integer(f"{name}: channels", 1)
        hidden = self.integer(f"{name}: hidden channels", 1)
        swiglu = self.integer(f"{name}: SwiGLU (0 or 1)", 0, 1)
        self.check(swiglu == 1, f"{name}: a SwiGLU feed-forward layer (the only kind KataGo's engine runs)")
        block = FeedForwardBlock(name, self.transformer_norm(), self.matmul(), self.matmul(), self.matmul())
        self.check(
            block.linear1.weights.shape == block.gate.weights.shape == (channels, hidden)
            and block.linear2.weights.shape == (hidden, channels)
            and block.norm.weight.shape[0] == channels,
            f"{name}: layers of {channels} -> {hidden} -> {channels} channels",
        )
        return block

    # ------------------------------------------------------------------ model
    def model(self) -> KataGoModel:
        name = self.word("the model's name")
        self.version = self.integer("the model version", 0)
        if not MIN_VERSION <= self.version <= MAX_VERSION:
            raise self.fail(
                f"a model version from {MIN_VERSION} to {MAX_VERSION} (input features version 7), found {self.version}"
            )
        spatial = self.integer("spatial input channels", 22, 22)
        global_ = self.integer("global input channels", 19, 19)
        multipliers = Multipliers()
        if self.version >= 13:
            multipliers = Multipliers(
                *(self.real(f"output multiplier {field}", positive=True) for field in Multipliers.__dataclass_fields__)
            )
        suicide = False
        if self.version >= 15:
            self.integer(
                "the SGF metadata encoder version (0: networks with an SGF metadata encoder, "
                "KataGo's human-style ones, are not supported)",
                0,
                0,
            )
            suicide = bool(self.integer("pass-alive features under suicide rules (0 or 1)", 0, 1))
            self.zeros("the header", 6)
        trunk = self.trunk()
        self.check(
            trunk.initial_conv.in_channels == spatial and trunk.initial_matmul.in_channels == global_,
            f"an initial convolution of {spatial} and matrix of {global_} input channels",
        )
        policy = self.policy_head(trunk.channels)
        value = self.value_head(trunk.channels)
        return KataGoModel(name, self.version, spatial, global_, multipliers, suicide, trunk, policy, value)

    def trunk(self) -> Trunk:
        self.word("the trunk's name")
        count = self.integer("the trunk's block count", 1)
        channels = self.integer("trunk channels", 1)
        for what in ("mid", "regular", "dilated", "global pooling"):
            self.integer(f"trunk {what} channels", 0)
        rms_tip = False
        if self.version >= 15:
            rms_tip = bool(self.integer("the trunk norm kind (0: batch norm, 1: RMS norm)", 0, 1))
            self.zeros("the trunk", 5)
        initial_conv, initial_matmul = self.conv(), self.matmul()
        self.check(
            initial_conv.out_channels == initial_matmul.out_channels == channels,
            f"initial layers of {channels} output channels",
        )
        blocks = self.blocks(count, channels, "the trunk")
        tip = self.rms_norm() if rms_tip else self.batch_norm()
        tip_channels = tip.gamma.shape[0] if isinstance(tip, RMSNorm) else tip.channels
        self.check(tip_channels == channels, f"a trunk tip norm of {channels} channels")
        return Trunk(channels, initial_conv, initial_matmul, blocks, tip, self.activation())

    def policy_head(self, channels: int) -> PolicyHead:
        self.word("the policy head's name")
        if self.version >= 17:
            outputs = self.integer("policy output channels (2 or 4)", 2, 4)
            self.check(outputs in (2, 4), "policy output channels 2 or 4")
            self.zeros("the policy head", 3)
        else:
            outputs = 4 if self.version == 16 else 2 if self.version >= 12 else 1
        p1, g1, g1_norm, g1_act = self.conv(), self.conv(), self.batch_norm(), self.activation()
        to_bias, p1_norm, p1_act, p2, pass_mul = (
            self.matmul(),
            self.batch_norm(),
            self.activation(),
            self.conv(),
            self.matmul(),
        )
        pass_bias = pass_act = pass_mul2 = None
        if self.version >= 15:
            pass_bias, pass_act, pass_mul2 = self.matbias(), self.activation(), self.matmul()
        head = PolicyHead(
            p1, g1, g1_norm, g1_act, to_bias, p1_norm, p1_act, p2, pass_mul, pass_bias, pass_act, pass_mul2
        )
        pooled = 3 * g1_norm.channels
        last = pass_mul2 if pass_mul2 is not None else pass_mul
        self.check(
            p1.in_channels == g1.in_channels == channels
            and g1.out_channels == g1_norm.channels
            and to_bias.in_channels == pooled == pass_mul.in_channels
            and to_bias.out_channels == p1_norm.channels == p1.out_channels == p2.in_channels
            and p2.out_channels == outputs
            and last.out_channels == outputs
            and (pass_bias is None or pass_bias.weights.shape[0] == pass_mul.out_channels == last.in_channels),
            f"a policy head of {outputs} outputs with matching channels",
        )
        return head

    def value_head(self, channels: int) -> ValueHead:
        self.word("the value head's name")
        if self.version >= 17:
            self.zeros("the value head", 3)
        head = ValueHead(
            self.conv(),
            self.batch_norm(),
            self.activation(),
            self.matmul(),
            self.matbias(),
            self.activation(),
            self.matmul(),
            self.matbias(),
            self.matmul(),
            self.matbias(),
            self.conv(),
        )
        scores = 6 if self.version >= 9 else 4
        hidden = head.v2_mul.out_channels
        self.check(
            head.v1_conv.in_channels == channels
            and head.v1_conv.out_channels == head.v1_norm.channels
            and head.v2_mul.in_channels == 3 * head.v1_norm.channels
            and head.v2_bias.weights.shape[0] == hidden == head.v3_mul.in_channels == head.sv3_mul.in_channels
            and head.v3_mul.out_channels == 3
            and head.v3_bias.weights.shape[0] == 3
            and head.sv3_mul.out_channels == scores
            and head.sv3_bias.weights.shape[0] == scores
            and head.ownership_conv.in_channels == head.v1_conv.out_channels
            and head.ownership_conv.out_channels == 1,
            f"a value head of 3 value, {scores} score and 1 ownership outputs with matching channels",
        )
        return head


def _block_channels(block: Block) -> tuple[int, int]:
    """The trunk channels a block reads and writes."""
    if isinstance(block, OrdinaryBlock):
        return block.pre_norm.channels, block.conv2.out_channels
    if isinstance(block, GlobalPoolBlock):
        return block.pre_norm.channels, block.final_conv.out_channels
    if isinstance(block, NestedBottleneckBlock):
        return block.pre_norm.channels, block.post_conv.out_channels
    if isinstance(block, AttentionBlock):
        return block.q.in_channels, block.out.out_channels
    return block.linear1.in_channels, block.linear2.out_channels
