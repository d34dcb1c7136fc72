"""``train``: fit a network to chunks of (planes, pi, z, ownership, score) samples.

Each step takes the next minibatch of the set's draw order
(:class:`~training.stream.SampleStream`: every sample once a pass, sets larger
than memory streamed; the batch of step t depends only on ``seed``, t and the
chunk list, so a resumed run sees the same batches as an uninterrupted one),
applies one of the 8 board symmetries per
sample (to the planes, pi and the ownership target alike), and takes one
optimiser step on ``policy + value_weight * value`` plus the weighted
ownership and score terms of the heads the network has, plus L2
(:mod:`training.losses`; every term is a TensorBoard scalar). SGD with Nesterov momentum or Adam; the learning
rate follows a schedule (constant, cosine or step, after an optional linear
warm-up) times a multiplier that the KL-adaptive option moves: after each
step, the KL divergence between the policy before and after the update on the
same batch is measured, and the multiplier is divided by 1.5 when it exceeds
twice ``kl_target`` and multiplied by 1.5 when it falls below half of it
(clipped to [0.1, 10]), so the policy moves at a steady pace.

Checkpoints (network, optimiser, step, multiplier) are written atomically
every ``checkpoint_every`` steps beside the output model and read back with
``torch.load(weights_only=True)``; a run restarted with the same output resumes
from the last one. The finished model is saved atomically and the checkpoint
removed.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine import check_choice
from training.chunks import Samples
from training.errors import CheckpointError
from training.stream import SampleStream

__all__ = ["TrainConfig", "TrainResult", "Replica", "train", "draw_batch", "batch_start", "checkpoint_path",
           "learning_rate", "training_dtype", "SCHEDULES", "OPTIMIZERS", "DTYPES"]

SCHEDULES = ("constant", "cosine", "step")
OPTIMIZERS = ("sgd", "adam")
DTYPES = ("auto", "fp32", "bf16")
PREFETCH = 3   # minibatches drawn ahead of the step (training.prefetch)
CHECKPOINT_VERSION = 1
KL_STEP = 1.5
KL_BOUNDS = (0.1, 10.0)
SATURATED = 0.999       # |v| above which tanh's gradient (1 - v^2) is under 0.002: the value head is stuck
SATURATED_ALARM = 0.9   # the share of the last window's samples above it at which the run warns
DEAD_ALARM = 0.05       # the share of the value head's hidden units alive below which the run warns


@dataclass(frozen=True)
class TrainConfig:
    """Steps, batch size, the optimiser and the loss weights (:mod:`training.losses`; the ownership
    and score weights apply to networks with those heads). ``kl_target`` None turns the KL-adaptive
    rate off. ``channels_last``: train in the NHWC memory layout, which oneDNN's convolutions run
    faster on the CPU (``engine bench train`` measures both); the saved weights are the same. ``dtype``:
    the arithmetic of the forward and backward passes, ``fp32`` or ``bf16`` (autocast: weights, gradients and
    the optimiser stay fp32); ``auto`` is bf16 where the hardware has it natively (a GPU; a CPU with AMX or
    AVX-512 BF16, where it trains about twice as fast as fp32), else fp32: see
    :func:`~engine.nn.evaluator.pick_dtype`."""

    steps: int = 1000
    batch_size: int = 256
    optimizer: str = "sgd"
    learning_rate: float = 0.02
    momentum: float = 0.9
    l2: float = 1e-4
    """The weight of the L2 penalty on the network's weights, a term of the loss
    (:func:`training.losses.l2_penalty`)."""
    schedule: str = "cosine"
    warmup_steps: int = 0
    """Steps over which the rate climbs linearly to ``learning_rate`` before the schedule starts (0: none); the
    schedule spans the steps after them."""
    value_weight: float = 1.0
    ownership_weight: float = 1.5
    score_mean_weight: float = 0.02
    score_stdev_weight: float = 0.02
    kl_target: float | None = None
    symmetries: bool = True
    checkpoint_every: int = 200
    log_every: int = 10
    """Steps between TensorBoard writes, each the mean over the steps since the last one."""
    seed: int = 0
    device: str | None = None
    channels_last: bool = True
    dtype: str = "auto"

    def __post_init__(self) -> None:
        check_choice("optimizer", self.optimizer, OPTIMIZERS)
        check_choice("schedule", self.schedule, SCHEDULES)
        check_choice("dtype", self.dtype, DTYPES)
        if self.steps < 0 or self.batch_size < 1 or self.learning_rate <= 0:
            raise ValueError("steps must be >= 0, batch size >= 1 and the learning rate positive")
        weights = (self.value_weight, self.ownership_weight, self.score_mean_weight, self.score_stdev_weight)
        if min(weights) < 0:
            raise ValueError("loss weights must be >= 0")


@dataclass(frozen=True)
class TrainResult:
    """What a run did: steps taken now (``resumed_from``: the checkpoint's step), losses averaged over
    the last logged window (``aux_losses``: the ownership and score terms of the heads the network
    has, by name), the final rate multiplier, wall time, and ``passes``: how many times the steps of the
    whole run, resumed ones included, went over the ``samples`` of the set."""

    steps: int
    resumed_from: int
    samples: int
    policy_loss: float
    value_loss: float
    l2: float
    top1: float
    kl: float | None
    lr_multiplier: float
    seconds: float
    model: Path
    aux_losses: dict[str, float] = field(default_factory=dict)
    value_saturated: float = 0.0
    batch_size: int = 0
    value_alive: float = 1.0
    dtype: str = "fp32"
    passes: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "model": str(self.model), "samples_per_s": self.samples_per_s}

    @property
    def samples_per_s(self) -> float:
        """Training throughput: samples of the steps taken now per second of wall time."""
        return self.steps * self.batch_size / self.seconds if self.seconds > 0 else 0.0

    def describe(self) -> str:
        kl = "" if self.kl is None else f", KL {self.kl:.4f} (rate x{self.lr_multiplier:.2f})"
        resumed = f" (resumed at step {self.resumed_from})" if self.resumed_from else ""
        aux = "".join(f", {name.replace('_', ' ')} {value:.4f}" for name, value in self.aux_losses.items())
        return (f"{self.steps} steps on {self.samples} samples ({self.passes:.2f} passes) in {self.seconds:.1f} s "
                f"({self.samples_per_s:.0f} samples/s, {self.dtype}){resumed}: policy loss "
                f"{self.policy_loss:.4f}, value MSE {self.value_loss:.4f}{aux}, L2 {self.l2:.4f}, "
                f"top-1 {100 * self.top1:.1f}%{kl} -> {self.model}{self.saturation_warning()}")

    def saturation_warning(self) -> str:
        """A warning when the value head is dead, so that the value never learns again however long the run:
        its hidden ReLUs all off, or its tanh stuck at +-1 (a 15x15 Gomoku start at rate 0.02 with no warm-up
        did this within ten steps, silently); neither passes a gradient."""
        if self.value_alive < DEAD_ALARM:
            return (f"\nwarning: {100 * (1 - self.value_alive):.1f}% of the value head's hidden units are dead (no "
                    f"position of the last batch makes them positive: their ReLU passes no gradient) and the value "
                    f"will not learn; start again with a lower --lr or with more --warmup-steps")
        if not self.value_saturated >= SATURATED_ALARM:   # also NaN: no step was taken
            return ""
        return (f"\nwarning: the value head is saturated on {100 * self.value_saturated:.0f}% of the samples "
                f"(|v| > {SATURATED}: tanh passes no gradient there) and will not learn; start again with a lower "
                f"--lr or with --warmup-steps")


@dataclass(frozen=True)
class Replica:
    """This process's part in data-parallel training (a Ray Train worker): its ``rank`` of ``world_size``,
    the ``device`` it trains on and ``wrap``, which makes the network share gradients (torch DDP). Each
    rank draws its own minibatches (:func:`batch_start`: together a step's ``world_size`` consecutive batches of
    the draw order); rank 0 alone writes checkpoints, scalars and the model."""

    rank: int
    world_size: int
    device: Any
    wrap: Callable[[Any], Any]


def learning_rate(config: TrainConfig, step: int) -> float:
    """The scheduled rate at ``step`` (0-based), before the KL multiplier."""
    base = config.learning_rate
    if config.warmup_steps and step < config.warmup_steps:
        return base * (step + 1) / config.warmup_steps
    span = max(config.steps - config.warmup_steps, 1)
    progress = min(max(step - config.warmup_steps, 0) / span, 1.0)
    if config.schedule == "cosine":
        return base * (0.05 + 0.95 * 0.5 * (1.0 + math.cos(math.pi * progress)))
    if config.schedule == "step":
        return base * (0.1 ** (int(progress >= 0.5) + int(progress >= 0.75)))
    return base


def training_dtype(config: TrainConfig, device: Any) -> str:
    """``bf16`` or ``fp32``: what ``config.dtype`` means on ``device`` (a ``torch.device``)."""
    import torch

    from engine import pick_dtype

    return "bf16" if pick_dtype(config.dtype, device) == torch.bfloat16 else "fp32"


def checkpoint_path(out_model: str | os.PathLike[str]) -> Path:
    """``OUT.safetensors.ckpt``: where a run writing ``out_model`` keeps its checkpoint."""
    out_model = Path(out_model)
    return out_model.with_name(out_model.name + ".ckpt")


# -------------------------------------------------------------------- batches
def batch_start(config: TrainConfig, step: int, rank: int = 0, world_size: int = 1) -> int:
    """The draw-order position of the first sample of ``step``'s minibatch on data-parallel ``rank`` of
    ``world_size``: step t of every rank together takes the t-th ``world_size`` batches, rank r the r-th."""
    return (step * world_size + rank) * config.batch_size


def draw_batch(source: SampleStream, config: TrainConfig, step: int, rank: int = 0,
               world_size: int = 1) -> tuple[np.ndarray, ...]:
    """The minibatch of ``step`` (for data-parallel ``rank`` of ``world_size``; rank 0 of 1 draws what one
    process draws), as the fields of :class:`~training.losses.Batch` in numpy: planes float32[B, C, N, N],
    pi float32[B, A], z, ownership float32[B, N*N], score, aux_mask."""
    from encoders.symmetry import transform_planes, transform_policy

    arrays = source.batch_at(config.seed, batch_start(config, step, rank, world_size), config.batch_size)
    rng = np.random.default_rng([config.seed, step] if rank == 0 else [config.seed, step, rank])
    planes, policy, ownership = arrays[0], arrays[1], arrays[3]
    count = len(planes)
    boards = ownership.reshape(count, *planes.shape[-2:])   # a view: transformed in place
    if config.symmetries:
        ks = rng.integers(0, 8, count)
        for k in np.unique(ks):
            if k:
                chosen = ks == k
                planes[chosen] = transform_planes(planes[chosen], int(k))
                policy[chosen] = transform_policy(policy[chosen], int(k))
                boards[chosen] = transform_planes(boards[chosen], int(k))
    return arrays


# ----------------------------------------------------------------- checkpoints
def _save_checkpoint(path: Path, net: Any, optimizer: Any, step: int, multiplier: float, identity: dict) -> None:
    import torch

    from engine import atomic_path

    state = {"format_version": CHECKPOINT_VERSION, **identity, "step": step, "lr_multiplier": multiplier,
             "net": net.state_dict(), "optimizer": optimizer.state_dict()}
    with atomic_path(path) as temp:
        torch.save(state, temp)


def _load_checkpoint(path: Path, identity: dict) -> dict:
    import pickle

    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except (OSError, RuntimeError, EOFError, ValueError, pickle.UnpicklingError) as error:
        raise CheckpointError(f"checkpoint {path} cannot be read ({str(error).splitlines()[0]}); delete it to "
                              f"start the training over") from error
    if not isinstance(state, dict) or state.get("format_version") != CHECKPOINT_VERSION:
        raise CheckpointError(f"checkpoint {path} is not a version {CHECKPOINT_VERSION} training checkpoint")
    for key, expected in identity.items():
        if state.get(key) != expected:
            raise CheckpointError(f"checkpoint {path} belongs to another run ({key} is {state.get(key)!r}, this run's "
                                  f"is {expected!r}); delete it or choose another output")
    return state


# ------------------------------------------------------------------- training
def _live_value_units(net: Any, planes: np.ndarray) -> float:
    """The share of the value head's hidden units (after its ReLU) that some position of ``planes`` makes
    positive. A unit no position turns on passes no gradient and never learns again: when nearly all are
    dead (a large early step can kill them all), the value stays where it is however long the run."""
    import torch

    seen: list[Any] = []
    hook = net.heads.value_fc[1].register_forward_hook(lambda _module, _inputs, out: seen.append(out.detach()))
    try:
        with torch.no_grad():
            net(torch.from_numpy(planes))
    finally:
        hook.remove()
    return float((seen[0] > 0).any(dim=0).float().mean())


def _read_metrics(losses: Any, l2: Any, loss: Any, aux_terms: tuple[str, ...]) -> dict[str, float]:
    """A step's scalars, read back from the device in one transfer (each ``.item()`` waits for the device)."""
    import torch

    scalars = {"loss/policy": losses.policy, "loss/value": losses.value, "loss/l2": l2, "loss/total": loss,
               "accuracy/top1": losses.top1,
               "value/saturated": (losses.outputs.value.detach().float().abs() > SATURATED).float().mean()}
    scalars.update({f"loss/{term}": getattr(losses, term) for term in aux_terms if getattr(losses, term) is not None})
    values = torch.stack([value.detach().float() for value in scalars.values()]).tolist()
    return dict(zip(scalars, values))


def _mean(window: list[dict[str, float]], key: str) -> float:
    return float(np.mean([m[key] for m in window])) if window else float("nan")


def _optimizer(config: TrainConfig, net: Any) -> Any:
    import torch

    if config.optimizer == "adam":
        return torch.optim.Adam(net.parameters(), lr=config.learning_rate)
    return torch.optim.SGD(net.parameters(), lr=config.learning_rate, momentum=config.momentum, nesterov=True)


def _kl(net: Any, planes: Any, old_logits: Any) -> float:
    """KL(old policy || new policy) on the batch, without touching batch-norm running statistics."""
    import torch
    from torch import nn

    norms = [m for m in net.modules() if isinstance(m, nn.BatchNorm2d)]
    saved = [m.momentum for m in norms]
    for m in norms:
        m.momentum = 0.0
    try:
        with torch.no_grad():
            new_logits = net(planes).policy
    finally:
        for m, momentum in zip(norms, saved):
            m.momentum = momentum
    old = torch.log_softmax(old_logits.detach().float(), dim=1)
    new = torch.log_softmax(new_logits.float(), dim=1)
    return float((old.exp() * (old - new)).sum(dim=1).mean())


def train(samples: Samples | SampleStream, model: Any, out_model: str | os.PathLike[str], generation: int,
          config: TrainConfig = TrainConfig(), logdir: str | os.PathLike[str] | None = None,
          on_step: Callable[[int, dict[str, float]], None] | None = None,
          replica: Replica | None = None) -> TrainResult:
    """Train ``model`` (an :class:`~engine.nn.model_file.Model`, changed in place) on ``samples`` (a set in
    memory, or a :class:`~training.stream.SampleStream`) and save it to ``out_model``.

    ``on_step(step, metrics)`` is called after every step (progress bars; tests
    use it to interrupt a run). Raises :class:`CheckpointError` when a
    checkpoint beside ``out_model`` belongs to a different run. With ``replica``
    this process is one of several data-parallel trainers (:class:`Replica`).
    """
    import torch

    from engine import pick_device, save_model
    from training.losses import AUX_TERMS, Batch, batch_losses, decayed_parameters, l2_penalty, total_loss
    from training.prefetch import Prefetcher

    out_model = Path(out_model)
    out_model.parent.mkdir(parents=True, exist_ok=True)
    device = pick_device(config.device) if replica is None else replica.device
    net = model.net.to(device).train()
    layout = torch.channels_last if config.channels_last else torch.contiguous_format
    net = net.to(memory_format=layout)
    rank, world = (0, 1) if replica is None else (replica.rank, replica.world_size)
    source = samples if isinstance(samples, SampleStream) else SampleStream.from_samples(samples)
    lead = rank == 0
    forward = net if replica is None else replica.wrap(net)  # DDP shares the parameters of net
    optimizer = _optimizer(config, net)
    ckpt = checkpoint_path(out_model)
    identity = {"out_model": out_model.name, "network": net.config.name, "steps_total": config.steps,
                "samples": len(source), "draw": source.fingerprint, "seed": config.seed}
    start, multiplier = 0, 1.0
    if ckpt.exists():
        state = _load_checkpoint(ckpt, identity)
        net.load_state_dict(state["net"])
        optimizer.load_state_dict(state["optimizer"])
        start, multiplier = int(state["step"]), float(state["lr_multiplier"])
    writer = None
    if logdir is not None and lead:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(logdir))
    weights = decayed_parameters(net)
    base_steps = model.info.training_steps
    bf16 = training_dtype(config, device) == "bf16"
    pinned = device.type == "cuda"   # page-locked host batches copy to the GPU while it runs the step before

    def host_batch(step: int) -> Any:
        tensors = (torch.from_numpy(array) for array in draw_batch(source, config, step, rank, world))
        return Batch(*(tensor.pin_memory() if pinned else tensor for tensor in tensors))

    source.prepare(config.seed, batch_start(config, start, rank, world))   # the set is read before the clock starts
    window: list[dict[str, float]] = []
    started = time.perf_counter()
    try:
        with Prefetcher(host_batch, range(start, config.steps), PREFETCH) as batches:
            for step, host in enumerate(batches, start):
                batch = Batch(*(tensor.to(device, non_blocking=pinned) for tensor in host))
                batch = batch._replace(planes=batch.planes.contiguous(memory_format=layout))
                rate = learning_rate(config, step) * multiplier
                for group in optimizer.param_groups:
                    group["lr"] = rate
                with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
                    losses = batch_losses(forward, batch)
                l2 = l2_penalty(weights, config.l2)
                loss = total_loss(losses, config, l2)
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                metrics = _read_metrics(losses, l2, loss, AUX_TERMS)
                metrics["lr"] = rate
                if config.kl_target is not None:
                    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
                        metrics["kl"] = _kl(net, batch.planes, losses.outputs.policy)
                    if metrics["kl"] > 2 * config.kl_target:
                        multiplier = max(multiplier / KL_STEP, KL_BOUNDS[0])
                    elif metrics["kl"] < config.kl_target / 2:
                        multiplier = min(multiplier * KL_STEP, KL_BOUNDS[1])
                window = (window + [metrics])[-max(config.log_every, 1):]
                done = step + 1
                passes = source.passes(batch_start(config, done, 0, world))
                if writer is not None and (done % config.log_every == 0 or done == config.steps):
                    for key in metrics:
                        writer.add_scalar(key, float(np.mean([m[key] for m in window])), base_steps + done)
                    writer.add_scalar("data/passes", passes, base_steps + done)
                if lead and config.checkpoint_every and done % config.checkpoint_every == 0 and done < config.steps:
                    _save_checkpoint(ckpt, net, optimizer, done, multiplier, identity)
                if on_step is not None:
                    on_step(done, {**metrics, "passes": passes})
    finally:
        if writer is not None:
            writer.close()
    trained = model.with_generation(generation, base_steps + config.steps, source.info.komi)
    trained.net = net.eval().cpu().to(memory_format=torch.contiguous_format)
    alive = _live_value_units(trained.net, draw_batch(source, config, config.steps, rank, world)[0])
    if lead:
        save_model(out_model, trained)
        ckpt.unlink(missing_ok=True)
    return TrainResult(steps=config.steps - start, resumed_from=start, samples=len(source),
                       policy_loss=_mean(window, "loss/policy"), value_loss=_mean(window, "loss/value"),
                       l2=_mean(window, "loss/l2"), top1=_mean(window, "accuracy/top1"),
                       kl=_mean(window, "kl") if config.kl_target is not None and window else None,
                       lr_multiplier=multiplier, seconds=time.perf_counter() - started, model=out_model,
                       aux_losses={term: _mean(window, f"loss/{term}") for term in AUX_TERMS
                                   if window and f"loss/{term}" in window[0]},
                       value_saturated=_mean(window, "value/saturated"), batch_size=config.batch_size,
                       value_alive=alive, dtype="bf16" if bf16 else "fp32",
                       passes=source.passes(batch_start(config, config.steps, 0, world)))
