"""Self-play and training on Ray: a real local cluster (2 CPUs, loopback only), a 5x5 loop of 2 generations
through it with the run directory at a ``file://`` URL, and a self-play actor killed mid-generation, with the
network in the self-play actors (this CPU-only cluster's default); a joining node and ``engine bench selfplay
--ray`` with inference servers too; plus the parts that need no cluster (the game budget, the layout, the run
store)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.training.conftest import GO5
from training.cluster.connect import LOOPBACK_ENV
from training.cluster.pool import Layout
from training.cluster.storage import RunStore
from training.cluster.worker import GameTickets
from training.loop import STATE_FILE, LoopConfig, run_loop
from training.models import BootstrapConfig
from training.records import RECORD_SUFFIX, list_records
from training.selfplay import HOLDOUT_DIR, FinishedGame, SelfPlayOutput
from training.selfplay_config import SelfPlayConfig
from training.settings import replace_paths
from training.train import TrainConfig


def _selfplay(parallel: int) -> SelfPlayConfig:
    return replace_paths(SelfPlayConfig(cheap_readouts=2, full_search_share=1.0, parallel_games=parallel,
                                        holdout_share=0.25, seed=0),
                         {"player.visits": 8, "player.search.batch_size": 4})


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """A local Ray cluster (a head node of 2 CPUs on the loopback address, no dashboard) for this module's
    tests; a test may add nodes to it (``ray.cluster_utils.Cluster``)."""
    os.environ.update(LOOPBACK_ENV)  # read when ray is imported: before the import
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2, "include_dashboard": False})
    ray.init(address=cluster.address, log_to_driver=False)
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


# ------------------------------------------------------------------ no cluster
def test_tickets_give_each_game_once_and_take_back_those_a_lease_lost() -> None:
    tickets = GameTickets(5)
    assert [tickets.take(0) for _ in range(3)] == [True] * 3
    assert tickets.take(1) and tickets.take(1) and not tickets.take(2)
    assert tickets.release(0, delivered=1) == 2  # a killed actor: two games in flight lost
    assert tickets.remaining() == 2 and tickets.release(1, delivered=2) == 0
    assert tickets.take(3) and tickets.take(3) and not tickets.take(3)


def test_layout_leaves_the_server_its_cpu_and_fills_the_rest() -> None:
    servers = Layout(inference="server")
    assert servers.plan(2, 0) == (1, 1.0, 1, 1.0)
    assert servers.plan(16, 0) == (1, 1.0, 15, 1.0)
    assert Layout(actors_per_node=2, inference="server").plan(2, 0) == (1, 1.0, 2, 0.5)


def test_layout_runs_the_network_in_the_actors_of_a_cpu_only_node() -> None:
    assert Layout().plan(2, 0) == (0, 0.0, 2, 1.0)
    assert Layout().plan(16, 0) == (0, 0.0, 16, 1.0)
    assert Layout(actors_per_node=4).plan(2, 0) == (0, 0.0, 4, 0.5)
    assert Layout(inference="actor").plan(16, 1) == (0, 0.0, 16, 1.0)
    with pytest.raises(ValueError, match="inference 'gpu'"):
        Layout(inference="gpu")


def test_layout_gives_each_gpu_a_server_fed_by_the_other_cpus() -> None:
    assert Layout().plan(16, 1) == Layout(inference="server").plan(16, 1) == (1, 1.0, 15, 1.0)
    assert Layout().plan(16, 2) == (2, 1.0, 14, 1.0)
    assert Layout(actors_per_node=28).plan(16, 2) == (2, 1.0, 28, 0.5)


def test_a_remote_evaluator_overlaps_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """A GPU server's actors walk one lane while it answers the other (asked for by the pool); a CPU server's do
    not. A submission sends the request at once and waits for it only when its result is read."""
    import ray

    from engine import overlaps
    from engine.core.position import Position, PositionBatch
    from training.cluster.inference import RemoteEvaluator

    sent: list[int] = []

    class Server:
        class evaluate:   # noqa: N801 -- stands in for a Ray actor method
            @staticmethod
            def remote(cells: Any, info: Any, legal: Any) -> str:
                sent.append(len(cells))
                return "answer"

    waited: list[str] = []
    monkeypatch.setattr(ray, "get", lambda reference: waited.append(reference) or reference)
    assert not overlaps(RemoteEvaluator(Server())) and overlaps(RemoteEvaluator(Server(), asynchronous=True))
    pending = RemoteEvaluator(Server(), asynchronous=True).submit(PositionBatch.stack([Position(GO5)] * 3))
    assert sent == [3] and waited == []
    assert pending.result() == "answer" and waited == ["answer"]


def test_a_url_store_uploads_committed_files_whole_and_state_last(tmp_path: Path) -> None:
    remote = tmp_path / "bucket" / "run"
    store = RunStore(f"file://{remote}", tmp_path / "staging")
    (store.local / "games").mkdir(parents=True)
    (store.local / "games" / "a.game.json.gz").write_bytes(b"game")
    store.commit([store.local / "games" / "a.game.json.gz"])
    assert (remote / "games" / "a.game.json.gz").read_bytes() == b"game"
    (store.local / STATE_FILE).write_text("{}")
    (store.local / "models").mkdir()
    (store.local / "models" / "m.safetensors").write_bytes(b"model")
    assert store.sync() == 2 and store.sync() == 0  # only what changed
    assert not list(remote.rglob(".*"))  # no temporary file left behind
    (remote / "ray-train" / "train-000001").mkdir(parents=True)
    (remote / "ray-train" / "train-000001" / "checkpoint").write_text("Ray Train's, not the loop's")
    again = RunStore(f"file://{remote}", tmp_path / "elsewhere")
    assert again.pull() == 3 and not (again.local / "ray-train").exists()
    assert (again.local / "models" / "m.safetensors").read_bytes() == b"model"
    fetched = again.fetch("games", tmp_path / "worker")
    assert (fetched / "a.game.json.gz").read_bytes() == b"game"
    plain = RunStore(tmp_path / "plain")
    assert plain.fetch("games") == (tmp_path / "plain" / "games").resolve() and plain.sync() == 0


# --------------------------------------------------------------------- cluster
@pytest.mark.ray
@pytest.mark.slow
def test_a_killed_selfplay_actor_loses_only_its_games_in_flight(ray_cluster: Any, go5_model: Path,
                                                                tmp_path: Path) -> None:
    import ray

    from engine import EvaluatorOptions
    from training.cluster.selfplay import model_pool, play_on_ray

    output = SelfPlayOutput(tmp_path / "games")
    saved: list[str] = []
    killed: list[int] = []

    class Recording:
        wants_sgf = False

        def save(self, finished: FinishedGame) -> None:
            output.save(finished)
            saved.append(finished.game_id)

    options = EvaluatorOptions(runtime="eager", random_symmetry=True, seed=0)
    with model_pool(go5_model, GO5, _selfplay(parallel=4), options, Layout(actors_per_node=2)) as pool:
        def kill_one(_game: object) -> None:
            if len(saved) == 3 and not killed:  # mid-generation, with games in flight
                ray.kill(pool.slots[0].actor, no_restart=False)
                killed.append(len(saved))

        summary = play_on_ray(pool, 16, Recording(), on_game=kill_one, leave=False)
        assert pool.all_servers() == []  # each actor ran its own network
    assert killed and summary.games == 16
    files = [p.name for p in list_records(output.directory) + list_records(output.directory / HOLDOUT_DIR)]
    assert len(files) == 16 and len(set(saved)) == 16  # every game kept, none twice
    assert sorted(name[len("000000-b1c8-"):-len(RECORD_SUFFIX)] for name in files) == sorted(saved)


@pytest.mark.ray
@pytest.mark.slow
def test_a_5x5_loop_runs_two_generations_on_ray_with_the_run_at_a_url(ray_cluster: Any, tmp_path: Path) -> None:
    from training.cluster.backend import RayCluster

    config = LoopConfig(bootstrap=BootstrapConfig("go", 5, blocks=1, filters=8, seed=0), generations=2,
                        games_per_generation=6, window=2, selfplay=_selfplay(parallel=3),
                        train=TrainConfig(steps=4, batch_size=8, checkpoint_every=2), runtime="eager")
    remote = tmp_path / "bucket" / "go5"
    store = RunStore(f"file://{remote}", tmp_path / "staging")
    state = run_loop(store.local, config, cluster=RayCluster(store))
    assert [row["generation"] for row in state["history"]] == [0, 1, 2]
    assert all(row["steps"] == 4 and row["selfplay"]["games"] == 6 for row in state["history"][1:])
    assert all(row["cpu_seconds"] > 0 for row in state["history"][1:])
    at_url = json.loads((remote / STATE_FILE).read_text())
    assert at_url["next"] == 3 and at_url["best"] == "models/000002-b1c8.safetensors"
    for generation in ("000001", "000002"):
        games = remote / "games" / generation
        assert len(list_records(games)) + len(list_records(games / HOLDOUT_DIR)) == 6
        assert list((remote / "chunks" / generation).glob("chunk-*.npz"))
    assert (remote / "models" / "000002-b1c8.safetensors").stat().st_size > 0
    assert list((remote / "tensorboard").iterdir()) and (remote / "ratings.md").exists()
    assert not (remote / "ray-train").exists() or not list((remote / "ray-train").iterdir())
    again = RunStore(f"file://{remote}", tmp_path / "again")
    again.pull()
    assert run_loop(again.local, config)["history"] == state["history"]  # resumed from the URL: nothing to do


@pytest.mark.ray
@pytest.mark.slow
def test_a_node_that_joins_gets_its_server_and_actors_that_play(ray_cluster: Any, go5_model: Path) -> None:
    import ray

    from engine import EvaluatorOptions
    from training.cluster.pool import game_tickets
    from training.cluster.selfplay import model_pool

    options = EvaluatorOptions(runtime="eager", seed=0)
    with model_pool(go5_model, GO5, _selfplay(parallel=2), options, Layout(inference="server")) as pool:
        first = {slot.node for slot in pool.grow()}
        assert pool.grow() == []  # nothing new: the driver's next look adds nothing
        node = ray_cluster.add_node(num_cpus=1)
        try:
            joined = pool.grow()
            assert {slot.node for slot in joined} == {node.node_id} and node.node_id not in first
            finished, _cpu = ray.get(next(joined[0].actor.play.remote(0, game_tickets(1), False)))
            assert finished.record.rules == GO5 and len(pool.all_servers()) == 2  # one server a node
        finally:
            pool.close()
            ray_cluster.remove_node(node)


@pytest.mark.ray
@pytest.mark.slow
def test_engine_selfplay_ray_writes_its_games_to_a_url(ray_cluster: Any, go5_model: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from engine.cli import main

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the URL's local copy
    remote = tmp_path / "bucket" / "games"
    result = CliRunner().invoke(main, ["selfplay", str(go5_model), "--games", "4", "--readouts", "8",
                                       "--batch-size", "4", "--parallel-games", "2", "--runtime", "eager",
                                       "--output-dir", f"file://{remote}", "--ray", "local", "--json"])
    assert result.exit_code == 0, (result.output, result.exception)
    assert json.loads(result.stdout.strip().splitlines()[-1])["games"] == 4
    assert len(list_records(remote)) + len(list_records(remote / HOLDOUT_DIR)) == 4


@pytest.mark.ray
@pytest.mark.slow
@pytest.mark.parametrize("inference, servers", [("auto", 0), ("server", 1)])
def test_engine_bench_selfplay_ray_reports_the_networks_of_either_layout(ray_cluster: Any, inference: str,
                                                                         servers: int) -> None:
    import torch
    from click.testing import CliRunner

    from engine.cli import main

    threads = torch.get_num_threads()
    try:
        result = CliRunner().invoke(main, ["bench", "selfplay", "--size", "5", "--blocks", "1", "--filters", "8",
                                           "--readouts", "8", "--batch-size", "4", "--parallel-games", "2",
                                           "--device", "cpu", "--dtype", "fp32", "--runtime", "eager",
                                           "--seconds", "1", "--ray", "local", "--inference", inference, "--json"])
    finally:
        torch.set_num_threads(threads)  # the command sets the driver's
    assert result.exit_code == 0, (result.output, result.exception)
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["servers"] == servers and figures["actors"] == 2 - servers and figures["positions_per_s"] > 0
    assert figures["device"] == "cpu" and figures["runtime"] == "eager"
    if servers:
        assert 0 < figures["inference_busy_share"] <= 1 and figures["server_batch_mean"] > 0
    else:
        assert figures["threads"] == 1 and figures["inference_busy_share"] is None
