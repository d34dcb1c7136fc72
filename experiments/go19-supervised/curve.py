"""The supervised 19x19 run's curve: held-out top-1 accuracy and value error against training positions.

    python experiments/go19-supervised/curve.py WORK [OUT]

Reads each stage's ``train-N.json`` and ``validate-N.json`` in WORK (what run.sh writes), adds them to the
stages already in OUT's ``curve.json`` (a machine's WORK may hold only its own stages) and writes ``curve.json``
and ``curve.png`` in OUT (default: WORK). A stage that started from another network (``start-N.txt``, its model
file) begins a line of its own, its positions counted from zero, unless that network is an earlier stage's: then
it continues that stage's line; a stage whose network is bigger (grown) plots as a line of its own.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def line_of(row: dict) -> str:
    """The curve a stage belongs to: its start and its network's size (a grown network begins a curve)."""
    return f"{row['start']}, {row['model'].split('-')[1]}"


def main() -> None:
    work = Path(sys.argv[1])
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else work
    kept = out / "curve.json"
    by_stage = {row["stage"]: row for row in json.loads(kept.read_text())} if kept.exists() else {}
    stages = sorted(int(path.stem.split("-")[1]) for path in work.glob("train-*.json"))
    for stage in stages:   # in order: a stage's positions add to the previous stage's on its line
        if not (work / f"validate-{stage}.json").exists():
            continue
        trained = json.loads((work / f"train-{stage}.json").read_text())
        held = json.loads((work / f"validate-{stage}.json").read_text())
        previous = by_stage.get(stage - 1)
        seen, start = (previous["training_positions"], previous["start"]) if previous else (
            0, "fifteenplane, from random weights")
        if (work / f"start-{stage}.txt").exists():
            began = Path((work / f"start-{stage}.txt").read_text().strip()).stem
            earlier = [row for row in by_stage.values() if row["model"] == began and row["stage"] < stage]
            seen, start = (earlier[0]["training_positions"], earlier[0]["start"]) if earlier else (0, f"from {began}")
        seen += (trained["resumed_from"] + trained["steps"]) * trained["batch_size"]   # a resumed run counts all
        by_stage[stage] = {"stage": stage, "start": start, "model": held["model"], "training_positions": seen,
                           "samples_per_s": round(trained["samples_per_s"], 1), "top1": held["top1"],
                           "policy_loss": held["policy_loss"], "value_mse": held["value_mse"],
                           "score_mae": held.get("score_mae"), "holdout_samples": held["samples"]}
    rows = [by_stage[stage] for stage in sorted(by_stage)]
    (out / "curve.json").write_text(json.dumps(rows, indent=1) + "\n")
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for line in dict.fromkeys(line_of(row) for row in rows):
        points = [row for row in rows if line_of(row) == line]
        positions = [row["training_positions"] / 1e6 for row in points]
        left.plot(positions, [100 * row["top1"] for row in points], "o-", label=line)
        right.plot(positions, [row["value_mse"] for row in points], "o-", label=line)
    left.axhline(48, color="grey", linestyle="--", label="target 48%")
    left.set(xlabel="training positions (millions)", ylabel="held-out top-1 (%)", title="policy")
    left.legend(fontsize="small")
    right.set(xlabel="training positions (millions)", ylabel="held-out value MSE", title="value")
    right.legend(fontsize="small")
    figure.suptitle("19x19: Tygem 9-dan games, held-out month 2010-04")
    figure.tight_layout()
    figure.savefig(out / "curve.png", dpi=100)


if __name__ == "__main__":
    main()
