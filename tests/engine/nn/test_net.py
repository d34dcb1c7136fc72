"""The network's shapes and heads, model files (round trip, refusals, atomic writes) and ``engine bench net``."""

from __future__ import annotations

import json
import math
import pickle
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner
from safetensors.torch import save_file

from engine.cli.bench import net_command
from engine.nn.model_file import (
    METADATA_KEY,
    Model,
    ModelFormatError,
    ModelInfo,
    load_model,
    model_name,
    read_info,
    save_model,
)
from engine.nn.net import NetConfig, NetOutput, PolicyValueNet, parse_aux_heads
from tests.support.nets import random_net

_net = random_net


def _planes(batch: int, channels: int, size: int, seed: int = 1) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return (torch.rand(batch, channels, size, size, generator=generator) < 0.3).float()


def _model(config: NetConfig, game: str = "go", encoder: str = "two", generation: int = 12) -> Model:
    return Model(_net(config), ModelInfo(game, encoder, config.in_planes, config, generation, 345))


# ------------------------------------------------------------------ network
AUX = ("ownership", "score")


def _check_outputs(net: PolicyValueNet, planes: torch.Tensor) -> None:
    """Every head's shape and range on ``planes[B, C, N, N]``; None for the heads the net lacks."""
    batch, size = planes.shape[0], planes.shape[-1]
    out = net(planes)
    assert isinstance(out, NetOutput)
    assert out.policy.shape == (batch, size * size + 1)
    assert out.value.shape == (batch,) and bool((out.value.abs() <= 1).all())
    aux = net.config.aux_heads
    assert (out.ownership is None) == ("ownership" not in aux)
    assert (out.score_mean is None) == (out.score_stdev is None) == ("score" not in aux)
    if out.ownership is not None:
        assert out.ownership.shape == (batch, size * size) and bool((out.ownership.abs() <= 1).all())
    if out.score_mean is not None:
        assert out.score_mean.shape == out.score_stdev.shape == (batch,)
        assert bool((out.score_stdev > 0).all())


@pytest.mark.parametrize("aux", [(), AUX, ("ownership",), ("score",)])
@pytest.mark.parametrize("size", [5, 9, 19])
def test_fc_heads_shapes(size: int, aux: tuple[str, ...]) -> None:
    _check_outputs(_net(NetConfig(2, 8, 3, size, aux_heads=aux)), _planes(4, 3, size))


@pytest.mark.parametrize("aux", [(), AUX])
def test_pooled_heads_play_every_size_with_the_same_weights(aux: tuple[str, ...]) -> None:
    net = _net(NetConfig(2, 8, 3, None, "pooled", aux))
    for size in (5, 9, 13, 19):
        _check_outputs(net, _planes(3, 3, size))


def test_score_outputs_are_in_points_of_the_board_size() -> None:
    """The score layer's two numbers (m, s) give a mean of m * N points and a spread of (softplus(s) + 0.01) * N."""
    net = _net(NetConfig(1, 8, 3, None, "pooled", AUX))
    with torch.no_grad():
        net.score_head.weight.zero_()
        net.score_head.bias.copy_(torch.tensor([0.5, 0.0]))
        for size in (5, 9, 19):
            out = net(_planes(2, 3, size))
            torch.testing.assert_close(out.score_mean, torch.full((2,), 0.5 * size))
            torch.testing.assert_close(out.score_stdev, torch.full((2,), (math.log(2) + 0.01) * size))


def test_aux_heads_add_tensors_and_keep_the_others() -> None:
    """A network without auxiliary heads has exactly the tensors of a version 1 file; the heads add their own."""
    for config in (NetConfig(2, 8, 3, 9), NetConfig(2, 8, 3, None, "pooled")):
        plain = set(PolicyValueNet(config).state_dict())
        assert not any("ownership" in name or "score" in name for name in plain)
        headed = set(PolicyValueNet(NetConfig(2, 8, 3, config.board_size, config.heads, AUX)).state_dict())
        assert headed - plain == {"ownership_head.weight", "ownership_head.bias", "score_head.weight",
                                  "score_head.bias"} and plain <= headed


def test_pooled_policy_is_translation_equivariant_away_from_the_edge() -> None:
    """The point logits come from convolutions only: shifting a lone stone in the middle shifts them."""
    net = _net(NetConfig(1, 8, 2, None, "pooled"))
    a, b = torch.zeros(1, 2, 19, 19), torch.zeros(1, 2, 19, 19)
    a[0, 0, 9, 9] = 1
    b[0, 0, 9, 10] = 1
    pa = net(a)[0][0, :-1].reshape(19, 19)
    pb = net(b)[0][0, :-1].reshape(19, 19)
    torch.testing.assert_close(pa[6:13, 6:12], pb[6:13, 7:13])


