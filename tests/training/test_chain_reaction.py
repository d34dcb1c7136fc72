"""Chain Reaction through the training commands that know no game: a tiny loop, and matches of the baselines."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from engine.cli import main
from engine.formats.sgf import load_sgf_file
from tests.training.conftest import tiny_loop
from training.chunks import list_chunks, read_chunk_info
from training.loop import run_loop
from training.models import BootstrapConfig
from training.records import list_records, read_record


def test_a_tiny_loop_plays_gathers_trains_and_rates_chain_reaction(tmp_path: Path) -> None:
    config = tiny_loop(BootstrapConfig("chain-reaction", 4, blocks=1, filters=8, heads="pooled", seed=0), games=3,
                       holdout_share=0.0, steps=2, generations=1, window=1, rating_games=2, rating_opponent="random")
    state = run_loop(tmp_path, config)
    assert [row["generation"] for row in state["history"]] == [0, 1]
    assert state["history"][0]["rating"]["games"] == 2
    records = list_records(tmp_path / "games" / "000001")
    assert len(records) == 3
    record = read_record(records[0])
    assert str(record.rules) == "chain-reaction size=4" and record.result.reason in ("elimination", "resign")
    chunk = read_chunk_info(list_chunks([tmp_path / "chunks" / "000001"])[0])
    assert (chunk.game, chunk.encoder, chunk.num_planes) == ("chain-reaction", "orbs8", 8)
    assert (tmp_path / "models" / "000001-b1c8-pooled.safetensors").exists()
    assert (tmp_path / "search.png").read_bytes()[:4] == b"\x89PNG"   # the rated network's search, pictured


def test_evaluate_and_match_play_the_baselines_and_resume(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["evaluate", "random", "mcts-rollouts:40", "--game", "chain-reaction", "--size",
                                       "4", "--games", "4", "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["rules"] == "chain-reaction size=4" and report["games"] == 4 and report["draws"] == 0
    args = ["match", "random", "mcts-rollouts:20", "--rules", "chain-reaction size=3", "--games", "2",
            "--sgf-dir", str(tmp_path), "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    record = load_sgf_file(tmp_path / "game-0001.sgf")
    assert str(record.rules) == "chain-reaction size=3" and record.result.reason == "elimination"
    resumed = CliRunner().invoke(main, [*args, "--resume"])
    assert resumed.exit_code == 0 and json.loads(resumed.stdout.strip().splitlines()[-1])["games"] == 2
