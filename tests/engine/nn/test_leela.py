"""Leela Zero weights: reading, writing back, the version 2 value, errors that name the line, the cache.

Agreement with Leela Zero itself is tests/gtp/test_leelaz.py's; these need no ``leelaz``.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from bench.leelaz_peer import write_random_leelaz_weights
from engine.cli import main
from engine.nn import leela
from engine.nn.leela import cache_dir, is_leela_zero, read_leela, write_leela
from engine.nn.loading import load_model, read_info
from engine.nn.model_file import Model, ModelFormatError, ModelInfo, save_model
from engine.nn.net import NetConfig, PolicyValueNet
from tests.support.nets import random_net


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture()
def weights(tmp_path: Path) -> Path:
    path = tmp_path / "random.txt"
    write_random_leelaz_weights(path, 2, 8, seed=3, output_gain=3.0, biases=True)
    return path


def _planes(black_to_move: bool, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    planes = (torch.rand(4, 18, 19, 19, generator=generator) < 0.3).float()
    planes[:, 16], planes[:, 17] = float(black_to_move), float(not black_to_move)
    return planes


def _outputs(model: Model, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.no_grad():
        out = model.net.eval()(planes)
    return out.policy, out.value


def test_reads_the_shape_and_describes_an_lz18_go_network(weights: Path) -> None:
    model = read_leela(weights)
    assert model.net.config == NetConfig(2, 8, 18, 19, "fc")
    assert (model.info.game, model.info.encoder, model.info.board_size) == ("go", "lz18", 19)


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz"])
def test_written_weights_read_back_to_the_same_network(weights: Path, tmp_path: Path, suffix: str) -> None:
    model = read_leela(weights)
    again = read_leela(write_leela(tmp_path / f"back{suffix}", model))
    planes = _planes(True)
    for ours, theirs in zip(_outputs(model, planes), _outputs(again, planes)):
        torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-5)


def test_export_folds_our_batch_norm_scale_and_shift(tmp_path: Path) -> None:
    config = NetConfig(1, 8, 18, 19, "fc", aux_heads=("ownership", "score"))
    model = Model(random_net(config, scales=(-1.5, 1.5)), ModelInfo("go", "lz18", 18, config))
    exported = read_leela(write_leela(tmp_path / "ours.txt", model))
    planes = _planes(False, seed=1)
    for ours, theirs in zip(_outputs(model, planes), _outputs(exported, planes)):
        torch.testing.assert_close(ours, theirs, rtol=1e-4, atol=1e-4)


def test_version_2_values_are_black_s_turned_to_the_side_to_move(weights: Path, tmp_path: Path) -> None:
    lines = weights.read_text().split("\n")
    black = tmp_path / "black.txt"
    black.write_text("\n".join(["2"] + lines[1:]))
    side, blacks = read_leela(weights), read_leela(black)
    assert blacks.net.config.value_black_plane == 16
    for to_move, sign in ((True, 1.0), (False, -1.0)):
        planes = _planes(to_move)
        torch.testing.assert_close(_outputs(blacks, planes)[1], sign * _outputs(side, planes)[1])
    assert write_leela(tmp_path / "again.txt", blacks).read_text().startswith("2\n")


def _edit(path: Path, line: int, change) -> None:  # type: ignore[no-untyped-def]
    lines = path.read_text().split("\n")
    lines[line - 1] = change(lines[line - 1])
    path.write_text("\n".join(lines))


@pytest.mark.parametrize("line, change, message", [
    (1, lambda text: "3", "line 1: version '3'"),
    (5, lambda text: text.replace(" ", " x1 ", 1), "line 5: 'x1' is not a number"),
    (7, lambda text: text.rsplit(" ", 1)[0], "line 7: the block 1 first convolution biases"),
    (4, lambda text: text + " nan", "line 4: holds infinite or NaN"),
    (3, lambda text: "", "line 3: empty"),
])
def test_malformed_weights_name_the_line(weights: Path, line: int, change, message: str) -> None:  # type: ignore[no-untyped-def]
    _edit(weights, line, change)
    with pytest.raises(ModelFormatError, match=message):
        read_leela(weights)


def test_missing_lines_and_truncated_gzip_are_named(weights: Path, tmp_path: Path) -> None:
    lines = weights.read_text().rstrip("\n").split("\n")
    short = tmp_path / "short.txt"
    short.write_text("\n".join(lines[:-3]) + "\n")
    with pytest.raises(ModelFormatError, match=r"ends after line 32: 32 lines, but a network has 19 \+ 8 x blocks"):
        read_leela(short)
    cut = tmp_path / "cut.txt.gz"
    data = gzip.compress(weights.read_bytes())
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFormatError, match=r"cut.txt.gz, line \d+: cannot be read \(truncated or corrupt"):
        read_leela(cut)


def test_recognised_by_content_not_name(weights: Path, tmp_path: Path) -> None:
    model_file = save_model(tmp_path / "model.txt", read_leela(weights))
    disguised = tmp_path / "weights.safetensors"
    disguised.write_bytes(gzip.compress(weights.read_bytes()))
    assert is_leela_zero(weights) and is_leela_zero(disguised)
    assert not is_leela_zero(model_file) and not is_leela_zero(tmp_path / "missing")
    header_like = tmp_path / "header"
    header_like.write_bytes(b"1\n\x00\x00\x00\x00\x00\x00{}")   # a safetensors header of 2609 bytes starts so
    assert not is_leela_zero(header_like)


def test_loading_converts_once_into_the_cache(weights: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = load_model(weights, expect_game="go", expect_size=19, expect_encoder="lz18")
    cached = sorted(cache_dir().iterdir())
    assert [path.name for path in cached] == [first.path.name] and first.path.name.startswith("random-")
    monkeypatch.setattr(leela, "read_leela", lambda path: pytest.fail("converted a second time"))
    again = load_model(weights)
    assert again.path == first.path and read_info(weights).config.name == "b2c8"
    planes = _planes(True)
    torch.testing.assert_close(_outputs(first, planes)[0], _outputs(again, planes)[0])
    with pytest.raises(ModelFormatError, match="plays 19x19 only"):
        load_model(weights, expect_size=9)


def test_export_refuses_what_leela_zero_cannot_play(tmp_path: Path) -> None:
    config = NetConfig(1, 8, 17, 19, "fc")
    model = Model(PolicyValueNet(config), ModelInfo("go", "zero17", 17, config))
    with pytest.raises(ModelFormatError, match="encoder lz18"):
        write_leela(tmp_path / "out.txt", model)
    assert not (tmp_path / "out.txt").exists()


def test_convert_and_export_commands(weights: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    converted = tmp_path / "converted.safetensors"
    result = runner.invoke(main, ["convert-lz", str(weights), str(converted)])
    assert result.exit_code == 0, result.output
    exported = tmp_path / "exported.txt.gz"
    result = runner.invoke(main, ["export-lz", str(converted), str(exported)])
    assert result.exit_code == 0, result.output
    planes = _planes(False)
    torch.testing.assert_close(_outputs(read_leela(weights), planes)[0], _outputs(read_leela(exported), planes)[0])
    _edit(weights, 6, lambda text: text + " 1")
    result = runner.invoke(main, ["convert-lz", str(weights), str(tmp_path / "bad.safetensors")])
    assert result.exit_code != 0 and "line 6" in result.output