def test_fc_net_refuses_another_board_size() -> None:
    net = _net(NetConfig(1, 8, 3, 9))
    with pytest.raises(ValueError, match="plays 9x9"):
        net(_planes(1, 3, 13))
    with pytest.raises(ValueError, match="planes"):
        net(_planes(1, 4, 9))


def test_inference_copy_folds_batch_norm_without_changing_outputs() -> None:
    for config in (NetConfig(2, 8, 3, 9, aux_heads=AUX), NetConfig(2, 8, 3, None, "pooled", AUX)):
        net = _net(config)
        frozen = net.for_inference()
        assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in frozen.modules())
        assert any(isinstance(m, torch.nn.BatchNorm2d) for m in net.modules()), "the original must keep training"
        x = _planes(5, 3, 9)
        with torch.no_grad():
            for got, want in zip(frozen(x), net(x)):
                torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_config_validation_and_names() -> None:
    assert NetConfig(6, 64, 17, 19).name == "b6c64"
    assert NetConfig(10, 128, 17, None, "pooled").name == "b10c128-pooled"
    assert NetConfig.from_name("b6c64", 17, 19) == NetConfig(6, 64, 17, 19)
    assert NetConfig.from_name("B3C32-pooled", 4, 15) == NetConfig(3, 32, 4, None, "pooled")
    for bad in (lambda: NetConfig(6, 64, 17, None), lambda: NetConfig(6, 64, 17, 19, "pooled"),
                lambda: NetConfig(6, 0, 17, 19), lambda: NetConfig(6, 64, 17, 19, "conv"),
                lambda: NetConfig.from_name("resnet", 17, 19), lambda: NetConfig(6, 64, 17, 19, aux_heads=("policy",)),
                lambda: NetConfig(6, 64, 17, 19, aux_heads=("score", "score"))):
        with pytest.raises(ValueError):
            bad()
    assert NetConfig(6, 64, 17, 19, aux_heads=["score", "ownership"]).aux_heads == AUX   # canonical order
    assert NetConfig(6, 64, 17, 19, aux_heads=("score",)).name == "b6c64"
    assert parse_aux_heads("Score, ownership") == AUX and parse_aux_heads("none") == parse_aux_heads("") == ()
    with pytest.raises(ValueError, match="territory"):
        parse_aux_heads("ownership,territory")


def test_model_names_sort_by_generation() -> None:
    config = NetConfig(6, 64, 17, 19)
    names = [model_name(g, config) for g in (2, 10, 100, 1)]
    assert model_name(12, config) == "000012-b6c64"
    assert sorted(names) == [model_name(g, config) for g in (1, 2, 10, 100)]


# -------------------------------------------------------------- model files
@pytest.mark.parametrize("config", [NetConfig(2, 8, 3, 9), NetConfig(1, 8, 3, None, "pooled"),
                                    NetConfig(2, 8, 3, 9, aux_heads=AUX), NetConfig(1, 8, 3, None, "pooled", AUX)])
def test_round_trip_gives_identical_outputs(tmp_path: Path, config: NetConfig) -> None:
    model = _model(config)
    path = save_model(tmp_path / f"{model.name}.safetensors", model)
    loaded = load_model(path, expect_game="go", expect_size=9, expect_encoder="two")
    assert loaded.info == model.info
    assert loaded.path == path
    x = _planes(3, 3, 9)
    with torch.no_grad():
        for got, want in zip(loaded.net(x), model.net(x)):
            assert (got is None and want is None) or torch.equal(got, want)
    assert read_info(path) == model.info and loaded.info.config.aux_heads == config.aux_heads


def test_metadata_is_json_under_one_key(tmp_path: Path) -> None:
    from safetensors import safe_open

    model = _model(NetConfig(1, 8, 3, 9), game="gomoku", encoder="gomoku4")
    path = save_model(tmp_path / "m.safetensors", model)
    with safe_open(str(path), framework="pt") as handle:
        metadata = json.loads(handle.metadata()[METADATA_KEY])
    assert metadata["game"] == "gomoku" and metadata["board_size"] == 9
    assert metadata["encoder"] == "gomoku4" and metadata["num_planes"] == 3
    assert metadata["architecture"] == {"blocks": 1, "filters": 8, "in_planes": 3, "board_size": 9, "heads": "fc",
                                        "aux_heads": []}
    assert metadata["generation"] == 12 and metadata["training_steps"] == 345
    assert metadata["format_version"] == 2 and "created" in metadata


