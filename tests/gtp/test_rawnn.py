"""``heatmap`` and ``kata-raw-nn``: formats, symmetries, perspectives (Leela Zero itself: test_leelaz.py)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from engine import EvaluatorOptions, PlayerConfig, SearchConfig, save_model
from engine.core.symmetry import source_cells
from engine.nn.model_file import Model, ModelInfo
from engine.nn.net import NetConfig, PolicyValueNet
from gtp.commands import serve
from gtp.rawnn import KATAGO_SYMMETRIES, LEELA_SYMMETRIES
from gtp.state import FrontEndConfig
from tests.gtp.helpers import answers, raw_output, responses

HEATMAP = re.compile(r"((?:(?: *\d+ ){9}\n){9})pass: (\d+)\nwinrate: ([\d.]+)")


def _engine_source(n: int, symmetry: int, bottom_origin: bool, transpose_first: bool) -> np.ndarray:
    """Where the network's input cell reads the board under another engine's symmetry: bit 4 transposes,
    2 mirrors x, 1 mirrors y, rows counted from the bottom (Leela Zero) or the top (KataGo)."""
    source = np.zeros(n * n, dtype=np.int64)
    for row in range(n):
        for col in range(n):
            x, y = col, (n - 1 - row if bottom_origin else row)
            if transpose_first and symmetry & 4:
                x, y = y, x
            x, y = (n - 1 - x if symmetry & 2 else x), (n - 1 - y if symmetry & 1 else y)
            if not transpose_first and symmetry & 4:
                x, y = y, x
            source[row * n + col] = (n - 1 - y if bottom_origin else y) * n + x
    return source


@pytest.mark.parametrize("table, bottom_origin, transpose_first", [(LEELA_SYMMETRIES, True, True),
                                                                   (KATAGO_SYMMETRIES, False, False)])
def test_symmetry_tables_name_the_other_engines_transforms(table: tuple[int, ...], bottom_origin: bool,
                                                           transpose_first: bool) -> None:
    for symmetry, ours in enumerate(table):
        assert (source_cells(ours, 7) == _engine_source(7, symmetry, bottom_origin, transpose_first)).all()


@pytest.fixture()
def model(tmp_path: Path) -> Path:
    """A random 9x9 lz18 network with both auxiliary heads and a sharp policy."""
    torch.manual_seed(2)
    config = NetConfig(1, 8, 18, 9, "fc", aux_heads=("ownership", "score"))
    net = PolicyValueNet(config)
    with torch.no_grad():
        net.heads.policy_fc.weight.mul_(300)
        net.heads.value_fc[2].weight.mul_(10)
    return save_model(tmp_path / "net.safetensors", Model(net.eval(), ModelInfo("go", "lz18", 18, config)))


def _session(model: Path | None, script: str, evaluator: EvaluatorOptions | None = None) -> tuple[str, str]:
    """What a session answers and writes to stderr; the network on torch's eager runtime unless ``evaluator`` says
    otherwise."""
    evaluator = evaluator or EvaluatorOptions(runtime="eager", device="cpu", dtype="fp32")
    config = FrontEndConfig(model=None if model is None else str(model), size=9,
                            player=PlayerConfig(visits=2, search=SearchConfig(batch_size=2)),
                            evaluator=evaluator, seed=1)
    out = io.BytesIO()
    with raw_output() as lines:
        serve(config, io.BytesIO(script.encode()), out, background=False)
    return out.getvalue().decode(), "".join(line + "\n" for line in lines)


def test_heatmap_writes_leela_zero_s_map_to_stderr(model: Path) -> None:
    out, err = _session(model, "play b E5\nplay w C3\nheatmap\nheatmap 3\nheatmap all\nheatmap average\n"
                        "heatmap 8\nheatmap 1 2\n")
    assert [text for _, _, text in responses(out)][-6:] == ["", "", "", "", "syntax error", "syntax error"]
    maps = [(np.array(rows.split(), dtype=int).reshape(9, 9), int(p), float(w)) for rows, p, w in HEATMAP.findall(err)]
    assert len(maps) == 1 + 1 + 8 + 1
    first, third, every, average = maps[0], maps[1], maps[2:10], maps[10]
    assert first[0][4, 4] == 0 and first[0][6, 2] == 0          # E5 and C3 hold stones
    assert np.array_equal(every[0][0], first[0]) and np.array_equal(every[3][0], third[0])
    assert first[0].max() >= 100 and 0 < first[2] < 1
    assert np.abs(average[0] - np.mean([m[0] for m in every], axis=0)).max() <= 1
    assert abs(average[2] - np.mean([m[2] for m in every])) < 1e-5
    assert sum(m[0].sum() + m[1] for m in every) / 8 > 900    # per mille over every action, truncated


def _kata_fields(text: str) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    key = None
    for word in text.split():
        if not re.fullmatch(r"-?[\d.]+|NAN", word):
            key = word
            fields[key] = []
        else:
            fields[key].append(word)  # type: ignore[index]
    return fields


def test_kata_raw_nn_is_white_s_view_with_every_head(model: Path) -> None:
    out, err = _session(model, "play b E5\nkata-raw-nn 0\nheatmap 0\nplay w D4\nkata-raw-nn 0\nheatmap 0\n"
                        "kata-raw-nn all\nkata-raw-nn\n")
    texts = [text for _, _, text in responses(out)]
    assert texts[-1] == "syntax error"
    winrates = [float(w) for _, _, w in HEATMAP.findall(err)]
    for text, to_move_winrate, white_to_move in ((texts[1], winrates[0], True), (texts[4], winrates[1], False)):
        fields = _kata_fields(text)
        assert fields["symmetry"] == ["0"] and {"whiteLead", "whiteScoreSelfplaySq", "policyPass"} <= set(fields)
        white_win = float(fields["whiteWin"][0])
        assert abs(white_win - (to_move_winrate if white_to_move else 1 - to_move_winrate)) < 1e-5
        assert abs(white_win + float(fields["whiteLoss"][0]) - 1) < 1e-5
        policy = np.array([float(x) for x in fields["policy"]])
        assert np.isnan(policy[4 * 9 + 4]) and abs(np.nansum(policy) + float(fields["policyPass"][0]) - 1) < 1e-4
        ownership = np.array([float(x) for x in fields["whiteOwnership"]])
        assert ownership.shape == (81,) and np.abs(ownership).max() <= 1
    assert texts[6].count("symmetry") == 8


def test_raw_output_at_the_default_runtime_is_the_eager_network_s(model: Path) -> None:
    """``engine gtp --model PATH`` with no ``--runtime``: the front end holds the staged evaluator (numpy first,
    torch later) on a machine without a GPU, and both raw-output commands read its network."""
    script = "play b E5\nkata-raw-nn 0\nheatmap 2\n"
    eager_out, eager_err = _session(model, script)
    default_out, default_err = _session(model, script, EvaluatorOptions())
    eager, default = (_kata_fields(responses(out)[1][2]) for out in (eager_out, default_out))
    assert set(default) == set(eager) and {"whiteLead", "whiteOwnership"} <= set(default)
    for key, values in eager.items():
        assert np.allclose(np.array(default[key], dtype=float), np.array(values, dtype=float), atol=1e-4,
                           equal_nan=True), key
    (eager_map, *_), (default_map, *_) = (HEATMAP.findall(err) for err in (eager_err, default_err))
    assert eager_map[1:] == default_map[1:]
    assert np.abs(np.array(eager_map[0].split(), dtype=int) - np.array(default_map[0].split(), dtype=int)).max() <= 1


def test_engine_gtp_shows_the_raw_output_with_no_runtime_given(model: Path) -> None:
    """The command as a user starts it: ``engine gtp --model PATH``, both commands answered from the network."""
    script = b"kata-raw-nn 0\nheatmap\nquit\n"
    result = subprocess.run([sys.executable, "-c", "from engine.cli import main; main()", "gtp", "--model", str(model),
                             "--size", "9"], input=script, capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr.decode()
    (status, _, raw), (heat_status, _, heat), _ = responses(result.stdout.decode())
    assert status == heat_status == "=" and heat == ""
    assert {"whiteWin", "whiteLead", "policy", "whiteOwnership"} <= set(_kata_fields(raw))
    assert HEATMAP.search(result.stderr.decode())


def test_raw_output_needs_a_network() -> None:
    assert answers("heatmap\nkata-raw-nn 0\n", model=None) == [
        "? no network to show: start the engine with --model PATH"] * 2


def test_kata_get_models_names_the_model_file(model: Path) -> None:
    out, _ = _session(model, "kata-get-models\n", EvaluatorOptions())
    (entry,) = json.loads(responses(out)[0][2])
    assert entry["name"] == "net.safetensors" and entry["internalName"] == "net" and entry["usingFP16"] == "false"
