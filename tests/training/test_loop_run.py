"""``experiments/loop_run.py``: a run kept in the repository without a second copy of a bundled network."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import torch
from safetensors import safe_open
from safetensors.torch import load_file

from engine.nn.model_file import load_model, save_model
from training.loop import LoopConfig

BUNDLED = Path(__file__).parents[2] / "engine/nn/networks/go-selfplay9-b6c64-pooled.safetensors"


def loop_run() -> ModuleType:
    path = Path(__file__).parents[2] / "experiments/loop_run.py"
    spec = importlib.util.spec_from_file_location("loop_run", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def a_run(folder: Path, best: str) -> Path:
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps(LoopConfig(cpu_hours=1.0).to_dict()))
    (folder / "state.json").write_text(json.dumps({"best": best, "next": 1, "phase": "selfplay", "current": {},
                                                   "history": [], "format_version": 1}))
    return folder


def test_generation_0_restamped_from_a_bundled_network_is_kept_as_a_marker_and_restored_with_its_generation(
        tmp_path: Path) -> None:
    best = "models/000000-b6c64-pooled.safetensors"
    run = a_run(tmp_path / "run", best)
    bundled = load_model(BUNDLED)
    assert bundled.info.generation != 0
    save_model(run / best, bundled.with_generation(0, 0))
    module = loop_run()

    module.save(run, tmp_path / "keep")
    assert not (tmp_path / "keep" / best).exists()
    assert (tmp_path / "keep" / (best + ".bundled")).read_text().splitlines()[0] == BUNDLED.name
    module.restore(tmp_path / "keep", tmp_path / "again")

    restored, original = tmp_path / "again" / best, run / best
    assert load_model(restored).info.generation == 0
    with safe_open(str(restored), "pt") as a, safe_open(str(original), "pt") as b:
        assert a.metadata() == b.metadata()
    weights, expected = load_file(str(restored)), load_file(str(original))
    assert weights.keys() == expected.keys() and all(torch.equal(weights[k], expected[k]) for k in expected)
    assert not list((tmp_path / "again").rglob("*.bundled"))


def test_a_network_of_the_runs_own_is_copied(tmp_path: Path) -> None:
    best = "models/000003-b6c64-pooled.safetensors"
    run = a_run(tmp_path / "run", best)
    model = load_model(BUNDLED)
    with torch.no_grad():
        next(model.net.parameters()).add_(1.0)
    save_model(run / best, model.with_generation(3, 10))

    loop_run().save(run, tmp_path / "keep")
    assert (tmp_path / "keep" / best).read_bytes() == (run / best).read_bytes()
    assert not (tmp_path / "keep" / (best + ".bundled")).exists()
