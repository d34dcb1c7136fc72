"""KataGo model files: every format and version read back as written; corrupt, truncated and unsupported files
refused with the file, the place and what was expected."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from engine.nn.katago_format import (
    AttentionBlock,
    FeedForwardBlock,
    GlobalPoolBlock,
    NestedBottleneckBlock,
    OrdinaryBlock,
    RMSNorm,
    is_katago_model,
    read_katago_model,
)
from engine.nn.model_format import ModelFormatError, is_leela_zero
from tests.support.katago_models import write_katago_model


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz", ".bin", ".bin.gz"])
@pytest.mark.parametrize("version", [8, 11, 15, 17])
def test_every_format_and_version_reads_back_what_was_written(tmp_path: Path, suffix: str, version: int) -> None:
    path = tmp_path / f"net{suffix}"
    blocks = ("ordinary", "gpool", "nested", "transformer") if version >= 15 else ("ordinary", "gpool", "nested")
    written = write_katago_model(path, version, blocks, rms_tip=version >= 15)
    model = read_katago_model(path)
    assert (model.version, model.spatial_inputs, model.global_inputs, model.blocks) == (version, 22, 19, len(blocks))
    assert model.policy_channels == (2 if version >= 12 else 1)
    kinds = [type(block) for block in model.trunk.blocks]
    assert kinds[:3] == [OrdinaryBlock, GlobalPoolBlock, NestedBottleneckBlock]
    # convolutions are stored y, x, in, out and come back as torch's out, in, y, x
    conv = model.trunk.initial_conv.weights
    assert conv.shape == (8, 22, 5, 5)
    np.testing.assert_array_equal(conv.transpose(2, 3, 1, 0).reshape(-1), written["initial_conv"])
    np.testing.assert_array_equal(model.trunk.initial_matmul.weights.reshape(-1), written["initial_matmul"])
    first = model.trunk.blocks[0]
    var, scale, bias, mean = (written[f"block0.bn1{s}"] for s in (".var", ".scale", ".bias", ""))
    np.testing.assert_allclose(first.pre_norm.scale, scale / np.sqrt(var + 1e-5), rtol=1e-6)
    np.testing.assert_allclose(first.pre_norm.bias, bias - first.pre_norm.scale * mean, rtol=1e-5, atol=1e-7)
    expected_activation = "mish" if version >= 11 else "relu"
    assert first.pre_act.kind == expected_activation and model.trunk.tip_act.kind == (
        "silu" if version >= 11 else "relu"
    )
    if version >= 15:
        nested = model.trunk.blocks[3]
        assert isinstance(nested, NestedBottleneckBlock)
        attention, ffn = nested.blocks
        assert isinstance(attention, AttentionBlock) and isinstance(ffn, FeedForwardBlock)
        assert (attention.heads, attention.kv_heads, attention.q_dim) == (2, 1, 4)
        assert attention.rope_freqs is not None and attention.rope_freqs.shape == (1, 2, 2)
        assert isinstance(model.trunk.tip_norm, RMSNorm) and model.trunk.tip_norm.spatial
        assert model.policy.pass_mul2 is not None and model.multipliers.shortterm_score_error == 150.0
    else:
        assert model.policy.pass_mul2 is None and model.multipliers.shortterm_score_error == 30.0
    assert model.value.sv3_mul.out_channels == (6 if version >= 9 else 4)


def test_katago_files_are_told_from_leela_zero_weights(tmp_path: Path) -> None:
    binary, text = tmp_path / "net.bin.gz", tmp_path / "net.txt"
    write_katago_model(binary), write_katago_model(text)
    leela = tmp_path / "leela.txt.gz"
    leela.write_bytes(gzip.compress(b"1\n0.5 0.25\n"))
    assert is_katago_model(binary) and is_katago_model(text) and not is_katago_model(leela)
    assert not is_leela_zero(binary) and not is_leela_zero(text) and is_leela_zero(leela)


def _refused(path: Path, *fragments: str) -> str:
    with pytest.raises(ModelFormatError) as error:
        read_katago_model(path)
    message = str(error.value)
    assert path.name in message and all(fragment in message for fragment in fragments), message
    return message


@pytest.mark.parametrize("suffix", [".txt", ".bin"])
def test_truncated_files_are_refused_naming_the_place(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"net{suffix}"
    write_katago_model(path)
    data = path.read_bytes()
    for cut in (len(data) // 3, len(data) - 40):
        path.write_bytes(data[:cut])
        _refused(path, "at byte", "line", "expected")


def test_a_text_model_named_binary_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "net.txt"
    write_katago_model(text)
    wrong = tmp_path / "net.bin"
    wrong.write_bytes(text.read_bytes())
    _refused(wrong, "@BIN@")


def test_unsupported_versions_and_layers_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "net.txt"
    write_katago_model(path, version=15)
    data = path.read_text()
    for old, new, fragment in (
        ("\n15\n22\n", "\n7\n22\n", "model version from 8 to 17"),
        ("\n15\n22\n", "\n18\n22\n", "found 18"),
        ("ordinary_block", "dilated_block", "a block kind"),
        ("ACTIVATION_MISH", "ACTIVATION_GELU", "found ACTIVATION_GELU"),
        ("\n22\n19\n", "\n23\n19\n", "spatial input channels"),
    ):
        path.write_text(data.replace(old, new, 1))
        _refused(path, fragment)


def test_non_finite_weights_and_a_corrupt_gzip_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "net.bin"
    write_katago_model(path)
    data = bytearray(path.read_bytes())
    start = data.index(b"@BIN@") + 5
    data[start : start + 4] = np.float32(np.nan).tobytes()
    path.write_bytes(bytes(data))
    _refused(path, "NaN or infinite")
    packed = tmp_path / "net.bin.gz"
    packed.write_bytes(gzip.compress(bytes(data))[:200])
    _refused(packed, "decompress")
    _refused(tmp_path / "missing.bin.gz", "no such file")