def _rewrite_metadata(path: Path, out: Path, change: Callable[[dict], None]) -> Path:
    """A copy of the model file at ``path`` with its metadata changed by ``change`` (weights untouched)."""
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as handle:
        metadata = json.loads(handle.metadata()[METADATA_KEY])
        tensors = {name: handle.get_tensor(name) for name in handle.keys()}
    change(metadata)
    save_file(tensors, str(out), metadata={METADATA_KEY: json.dumps(metadata)})
    return out


def _as_version_1(metadata: dict) -> None:
    metadata["format_version"] = 1
    del metadata["architecture"]["aux_heads"]


@pytest.mark.parametrize("config", [NetConfig(1, 8, 3, 9), NetConfig(1, 8, 3, None, "pooled")])
def test_version_1_files_load_and_play_as_before(tmp_path: Path, config: NetConfig) -> None:
    model = _model(config)
    old = _rewrite_metadata(save_model(tmp_path / "new.safetensors", model), tmp_path / "old.safetensors",
                            _as_version_1)
    loaded = load_model(old, expect_game="go", expect_size=9)
    assert loaded.info == model.info and loaded.net.config.aux_heads == ()
    x = _planes(3, 3, 9)
    with torch.no_grad():
        got, want = loaded.net(x), model.net(x)
    assert torch.equal(got.policy, want.policy) and torch.equal(got.value, want.value)
    assert got.ownership is got.score_mean is got.score_stdev is None
    resaved = save_model(tmp_path / "again.safetensors", loaded.with_generation(13, 400))
    assert read_info(resaved).config == config   # saved again as version 2, still without heads


@pytest.mark.parametrize("size", [9, 19])
def test_the_bundled_go_networks_have_the_auxiliary_heads(size: int) -> None:   # one network may play both
    from engine import Rules
    from engine.nn.networks import bundled_model

    path = bundled_model(Rules.go(size))
    assert path is not None
    model = load_model(path, expect_game="go", expect_size=size)
    assert model.info.config.aux_heads == AUX
    _check_outputs(model.net, torch.zeros(2, model.info.num_planes, size, size))


def test_a_version_2_file_must_name_its_heads(tmp_path: Path) -> None:
    def forget_heads(metadata: dict) -> None:
        del metadata["architecture"]["aux_heads"]

    good = save_model(tmp_path / "good.safetensors", _model(NetConfig(1, 8, 3, 9)))
    forgetful = _rewrite_metadata(good, tmp_path / "forgetful.safetensors", forget_heads)
    with pytest.raises(ModelFormatError, match="forgetful.safetensors has malformed metadata.*aux_heads"):
        load_model(forgetful)
    lying = _rewrite_metadata(save_model(tmp_path / "headed.safetensors", _model(NetConfig(1, 8, 3, 9,
                                                                                           aux_heads=AUX))),
                              tmp_path / "lying.safetensors", _as_version_1)
    with pytest.raises(ModelFormatError, match="lying.safetensors: the weights do not fit"):
        load_model(lying)


class _Encoder:
    def __init__(self, name: str, num_planes: int) -> None:
        self.name, self.num_planes = name, num_planes


def test_mismatches_are_refused_with_a_clear_message(tmp_path: Path) -> None:
    model = _model(NetConfig(1, 8, 3, 9), game="gomoku", encoder="gomoku4")
    path = save_model(tmp_path / f"{model.name}.safetensors", model)
    with pytest.raises(ModelFormatError) as error:
        load_model(path, expect_game="go", expect_encoder=_Encoder("zero17", 17))
    assert str(error.value) == ("model 000012-b1c8.safetensors was trained for gomoku with encoder gomoku4 "
                                "(3 planes); this game is go with encoder zero17 (17 planes)")
    with pytest.raises(ModelFormatError, match="trained for gomoku"):
        load_model(path, expect_game="go")
    with pytest.raises(ModelFormatError, match="uses encoder zero17"):
        load_model(path, expect_encoder="zero17")
    with pytest.raises(ModelFormatError, match=r"\(4 planes\)"):
        load_model(path, expect_encoder=_Encoder("gomoku4", 4))
    with pytest.raises(ModelFormatError, match="plays 9x9 only.*19x19"):
        load_model(path, expect_size=19)
    assert isinstance(ModelFormatError("x"), ValueError)


def test_size_independent_model_fits_every_size(tmp_path: Path) -> None:
    model = _model(NetConfig(1, 8, 3, None, "pooled"))
    path = save_model(tmp_path / "m.safetensors", model)
    for size in (7, 9, 19):
        assert load_model(path, expect_size=size).info.board_size is None


