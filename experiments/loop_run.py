"""An ``engine loop`` run for the experiments' recipes: its best network, and keeping it resumable in the repository.

    python experiments/loop_run.py best RUN           # the path of RUN's best network
    python experiments/loop_run.py save RUN KEEP      # RUN at its last finished generation -> KEEP
    python experiments/loop_run.py restore KEEP RUN   # KEEP -> RUN, unless RUN has a state already

A run may stop on one machine and go on on a fresh one without the run directory. ``save`` copies
``run.json``, ``state.json`` (the generation in progress dropped, with its games and CPU time: it is
played again), the best network, and, while the run's CPU budget is not spent, the chunks of the
training window that the next generation reads (about 1 MB a generation on 9x9). A best network whose
weights are one of the bundled networks' (``engine/nn/networks/``) is kept as ``NAME.bundled`` rather than
copied twice: a line naming that file, then, where the run's file describes it otherwise (generation 0 of
a run that starts from a bundled network is that network re-stamped), a line with the run's metadata.
``restore`` rebuilds them, and ``engine loop RUN`` resumes at the next generation.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

import engine.nn.networks
from engine.atomic import atomic_path
from training.loop import LoopConfig, cpu_hours_used

BUNDLED_SUFFIX = ".bundled"


def bundled_files() -> list[Path]:
    """The model files that ship with the engine."""
    return sorted(Path(engine.nn.networks.__file__).parent.glob("*.safetensors"))


def metadata(path: Path) -> dict[str, str]:
    """The metadata of the model file at ``path`` (what the network is, its generation)."""
    with safe_open(str(path), "pt") as handle:
        return handle.metadata() or {}


def bundled_marker(path: Path, bundled: dict[Path, dict[str, torch.Tensor]]) -> str | None:
    """The ``.bundled`` marker's text for the model file at ``path``, or None if no bundled network has its weights."""
    weights = load_file(str(path))
    for candidate, tensors in bundled.items():
        if tensors.keys() == weights.keys() and all(torch.equal(tensors[k], weights[k]) for k in tensors):
            described = metadata(path)
            same = described == metadata(candidate)
            return candidate.name + "\n" + ("" if same else json.dumps(described, sort_keys=True) + "\n")
    return None


def rebuild(marker: Path, folder: dict[str, Path]) -> None:
    """The model file a ``.bundled`` marker stands for, written beside it in its place."""
    lines = marker.read_text().splitlines()
    source, target = folder[lines[0].strip()], marker.with_suffix("")
    if len(lines) > 1:
        with atomic_path(target) as temporary:
            save_file(load_file(str(source)), str(temporary), metadata=json.loads(lines[1]))
    else:
        shutil.copy2(source, target)
    marker.unlink()


def best(run: Path) -> Path:
    """The best network of the run in ``run`` (``state.json``'s ``best``)."""
    return run / json.loads((run / "state.json").read_text())["best"]


def save(run: Path, keep: Path) -> str:
    if not (run / "state.json").exists():
        return f"nothing saved: {run} has no state yet: its first generation is not finished"
    state = json.loads((run / "state.json").read_text())
    config = LoopConfig.from_dict(json.loads((run / "run.json").read_text()))
    files = ["run.json", state["best"]]
    finished = config.cpu_hours is not None and cpu_hours_used(state) >= config.cpu_hours
    if not finished:
        state.update(phase="selfplay", current={})
        window = range(max(1, state["next"] - config.window + 1), state["next"])
        files += [str(path.relative_to(run)) for g in window for path in (run / "chunks" / f"{g:06d}").glob("*")]
    staging = keep.with_name(keep.name + ".part")
    shutil.rmtree(staging, ignore_errors=True)
    bundled = {path: load_file(str(path)) for path in bundled_files()}
    for name in files:
        (staging / name).parent.mkdir(parents=True, exist_ok=True)
        marker = bundled_marker(run / name, bundled) if name.endswith(".safetensors") else None
        if marker is not None:
            (staging / (name + BUNDLED_SUFFIX)).write_text(marker)
        else:
            shutil.copy2(run / name, staging / name)
    (staging / "state.json").write_text(json.dumps(state, indent=1, sort_keys=True))
    shutil.rmtree(keep, ignore_errors=True)
    staging.rename(keep)
    return (f"saved {run.name}: generation {state['next'] - 1}, {cpu_hours_used(state):.2f} CPU hours"
            f"{'' if finished else ' (resumes at the next generation)'}")


def restore(keep: Path, run: Path) -> str:
    if (run / "state.json").exists():
        return f"{run} has a state already: kept as it is"
    shutil.copytree(keep, run, dirs_exist_ok=True)
    folder = {path.name: path for path in bundled_files()}
    for marker in run.rglob("*" + BUNDLED_SUFFIX):
        rebuild(marker, folder)
    return f"restored {run} from {keep}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=["best", "save", "restore"])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path, nargs="?")
    args = parser.parse_args()
    if args.action == "best":
        print(best(args.source))
    elif args.target is None:
        parser.error(f"{args.action} needs a target folder")
    else:
        print(save(args.source, args.target) if args.action == "save" else restore(args.source, args.target))


if __name__ == "__main__":
    main()
