"""The komi a model file records: round trip, files without it, the bundled networks', rewrite_info."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.nn.model_file import Model, ModelFormatError, ModelInfo, load_model, read_info, rewrite_info, save_model
from engine.nn.model_format import METADATA_KEY, read_weights
from engine.nn.net import NetConfig, PolicyValueNet

NETWORKS = Path(__file__).resolve().parents[3] / "engine" / "nn" / "networks"

BUNDLED = {  # komi learnt; SHA-256 of the tensors (name then bytes, by name) as trained
    "go-gnugo9-b4c48-pooled": (7.0, "4f2c39808ea4487b8da7f071256ea7b0ee0b1eea55193e67cacbbd6ffed83ede"),
    "go-selfplay9-b6c64-pooled": (7.0, "3785b09b7b7aabdacd2a3767c543807f117697174edd9b1a01c5540f2c248d65"),
    "go-tygem19-b6c64-pooled": (6.5, "d180278c1129280b3276da5c22ec16b846dc51d5a677748a83b374b462307911"),
}


def _tensor_hash(path: Path) -> str:
    _, _, tensors = read_weights(path)
    digest = hashlib.sha256()
    for name in sorted(tensors):
        digest.update(name.encode())
        digest.update(tensors[name].tobytes())
    return digest.hexdigest()


def _saved(tmp_path: Path, komi: float | None) -> Path:
    config = NetConfig(1, 8, 3, None, "pooled", ("ownership", "score"))
    info = ModelInfo("go", "two", 3, config, 4, 100, komi=komi)
    return save_model(tmp_path / "000004-b1c8.safetensors", Model(PolicyValueNet(config), info))


def _with_metadata(path: Path, change: dict[str, object], drop: str | None = None) -> Path:
    from safetensors import safe_open
    from safetensors.numpy import save_file

    with safe_open(str(path), framework="numpy") as handle:
        metadata = json.loads(handle.metadata()[METADATA_KEY])
        tensors = {name: handle.get_tensor(name) for name in handle.keys()}
    metadata.update(change)
    if drop is not None:
        del metadata[drop]
    out = path.with_name("changed.safetensors")
    save_file(tensors, str(out), metadata={METADATA_KEY: json.dumps(metadata)})
    return out


@pytest.mark.parametrize("komi", [6.5, 0.0, -3.0, None])
def test_the_komi_round_trips(tmp_path: Path, komi: float | None) -> None:
    path = _saved(tmp_path, komi)
    assert read_info(path).komi == komi and load_model(path).info.komi == komi


def test_a_file_without_a_komi_reads_as_unknown(tmp_path: Path) -> None:
    old = _with_metadata(_saved(tmp_path, 7.0), {}, drop="komi")
    assert read_info(old).komi is None


@pytest.mark.parametrize("komi", ["7", True, float("nan"), [7]])
def test_a_komi_that_is_no_number_is_refused(tmp_path: Path, komi: object) -> None:
    bad = _with_metadata(_saved(tmp_path, 7.0), {"komi": komi})
    with pytest.raises(ModelFormatError, match="komi"):
        read_info(bad)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_the_bundled_go_networks_carry_their_komi_and_their_trained_tensors(name: str) -> None:
    komi, tensors = BUNDLED[name]
    path = NETWORKS / f"{name}.safetensors"
    assert read_info(path).komi == komi
    assert _tensor_hash(path) == tensors


def test_rewrite_info_keeps_the_tensors_byte_for_byte(tmp_path: Path) -> None:
    path = _saved(tmp_path, None)
    before, info = _tensor_hash(path), read_info(path)
    rewrite_info(path, replace(info, komi=7.5))
    assert read_info(path) == replace(info, komi=7.5) and _tensor_hash(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_rewrite_info_refuses_another_network_and_leaves_the_file(tmp_path: Path) -> None:
    path = _saved(tmp_path, 7.0)
    content = path.read_bytes()
    other = replace(read_info(path), config=NetConfig(2, 8, 3, None, "pooled", ("ownership", "score")))
    with pytest.raises(ValueError, match="architecture"):
        rewrite_info(path, other)
    assert path.read_bytes() == content


def test_a_failed_rewrite_leaves_the_old_file_and_no_temporary(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import safetensors.numpy

    path = _saved(tmp_path, 7.0)
    content = path.read_bytes()

    def fail(tensors: dict[str, np.ndarray], filename: str, metadata: dict[str, str]) -> None:
        Path(filename).write_bytes(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(safetensors.numpy, "save_file", fail)
    with pytest.raises(OSError, match="disk full"):
        rewrite_info(path, replace(read_info(path), komi=0.5))
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name] and path.read_bytes() == content
