"""The training curve of `run.sh WORK train`: policy loss, value loss and top-1 of the training batches against
the positions seen, from the run's TensorBoard scalars, with the held-out figures of `run.sh WORK validate`
marked at the end. Usage: python experiments/gomoku-strong/curve.py WORK OUT.png"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

BATCH = 256


def main(work: Path, out: Path) -> None:
    events = EventAccumulator(str(work / "tb"), size_guidance={"scalars": 0})
    events.Reload()
    tags = events.Tags()["scalars"]
    held_out = json.loads((work / "validate.jsonl").read_text().splitlines()[0])
    figure, axes = plt.subplots(1, 2, figsize=(10, 4))
    for axis, (label, wanted, final) in zip(axes, (("top-1", "accuracy/top1", held_out["top1"]),
                                                    ("policy loss", "loss/policy", held_out["policy_loss"]))):
        tag = next(t for t in tags if t.endswith(wanted))
        scalars = events.Scalars(tag)
        axis.plot([s.step * BATCH / 1e6 for s in scalars], [s.value for s in scalars], label="training batches")
        axis.scatter([scalars[-1].step * BATCH / 1e6], [final], color="C3", zorder=3, label="held out, at the end")
        axis.set_xlabel("training positions (millions)")
        axis.set_title(label)
        axis.legend()
    figure.tight_layout()
    figure.savefig(out, dpi=90)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
