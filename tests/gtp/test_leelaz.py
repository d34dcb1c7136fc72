"""Differential: Leela Zero 0.17 (apt ``leela-zero``) and this engine give the same raw network output.

Random networks of several sizes in both weights versions (outputs scaled far
from uniform, random convolution biases) are read by both engines; one GTP
script (random legal play with captures and passes, a ``heatmap 0`` every few
moves) goes to both, and every heatmap must agree: the policy to within one
unit of Leela Zero's per-mille integers (1e-3), the winrate to within 1e-4.
Then our own random network (batch norms with scale and shift), exported to
Leela Zero's format, must give ``leelaz`` the figures it gives us.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from bench.leelaz_peer import write_random_leelaz_weights
from engine import EvaluatorOptions, Game, PlayerConfig, Rules, SearchConfig, action_to_gtp, save_model
from engine.nn.leela import write_leela
from engine.nn.model_file import Model, ModelInfo
from engine.nn.net import NetConfig, PolicyValueNet
from gtp.commands import serve
from gtp.state import FrontEndConfig
from tests.gtp.helpers import raw_output

LEELAZ = shutil.which("leelaz") or shutil.which("leelaz", path="/usr/games")
pytestmark = pytest.mark.skipif(LEELAZ is None, reason="needs Leela Zero: apt-get install leela-zero")

HEATMAP = re.compile(r"((?:(?: *\d+ ){19}\n){19})pass: (\d+)\nwinrate: ([\d.]+)")


def _script(seed: int, moves: int = 300, every: int = 30) -> str:
    """Random legal play on 19x19 (about one move in 15 a pass) with ``heatmap 0`` at the start, every
    ``every`` moves and right after each pass; checks that the game has captures and passes."""
    rng = np.random.default_rng(seed)
    game = Game(Rules.parse("chinese size=19"))
    lines = ["boardsize 19", "clear_board", "komi 7.5", "heatmap 0"]
    passes = 0
    for number in range(1, moves + 1):
        legal = np.flatnonzero(game.legal_mask()[:-1])
        passing = rng.random() < 1 / 15 and game.position.passes == 0
        action = game.rules.pass_action if passing else int(rng.choice(legal))
        color = "bw"[int(game.position.to_play) - 1]
        game.play(action)
        passes += passing
        lines.append(f"play {color} {action_to_gtp(action, 19)}")
        if passing or number % every == 0:
            lines.append("heatmap 0")
    assert passes > 0 and game.position.captures(1) + game.position.captures(2) > 0
    return "\n".join(lines + ["quit"]) + "\n"


def _heatmaps(text: str) -> list[tuple[np.ndarray, int, float]]:
    return [(np.array(rows.split(), dtype=int), int(policy_pass), float(winrate))
            for rows, policy_pass, winrate in HEATMAP.findall(text)]


def _leelaz(weights: Path, script: str) -> list[tuple[np.ndarray, int, float]]:
    done = subprocess.run([LEELAZ, "--gtp", "--cpu-only", "--noponder", "-t", "1", "-w", str(weights)],
                          input=script, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return _heatmaps(done.stderr)


def _ours(model: Path, script: str) -> list[tuple[np.ndarray, int, float]]:
    config = FrontEndConfig(model=str(model), player=PlayerConfig(visits=2, search=SearchConfig(batch_size=2)),
                            evaluator=EvaluatorOptions(runtime="eager", device="cpu", dtype="fp32"), seed=1)
    out = io.BytesIO()
    with raw_output() as lines:
        serve(config, io.BytesIO(script.encode()), out, background=False)
    assert "?" not in out.getvalue().decode(), out.getvalue().decode()
    return _heatmaps("".join(line + "\n" for line in lines))


def _assert_same(ours: list, theirs: list) -> None:
    assert len(ours) == len(theirs) >= 8
    spread = 0
    for (policy, policy_pass, winrate), (lz_policy, lz_pass, lz_winrate) in zip(ours, theirs):
        assert np.abs(policy - lz_policy).max() <= 1 and abs(policy_pass - lz_pass) <= 1
        assert abs(winrate - lz_winrate) <= 1e-4
        spread = max(spread, int(lz_policy.max()))
    assert spread >= 100, "the networks' policies are too flat to tell anything apart"
    assert max(abs(w - 0.5) for _, _, w in theirs) > 0.2, "the winrates are too close to 0.5"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.mark.parametrize("blocks, filters, version, seed", [(2, 16, 1, 1), (2, 16, 2, 2), (6, 64, 1, 3),
                                                            (6, 64, 2, 4)])
def test_leela_zero_weights_give_leelaz_heatmaps(tmp_path: Path, blocks: int,
                                                 filters: int, version: int, seed: int) -> None:
    weights = tmp_path / f"random-b{blocks}c{filters}-v{version}.txt"
    write_random_leelaz_weights(weights, blocks, filters, seed, version=version, output_gain=4.0, biases=True)
    script = _script(seed)
    _assert_same(_ours(weights, script), _leelaz(weights, script))


def _random_model(blocks: int, filters: int, value_black_plane: int | None, seed: int) -> Model:
    """Our lz18 network with random batch-norm scales, shifts and statistics, outputs far from uniform."""
    torch.manual_seed(seed)
    config = NetConfig(blocks, filters, 18, 19, "fc", value_black_plane=value_black_plane)
    net = PolicyValueNet(config)
    with torch.no_grad():
        for module in net.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0, 0.2)
                module.running_mean.normal_(0, 0.2)
                module.running_var.uniform_(0.5, 2.0)
        net.heads.policy_fc.weight.mul_(100)
        net.heads.value_fc[2].weight.mul_(20)
    return Model(net.eval(), ModelInfo("go", "lz18", 18, config))


@pytest.mark.parametrize("suffix, value_black_plane", [(".txt", None), (".txt.gz", 16)])
def test_exported_model_gives_leelaz_our_figures(tmp_path: Path, suffix: str, value_black_plane: int | None) -> None:
    model = _random_model(2, 32, value_black_plane, seed=5)
    ours = save_model(tmp_path / "ours.safetensors", model)
    exported = write_leela(tmp_path / f"exported{suffix}", model)
    script = _script(6)
    _assert_same(_ours(ours, script), _leelaz(exported, script))
