"""loop: a tiny run, interrupted between phases and resumed, with its ratings table and plot."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.formats.sgf import load_sgf
from tests.training.conftest import tiny_loop
from training.errors import PlayerError, RunStateError
from training.loop import GTP_RETRIES, STATE_FILE, LoopConfig, load_config, run_loop
from training.models import BootstrapConfig
from training.records import list_records
from training.settings import replace_paths


def _config(generations: int = 1) -> LoopConfig:
    return tiny_loop(BootstrapConfig("gomoku", 6, blocks=1, filters=8, seed=0), games=4, holdout_share=0.25,
                     steps=4, win_length=4, generations=generations, window=2, gate_games=2, rating_games=2,
                     rating_opponent="mcts-rollouts:16")


class Stop(Exception):
    pass


def test_the_loop_resumes_after_an_interruption(tmp_path: Path) -> None:
    def stop_after_gather(generation: int, phase: str) -> None:
        if (generation, phase) == (1, "gather"):
            raise Stop

    with pytest.raises(Stop):
        run_loop(tmp_path, _config(), after_phase=stop_after_gather)
    state = json.loads((tmp_path / STATE_FILE).read_text())
    assert state["phase"] == "train" and state["next"] == 1
    state = run_loop(tmp_path, _config())
    games = tmp_path / "games" / "000001"
    assert len(list_records(games)) + len(list_records(games / "holdout")) == 4  # not played twice
    assert [row["generation"] for row in state["history"]] == [0, 1]
    assert "rating" in state["history"][0] and "gate_rate" in state["history"][1]
    assert (tmp_path / "models" / "000001-b1c8.safetensors").exists()
    table = (tmp_path / "ratings.md").read_text()
    assert "| 1 | 000001-b1c8.safetensors |" in table and "mcts-rollouts:16" in table
    assert (tmp_path / "progress.png").read_bytes()[:4] == b"\x89PNG"
    longer = run_loop(tmp_path, _config(generations=2))
    assert [row["generation"] for row in longer["history"]] == [0, 1, 2]
    assert load_config(tmp_path) == _config(generations=2)


def test_a_second_loop_on_a_running_directory_is_refused(tmp_path: Path) -> None:
    refusals: list[str] = []

    def start_another(generation: int, phase: str) -> None:
        before = (tmp_path / STATE_FILE).read_text()
        with pytest.raises(RunStateError, match="another loop is running") as refused:
            run_loop(tmp_path, _config())
        refusals.append(str(refused.value))
        assert (tmp_path / STATE_FILE).read_text() == before
        raise Stop

    with pytest.raises(Stop):
        run_loop(tmp_path, _config(), after_phase=start_another)
    assert len(refusals) == 1
    state = run_loop(tmp_path, _config())  # the lock went with the first run
    assert [row["generation"] for row in state["history"]] == [0, 1]


def test_settings_round_trip_and_bad_state_is_refused(tmp_path: Path) -> None:
    config = _config()
    assert LoopConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    heads = replace_paths(config, {"bootstrap.aux_heads": ("score",), "train.ownership_weight": 0.5})
    assert LoopConfig.from_dict(json.loads(json.dumps(heads.to_dict()))) == heads
    (tmp_path / STATE_FILE).write_text("{not json")
    with pytest.raises(RunStateError, match=STATE_FILE):
        run_loop(tmp_path, config)


def _loop_command_config(monkeypatch: pytest.MonkeyPatch, *args: str) -> LoopConfig:
    """The LoopConfig ``engine loop`` builds from ``args`` (the loop itself does not run)."""
    seen: list[LoopConfig] = []

    def capture(run_dir: Path, config: LoopConfig, report: object) -> dict[str, object]:
        seen.append(config)
        return {"history": [{}], "best": "none"}

    monkeypatch.setattr("training.loop.run_loop", capture)
    monkeypatch.setattr("engine.set_cpu_threads", lambda threads: 1)
    result = CliRunner().invoke(main, ["loop", *args])
    assert result.exit_code == 0, (result.output, result.exception)
    return seen[0]


def test_the_loop_command_defaults_are_the_library_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _loop_command_config(monkeypatch, str(tmp_path))
    # --seed (default 0) seeds self-play too; the opening is N*N / 12 moves of the default 6x6 board
    assert config == replace_paths(LoopConfig(), {"selfplay.seed": 0, "selfplay.player.temperature_moves": 3})


def test_a_resumed_run_changes_only_the_options_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stored = replace_paths(_config(), {"train.steps": 500, "games_per_generation": 7})
    (tmp_path / "run.json").write_text(json.dumps(stored.to_dict()))
    config = _loop_command_config(monkeypatch, str(tmp_path), "--steps", "1000", "--holdout-pct", "50", "--seed", "9")
    expected = replace_paths(stored, {"train.steps": 1000, "selfplay.holdout_share": 0.5, "bootstrap.seed": 9,
                                      "selfplay.seed": 9, "train.seed": 9, "match.seed": 9})
    assert config == expected  # --steps 1000 is the default, but given; the stored 7 games stay


def test_the_loop_takes_the_auxiliary_heads_and_their_loss_weights(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    config = _loop_command_config(monkeypatch, str(tmp_path), "--game", "go", "--aux-heads", "score,ownership",
                                  "--score-mean-weight", "0.1", "--ownership-weight", "2")
    assert config.bootstrap.aux_heads == config.bootstrap.aux_head_names == ("ownership", "score")
    assert (config.train.ownership_weight, config.train.score_mean_weight) == (2.0, 0.1)
    default = _loop_command_config(monkeypatch, str(tmp_path / "other"), "--game", "go")
    assert default.bootstrap.aux_heads is None and default.bootstrap.aux_head_names == ("ownership", "score")
    result = CliRunner().invoke(main, ["loop", str(tmp_path / "bad"), "--aux-heads", "territory"])
    assert result.exit_code == 2 and "territory" in result.output


def test_a_cpu_budget_stops_the_run_between_generations(tmp_path: Path) -> None:
    config = replace_paths(_config(generations=5), {"cpu_hours": 1e-9, "rating_games": 0, "gate_games": 0})
    state = run_loop(tmp_path, config)
    assert [row["generation"] for row in state["history"]] == [0, 1]  # generation 1 spent the budget
    assert state["history"][1]["cpu_seconds"] > 0
    assert "| 1 | 000001-b1c8.safetensors | yes | 0.0" in (tmp_path / "ratings.md").read_text()
    more = run_loop(tmp_path, replace_paths(load_config(tmp_path), {"cpu_hours": 10.0}))
    assert [row["generation"] for row in more["history"]] == [0, 1, 2, 3, 4, 5]


def test_a_run_starts_from_a_given_model_and_takes_its_size(tmp_path: Path) -> None:
    start = tmp_path / "start"
    run_loop(start, replace_paths(_config(), {"generations": 1, "rating_games": 0, "gate_games": 0}))
    model = start / "models" / "000001-b1c8.safetensors"
    config = replace_paths(_config(), {"start_model": str(model), "bootstrap.blocks": 3, "bootstrap.filters": 4,
                                       "generations": 1, "rating_games": 0, "gate_games": 0})
    state = run_loop(tmp_path / "run", config)
    first = tmp_path / "run" / "models" / "000000-b1c8.safetensors"
    assert state["history"][0]["model"] == first.name  # b1c8, as the start model: not the b3c4 asked for
    from engine import load_model

    assert load_model(first).info.generation == 0
    assert load_config(tmp_path / "run").bootstrap.blocks == 1


def test_a_new_run_on_a_gpu_gets_the_gpu_layout_unless_told(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.setattr("engine.pick_device", lambda device=None: torch.device("cuda"))
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(16)))
    config = _loop_command_config(monkeypatch, str(tmp_path / "gpu"))
    assert (config.workers, config.selfplay.parallel_games) == (14, 64)
    told = _loop_command_config(monkeypatch, str(tmp_path / "told"), "--workers", "3", "--parallel-games", "16")
    assert (told.workers, told.selfplay.parallel_games) == (3, 16)


def test_the_loop_command_sets_the_self_play_methods(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _loop_command_config(monkeypatch, str(tmp_path), "--gumbel", "16", "--forced-playouts", "0",
                                  "--cpu-hours", "2")
    search = config.selfplay.player.search
    assert (search.gumbel_considered, search.forced_playouts_k, config.cpu_hours) == (16, 0.0, 2.0)
    default = _loop_command_config(monkeypatch, str(tmp_path / "default")).selfplay.player.search
    assert (default.gumbel_considered, default.forced_playouts_k) == (0, 2.0)  # the experiment's choice


def test_a_kill_during_self_play_keeps_the_cpu_time_of_the_games_kept(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from training.selfplay import SelfPlayOutput

    save, saved = SelfPlayOutput.save, []

    def save_twice_then_die(output: SelfPlayOutput, finished: object) -> None:
        if len(saved) == 2:
            raise Stop
        save(output, finished)  # type: ignore[arg-type]
        saved.append(finished)

    config = replace_paths(_config(), {"rating_games": 0, "gate_games": 0})
    monkeypatch.setattr(SelfPlayOutput, "save", save_twice_then_die)
    with pytest.raises(Stop):
        run_loop(tmp_path, config)
    pending = json.loads((tmp_path / STATE_FILE).read_text())["current"]["cpu_pending"]
    assert pending > 0
    monkeypatch.setattr(SelfPlayOutput, "save", save)
    state = run_loop(tmp_path, config)
    assert "cpu_pending" not in state["history"][1] and state["history"][1]["cpu_seconds"] >= pending


def _first_empty_engine(deaths: Path | None = None, times: int = 1, after_games: int = 0) -> str:
    """A GTP engine's command line: it plays the first point in reading order that no one has played. With
    ``deaths`` (a folder) a process dies at its first genmove once it has finished ``after_games`` games, until
    ``times`` processes have died (each leaves a file there)."""
    code = ("import os, sys\n"
            f"deaths, times, after_games = {str(deaths) if deaths else ''!r}, {times}, {after_games}\n"
            "played, letters, size, games = set(), 'ABCDEFGHJKLMNOPQRST', 19, -1\n"
            "for line in sys.stdin:\n"
            "    words = line.split() or ['']\n"
            "    answer = '='\n"
            "    if words[0] == 'boardsize': size = int(words[1])\n"
            "    if words[0] == 'clear_board': played.clear(); games += 1\n"
            "    if words[0] == 'play': played.add(words[2].upper())\n"
            "    if words[0] == 'genmove' and deaths and games >= after_games and len(os.listdir(deaths)) < times:\n"
            "        open(os.path.join(deaths, str(len(os.listdir(deaths)))), 'w').close()\n"
            "        sys.exit(1)\n"
            "    if words[0] == 'genmove':\n"
            "        points = [f'{c}{r}' for r in range(1, size + 1) for c in letters[:size]]\n"
            "        move = next(p for p in points if p not in played)\n"
            "        played.add(move)\n"
            "        answer = '= ' + move\n"
            "    print(answer, end='\\n\\n', flush=True)\n"
            "    if words[0] == 'quit': break\n")
    return shlex.join([sys.executable, "-c", code])


def test_generations_are_rated_against_a_gtp_engine_every_nth(tmp_path: Path) -> None:
    opponent = _first_empty_engine()
    config = replace_paths(_config(generations=2), {"gate_games": 0, "rating_opponent": opponent,
                                                    "rating_every": 2})
    state = run_loop(tmp_path, config)
    rated = {row["generation"]: row.get("rating") for row in state["history"]}
    assert rated[1] is None and rated[0] is not None and rated[2] is not None  # 0, then every 2nd
    for generation in (0, 2):
        rating = rated[generation]
        assert rating["opponent"] == opponent and rating["games"] == 2
        games = sorted((tmp_path / "matches" / f"{generation:06d}" / "rating").glob("*.sgf"))
        assert [path.name for path in games] == ["game-0001.sgf", "game-0002.sgf"]
        records = [load_sgf(path.read_text()) for path in games]
        assert [record.black_name for record in records] == ["A", "B"]  # colours alternate
        assert all(record.result is not None and record.rules == config.game_rules() for record in records)


def test_a_rating_engine_that_dies_is_started_again(tmp_path: Path) -> None:
    (tmp_path / "died").mkdir()
    config = replace_paths(_config(generations=0), {"gate_games": 0,
                                                    "rating_opponent": _first_empty_engine(tmp_path / "died")})
    notes: list[str] = []
    state = run_loop(tmp_path / "run", config, report=notes.append)
    assert len(list((tmp_path / "died").iterdir())) == 1
    assert any("starting the engines again (1 of 2 in a row" in note for note in notes)
    assert state["history"][0]["rating"]["games"] == 2


def test_a_rating_engine_that_dies_after_each_game_finishes_the_match(tmp_path: Path) -> None:
    """Retries are counted among failures in a row without a finished game: an engine that dies now and then
    (GNU Go on 19x19) is started as often as it takes, one that cannot finish a game is not."""
    (tmp_path / "died").mkdir()
    opponent = _first_empty_engine(tmp_path / "died", times=3, after_games=1)
    config = replace_paths(_config(generations=0), {"gate_games": 0, "rating_games": 4, "rating_opponent": opponent})
    state = run_loop(tmp_path / "run", config, report=lambda _note: None)
    assert len(list((tmp_path / "died").iterdir())) == 3 > GTP_RETRIES
    assert state["history"][0]["rating"]["games"] == 4
    (tmp_path / "never").mkdir()
    hopeless = replace_paths(config, {"rating_opponent": _first_empty_engine(tmp_path / "never", times=99)})
    with pytest.raises(PlayerError):
        run_loop(tmp_path / "hopeless", hopeless, report=lambda _note: None)
    assert len(list((tmp_path / "never").iterdir())) == GTP_RETRIES + 1


def test_a_rating_opponent_that_cannot_run_is_refused_before_anything_is_done(tmp_path: Path) -> None:
    config = replace_paths(_config(), {"rating_opponent": "no-such-engine-here --mode gtp"})
    with pytest.raises(RunStateError, match="no-such-engine-here"):
        run_loop(tmp_path / "run", config)
    assert not (tmp_path / "run").exists()
    unrated = replace_paths(config, {"rating_games": 0})  # no ratings: the opponent is never asked for
    assert run_loop(tmp_path / "unrated", replace_paths(unrated, {"gate_games": 0}))["next"] == 2


def test_learning_rate_drops_take_effect_from_their_generation(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    config = replace_paths(_config(generations=3), {"rating_games": 0, "gate_games": 0,
                                                     "lr_drops": [[3, 0.001], [2, 0.005]]})  # as run.json has them
    assert config.lr_drops == ((2, 0.005), (3, 0.001))
    assert [config.learning_rate(g) for g in (1, 2, 3, 9)] == [config.train.learning_rate, 0.005, 0.001, 0.001]
    assert LoopConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    state = run_loop(tmp_path, config)
    assert [row.get("learning_rate") for row in state["history"]] == [None, config.train.learning_rate, 0.005, 0.001]
    with pytest.raises(ValueError, match="learning rate drops"):
        replace_paths(config, {"lr_drops": ((0, 0.01),)})
    stored = (tmp_path / "run.json").read_text()
    resumed = _loop_command_config(monkeypatch, str(tmp_path), "--lr-drop", "40:0.002", "--lr-drop", "30:0.01")
    assert resumed.lr_drops == ((30, 0.01), (40, 0.002)) and resumed.train == config.train
    result = CliRunner().invoke(main, ["loop", str(tmp_path), "--lr-drop", "30"])
    assert result.exit_code == 2 and "GENERATION:LR" in result.output
    result = CliRunner().invoke(main, ["loop", str(tmp_path), "--lr-drop", "0:0.01"])
    assert result.exit_code != 0 and "learning rate drops need a generation >= 1" in result.output
    assert (tmp_path / "run.json").read_text() == stored


def test_a_run_grows_its_network_from_the_generation_asked(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    config = replace_paths(_config(generations=3), {"rating_games": 0, "gate_games": 0, "grow": [[2, 2, 12]]})
    assert [config.architecture(g) for g in (0, 1, 2, 3)] == [(1, 8), (1, 8), (2, 12), (2, 12)]
    assert LoopConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    notes: list[str] = []
    state = run_loop(tmp_path, config, report=notes.append)
    assert [row["model"] for row in state["history"]] == ["000000-b1c8.safetensors", "000001-b1c8.safetensors",
                                                          "000002-b2c12.safetensors", "000003-b2c12.safetensors"]
    assert (tmp_path / "models" / "000001-b2c12.safetensors").exists()   # generation 1, grown, trained on
    assert sum("grown to 000001-b2c12" in note for note in notes) == 1
    assert state["best"] == "models/000003-b2c12.safetensors"
    with pytest.raises(ValueError, match="to at least 1 blocks of 8 filters: not to 1 of 4"):
        replace_paths(config, {"grow": ((2, 1, 4),)})
    with pytest.raises(ValueError, match="from generation 1 on"):
        replace_paths(config, {"grow": ((0, 2, 12),)})
    resumed = _loop_command_config(monkeypatch, str(tmp_path), "--grow", "5:3x16")
    assert resumed.grow == ((5, 3, 16),)
    result = CliRunner().invoke(main, ["loop", str(tmp_path), "--grow", "5:3"])
    assert result.exit_code == 2 and "GENERATION:BLOCKSxFILTERS" in result.output


def test_the_loop_keeps_the_opening_list_that_fits_its_board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text("-4,-3, 0,0, 1,1\n0,0, 1,0, 0,1\n")   # the first is off a 6x6 board (centre 3)
    config = _loop_command_config(monkeypatch, str(tmp_path / "run"), "--match-openings", str(openings))
    assert config.match.openings == ("0,0, 1,0, 0,1",)
    assert LoopConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    far = tmp_path / "far.txt"
    far.write_text("-4,-3, 0,0, 1,1\n")
    result = CliRunner().invoke(main, ["loop", str(tmp_path / "other"), "--match-openings", str(far)])
    assert result.exit_code != 0 and "no opening of --match-openings fits the 6x6 board" in result.output
    assert not (tmp_path / "other" / "run.json").exists()
