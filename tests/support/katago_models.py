"""Small random networks written in KataGo's model format (text or binary, optionally gzipped), for tests.

:func:`write_katago_model` writes the token stream KataGo's loader reads for
``version`` with the blocks ``blocks`` names (``ordinary``, ``gpool``,
``nested`` holding an ordinary and a global-pooling block, ``transformer``:
a nested bottleneck block holding an attention and a feed-forward block),
with random weights drawn from ``seed``; it returns the weights it wrote by
layer name, so that a test can check what the reader gives back.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np


class _Writer:
    def __init__(self, version: int, binary: bool, seed: int) -> None:
        self.version, self.binary = version, binary
        self.rng = np.random.default_rng(seed)
        self.parts: list[bytes] = []
        self.weights: dict[str, np.ndarray] = {}

    def tokens(self, *values: object) -> None:
        self.parts.append(("\n".join(str(v) for v in values) + "\n").encode())

    def floats(self, name: str, values: np.ndarray) -> None:
        values = np.asarray(values, dtype=np.float32).reshape(-1)
        self.weights.setdefault(name, values)
        if self.binary:
            self.parts.append(b"@BIN@" + values.astype("<f4").tobytes() + b"\n")
        else:
            self.parts.append((" ".join(repr(float(v)) for v in values) + "\n").encode())

    def random(self, *shape: int, scale: float = 0.3) -> np.ndarray:
        return (self.rng.standard_normal(shape) * scale).astype(np.float32)

    def conv(self, name: str, cin: int, cout: int, k: int = 3) -> None:
        self.tokens(name, k, k, cin, cout, 1, 1)
        self.floats(name, self.random(k, k, cin, cout, scale=1.0 / np.sqrt(k * k * cin)))

    def bn(self, name: str, c: int) -> None:
        self.tokens(name, c, 1e-5, 1, 1)
        self.floats(name, self.random(c, scale=0.1))
        self.floats(name + ".var", 1.0 + self.rng.random(c).astype(np.float32))
        self.floats(name + ".scale", 1.0 + self.random(c, scale=0.1))
        self.floats(name + ".bias", self.random(c, scale=0.1))

    def act(self, name: str, kind: str = "ACTIVATION_MISH") -> None:
        self.tokens(name, kind) if self.version >= 11 else self.tokens(name)

    def matmul(self, name: str, cin: int, cout: int) -> None:
        self.tokens(name, cin, cout)
        self.floats(name, self.random(cin, cout, scale=1.0 / np.sqrt(cin)))

    def matbias(self, name: str, c: int) -> None:
        self.tokens(name, c)
        self.floats(name, self.random(c, scale=0.1))

    def ordinary(self, name: str, c: int) -> None:
        self.tokens("ordinary_block", name)
        self.bn(f"{name}.bn1", c), self.act(f"{name}.act1"), self.conv(f"{name}.conv1", c, c)
        self.bn(f"{name}.bn2", c), self.act(f"{name}.act2"), self.conv(f"{name}.conv2", c, c)

    def gpool(self, name: str, c: int) -> None:
        g = max(2, c // 2)
        self.tokens("gpool_block", name)
        self.bn(f"{name}.bn1", c), self.act(f"{name}.act1")
        self.conv(f"{name}.regular", c, c - g if c > g else c), self.conv(f"{name}.gpool", c, g)
        self.bn(f"{name}.gbn", g), self.act(f"{name}.gact")
        mid = c - g if c > g else c
        self.matmul(f"{name}.gmul", 3 * g, mid)
        self.bn(f"{name}.bn2", mid), self.act(f"{name}.act2"), self.conv(f"{name}.conv2", mid, c)

    def nested(self, name: str, c: int, inner: list[str]) -> None:
        mid = c // 2
        self.tokens("nested_bottleneck_block", name, len(inner))
        self.bn(f"{name}.prebn", c), self.act(f"{name}.preact"), self.conv(f"{name}.preconv", c, mid, 1)
        for i, kind in enumerate(inner):
            getattr(self, kind)(f"{name}.inner{i}", mid)
        self.bn(f"{name}.postbn", mid), self.act(f"{name}.postact"), self.conv(f"{name}.postconv", mid, c, 1)

    def attention(self, name: str, c: int, heads: int = 2, kv_heads: int = 1, dim: int = 4) -> None:
        self.tokens("transformer_attention_block", name, heads, kv_heads, dim, dim, 1, 1)
        self.tokens(f"{name}.norm", c, 1e-6)
        self.floats(f"{name}.norm", 1.0 + self.random(c, scale=0.1))
        self.matmul(f"{name}.q", c, heads * dim), self.matmul(f"{name}.k", c, kv_heads * dim)
        self.matmul(f"{name}.v", c, kv_heads * dim), self.matmul(f"{name}.out", heads * dim, c)
        self.tokens(f"{name}.rope", kv_heads, dim // 2, 2)
        self.floats(f"{name}.rope", self.random(kv_heads, dim // 2, 2, scale=1.0))

    def ffn(self, name: str, c: int, hidden: int = 12) -> None:
        self.tokens("transformer_ffn_block", name, c, hidden, 1)
        self.tokens(f"{name}.norm", c, 1e-6)
        self.floats(f"{name}.norm", 1.0 + self.random(c, scale=0.1))
        self.matmul(f"{name}.l1", c, hidden), self.matmul(f"{name}.gate", c, hidden)
        self.matmul(f"{name}.l2", hidden, c)


def write_katago_model(
    path: Path,
    version: int = 15,
    blocks: tuple[str, ...] = ("ordinary", "gpool", "nested"),
    channels: int = 8,
    seed: int = 0,
    rms_tip: bool = False,
) -> dict[str, np.ndarray]:
    """Write a random KataGo model to ``path`` (binary when its name ends in .bin or .bin.gz, gzipped when
    in .gz); return the weights written by layer name."""
    name = path.name.lower()
    w = _Writer(version, binary=name.endswith((".bin", ".bin.gz")), seed=seed)
    c = channels
    w.tokens(f"random-v{version}", version, 22, 19)
    if version >= 13:
        w.tokens(20.0, 20.0, 20.0, 20.0, 40.0, 0.25, 150.0)
    if version >= 15:
        w.tokens(0, 0, 0, 0, 0, 0, 0, 0)
    w.tokens("trunk", len(blocks), c, c // 2, c // 2, c // 2, c // 2)
    if version >= 15:
        w.tokens(int(rms_tip), 0, 0, 0, 0, 0)
    w.conv("initial_conv", 22, c, 5)
    w.matmul("initial_matmul", 19, c)
    for i, kind in enumerate(blocks):
        if kind == "nested":
            w.nested(f"block{i}", c, ["ordinary", "gpool"])
        elif kind == "transformer":
            w.nested(f"block{i}", c, ["attention", "ffn"])
        else:
            getattr(w, kind)(f"block{i}", c)
    if rms_tip:
        w.tokens("tip_norm", c, 1e-6, 1, 0)
        w.floats("tip_norm", 1.0 + w.random(c, scale=0.1))
        w.floats("tip_norm.beta", w.random(c, scale=0.1))
    else:
        w.bn("tip_norm", c)
    w.act("tip_act", "ACTIVATION_SILU")
    outputs = 4 if version == 16 else 2 if version >= 12 else 1
    w.tokens("policyhead")
    if version >= 17:
        w.tokens(outputs, 0, 0, 0)
    p, g = 4, 4
    w.conv("p1", c, p, 1), w.conv("g1", c, g, 1), w.bn("g1bn", g), w.act("g1act")
    w.matmul("gpool_to_bias", 3 * g, p), w.bn("p1bn", p), w.act("p1act"), w.conv("p2", p, outputs, 1)
    if version >= 15:
        w.matmul("pass_mul", 3 * g, p), w.matbias("pass_bias", p), w.act("pass_act"), w.matmul("pass_mul2", p, outputs)
    else:
        w.matmul("pass_mul", 3 * g, outputs)
    w.tokens("valuehead")
    if version >= 17:
        w.tokens(0, 0, 0)
    v, hidden, scores = 4, 6, 6 if version >= 9 else 4
    w.conv("v1", c, v, 1), w.bn("v1bn", v), w.act("v1act")
    w.matmul("v2", 3 * v, hidden), w.matbias("v2bias", hidden), w.act("v2act")
    w.matmul("v3", hidden, 3), w.matbias("v3bias", 3), w.matmul("sv3", hidden, scores), w.matbias("sv3bias", scores)
    w.conv("ownership", v, 1, 1)
    data = b"".join(w.parts)
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return w.weights