@pytest.mark.parametrize("damage", ["truncated", "header-only", "empty", "text", "bit-flip"])
def test_damaged_files_give_a_clear_error(tmp_path: Path, damage: str) -> None:
    path = save_model(tmp_path / "model.safetensors", _model(NetConfig(1, 8, 3, 9)))
    data = bytearray(path.read_bytes())
    if damage == "truncated":
        data = data[: len(data) - 1000]
    elif damage == "header-only":
        data = data[:200]
    elif damage == "empty":
        data = bytearray()
    elif damage == "text":
        data = bytearray(b"this is not a model\n" * 20)
    else:
        data[-500] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFormatError, match="model.safetensors"):
        load_model(path)


class _Tripwire:
    """Unpickling this creates a file: proof that the loader executed the pickle."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (Path.touch, (self.marker,))


@pytest.mark.parametrize("writer", ["pickle", "torch.save"])
def test_pickle_files_are_refused_and_never_unpickled(tmp_path: Path, writer: str) -> None:
    marker = tmp_path / "unpickled"
    path = tmp_path / "evil.safetensors"
    payload = {"weights": _Tripwire(marker)}
    if writer == "pickle":
        path.write_bytes(pickle.dumps(payload))
    else:
        torch.save(payload, path)
    with pytest.raises(ModelFormatError, match="evil.safetensors"):
        load_model(path)
    with pytest.raises(ModelFormatError):
        read_info(path)
    assert not marker.exists()
    if writer == "pickle":  # the tripwire is armed: unpickling the same bytes does create the marker
        pickle.loads(path.read_bytes())
        assert marker.exists()


def test_missing_or_malformed_metadata(tmp_path: Path) -> None:
    tensors = {name: t.contiguous() for name, t in _net(NetConfig(1, 8, 3, 9)).state_dict().items()}
    bare = tmp_path / "bare.safetensors"
    save_file(tensors, str(bare))
    with pytest.raises(ModelFormatError, match="bare.safetensors has no 'engine.model' metadata"):
        load_model(bare)
    broken = tmp_path / "broken.safetensors"
    save_file(tensors, str(broken), metadata={METADATA_KEY: '{"game": "go"'})
    with pytest.raises(ModelFormatError, match="broken.safetensors has malformed metadata"):
        load_model(broken)


def test_weights_that_do_not_fit_the_architecture(tmp_path: Path) -> None:
    """A header that describes another network than the tensors hold."""
    def deepen(metadata: dict) -> None:
        metadata["architecture"]["blocks"] = 2

    good = save_model(tmp_path / "good.safetensors", _model(NetConfig(1, 8, 3, 9)))
    lying = _rewrite_metadata(good, tmp_path / "lying.safetensors", deepen)
    with pytest.raises(ModelFormatError, match="lying.safetensors: the weights do not fit a b2c8 network"):
        load_model(lying)


def test_atomic_write_leaves_no_temporary_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _model(NetConfig(1, 8, 3, 9))
    target = tmp_path / "000012-b1c8.safetensors"
    save_model(target, model)
    save_model(target, model)  # overwriting is a rename too
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]
    before = target.read_bytes()

    import safetensors.torch

    def fail(*args: object, **kwargs: object) -> None:
        Path(args[1]).write_bytes(b"partial")  # type: ignore[arg-type]
        raise OSError("disk full")

    monkeypatch.setattr(safetensors.torch, "save_file", fail)
    with pytest.raises(OSError, match="disk full"):
        save_model(target, _model(NetConfig(1, 8, 3, 9), generation=13))
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]
    assert target.read_bytes() == before


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelFormatError, match="no such file"):
        load_model(tmp_path / "nothing.safetensors")


# --------------------------------------------------------------- benchmark
def test_bench_net_prints_one_json_object() -> None:
    result = CliRunner().invoke(net_command, ["--blocks", "1", "--filters", "8", "--size", "9", "--batch", "4",
                                              "--device", "cpu", "--dtype", "fp32", "--runtime", "eager",
                                              "--seconds", "0.05", "--runs", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["positions_per_s"] > 0 and len(data["positions_per_s_runs"]) == 2
    assert (data["net"], data["size"], data["batch"]) == ("b1c8", 9, 4)
    assert (data["dtype"], data["runtime"]) == ("fp32", "eager")


def test_bench_net_help() -> None:
    result = CliRunner().invoke(net_command, ["--help"])
    assert result.exit_code == 0 and "--batch" in result.output

