"""Training on a Ray cluster: one generation's :func:`~training.train.train` as a Ray Train job.

``TorchTrainer`` starts one worker per GPU of the cluster (torch DDP through
``prepare_model`` when there are several; one CPU worker where there is no
GPU). Each worker reads the generation's chunks from the run directory (in
place on a shared path, copied from a URL), the starting model from Ray's
object store, and runs the same ``train`` as a single process, each rank on
its own minibatches of the set's one draw order. Rank 0 reports the trained model, its TensorBoard scalars
and the result as a Ray Train checkpoint under the run directory's
``ray-train/``; the driver moves the model and scalars to their places in the
run and deletes the checkpoint. A training cut short is started again by the
resumed loop (its checkpoints live on the worker's node).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from training.chunks import ChunkInfo
from training.cluster.storage import TRAIN_FOLDER, RunStore
from training.train import TrainConfig, TrainResult

__all__ = ["train_on_ray"]

_RESULT = "result.json"


def train_on_ray(store: RunStore, model_path: Path, out_model: Path, chunk_dirs: list[Path], expect: ChunkInfo,
                 generation: int, config: TrainConfig, logdir: Path | None,
                 threads: int | None = None) -> tuple[TrainResult, float]:
    """Train ``model_path`` on ``chunk_dirs`` (folders of the run's local side) into ``out_model``.

    Returns the result and the CPU seconds of the workers.
    """
    import ray
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    from engine import write_bytes

    gpus = int(ray.cluster_resources().get("GPU", 0))
    name = f"train-{generation:06d}"
    store.remove(f"{TRAIN_FOLDER}/{name}")  # what a killed driver's job left: this job starts afresh
    setup = {"store": store, "chunks": [d.relative_to(store.local).as_posix() for d in chunk_dirs],
             "model": ray.put(Path(model_path).read_bytes()), "expect": expect, "generation": generation,
             "config": config, "out_name": out_model.name, "threads": threads}
    storage = store.url(TRAIN_FOLDER) if store.remote else str(Path(store.url(TRAIN_FOLDER)).resolve())
    trainer = TorchTrainer(_train_worker, train_loop_config=setup,
                           scaling_config=ScalingConfig(num_workers=max(gpus, 1), use_gpu=gpus > 0),
                           run_config=RunConfig(storage_path=storage, name=name))
    fit = trainer.fit()
    if fit.checkpoint is None:
        raise RuntimeError(f"the Ray Train job {name} ended without a model: {fit.error}")
    with fit.checkpoint.as_directory() as folder:
        done = Path(folder)
        write_bytes(out_model, (done / out_model.name).read_bytes())
        if logdir is not None and (done / "tensorboard").is_dir():
            for event in (done / "tensorboard").iterdir():
                write_bytes(logdir / event.name, event.read_bytes())
        data = json.loads((done / _RESULT).read_text())
    store.remove(f"{TRAIN_FOLDER}/{name}")
    cpu = float(data.pop("cpu_seconds"))
    return TrainResult(**{**data, "model": out_model}), cpu


def _train_worker(setup: dict[str, Any]) -> None:
    """A Ray Train worker: this process trains (its entry point, so it sizes its torch threads)."""
    import ray
    import ray.train
    import ray.train.torch
    from ray.train import Checkpoint

    from engine import load_model, set_cpu_threads
    from training.stream import SampleStream
    from training.train import Replica, train

    set_cpu_threads(setup["threads"])
    context = ray.train.get_context()
    rank, world = context.get_world_rank(), context.get_world_size()
    store: RunStore = setup["store"]
    scratch = Path(tempfile.mkdtemp(prefix="engine-train-"))
    try:
        samples = SampleStream.from_chunks([store.fetch(relative, scratch / "in") for relative in setup["chunks"]],
                                           setup["expect"])
        base = scratch / "base.safetensors"
        base.write_bytes(ray.get(setup["model"]))
        out = scratch / "out"
        replica = Replica(rank, world, ray.train.torch.get_device(), ray.train.torch.prepare_model)
        result = train(samples, load_model(base), out / setup["out_name"], setup["generation"], setup["config"],
                       out / "tensorboard", replica=replica)
        times = os.times()
        data = {**asdict(result), "model": None, "cpu_seconds": times.user + times.system}
        metrics = {"steps": result.steps, "policy_loss": result.policy_loss}
        if rank == 0:
            (out / _RESULT).write_text(json.dumps(data))
            ray.train.report(metrics, checkpoint=Checkpoint.from_directory(str(out)))
        else:
            ray.train.report(metrics)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
