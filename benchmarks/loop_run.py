"""An ``engine loop`` run for the benchmark scripts: its best network, and keeping it resumable in the repository.

    python benchmarks/loop_run.py best RUN           # the path of RUN's best network
    python benchmarks/loop_run.py save RUN KEEP      # RUN at its last finished generation -> KEEP
    python benchmarks/loop_run.py restore KEEP RUN   # KEEP -> RUN, unless RUN has a state already

A session may end and the next one start on a fresh machine without the run directory. ``save`` copies
``run.json``, ``state.json`` (the generation in progress dropped, with its games and CPU time: it is
played again), the best network, and, while the run's CPU budget is not spent, the chunks of the
training window that the next generation reads (about 1 MB a generation on 9x9). ``restore`` copies
them back, and ``engine loop RUN`` resumes at the next generation.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from training.loop import LoopConfig, cpu_hours_used


def best(run: Path) -> Path:
    """The best network of the run in ``run`` (``state.json``'s ``best``)."""
    return run / json.loads((run / "state.json").read_text())["best"]


def save(run: Path, keep: Path) -> str:
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
    for name in files:
        (staging / name).parent.mkdir(parents=True, exist_ok=True)
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
