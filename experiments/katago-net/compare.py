"""Compare the engine's raw output of a KataGo network with KataGo's own, position by position.

    python experiments/katago-net/compare.py KATAGO MODEL [--config CFG] [--json OUT]

Both engines are driven over GTP with the same commands (``boardsize``,
``komi``, Tromp-Taylor rules, the moves) and asked for ``kata-raw-nn 0``;
the script prints, per position and over all, the largest absolute difference
of the white win rate, the lead, the policy (legal points and pass) and the
ownership. It writes nothing unless ``--json`` names a file. KataGo needs a GTP
config (one search thread, logging off: README beside this script).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine.core.coords import action_to_gtp  # noqa: E402
from engine.core.game import Game  # noqa: E402
from engine.core.rules import Rules  # noqa: E402

LADDER_19 = ["D4", "Q16", "Q4", "D16", "C14", "R14", "K10", "J10", "K11", "J11", "L10", "C6", "F3", "R6"]
ENDGAME_9 = [
    "A3",
    "B3",
    "C3",
    "D3",
    "E3",
    "F3",
    "G3",
    "H3",
    "J3",
    "A7",
    "B7",
    "C7",
    "D7",
    "E7",
    "F7",
    "G7",
    "H7",
    "J7",
    "B2",
    "B8",
    "D2",
    "D8",
    "F1",
    "F9",
    "H2",
    "H8",
    "C5",
    "E5",
]


def random_moves(size: int, count: int, seed: int) -> list[str]:
    """``count`` legal moves (no passes, no filling one's own one-point eyes) drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    game = Game(Rules.parse(f"tromp-taylor size={size}"))
    moves = []
    for _ in range(count):
        legal = np.flatnonzero(game.legal_mask()[:-1])
        if len(legal) == 0:
            break
        action = int(rng.choice(legal))
        game.play(action)
        moves.append(action_to_gtp(action, size))
    return moves


def positions() -> list[tuple[str, int, float, list[str]]]:
    """(name, size, komi, moves): openings, middle games, a ladder, an endgame with pass-alive walls, and
    positions whose last move is a pass (where KataGo hides the history from the network)."""
    chosen = [
        ("empty 19x19", 19, 7.5, []),
        ("empty 19x19 komi 6.5", 19, 6.5, []),
        ("empty 9x9 komi 7", 9, 7.0, []),
        ("ladder 19x19", 19, 7.5, LADDER_19),
        ("walls 9x9", 9, 7.5, ENDGAME_9),
    ]
    for size, count, komi in (
        (19, 6, 7.5),
        (19, 30, 7.5),
        (19, 80, 0.5),
        (19, 160, 7.5),
        (19, 240, 7.5),
        (9, 8, 7.0),
        (9, 25, 7.0),
        (9, 45, 7.5),
        (9, 60, 5.5),
        (13, 40, 7.5),
        (13, 100, 7.5),
    ):
        chosen.append(
            (
                f"random {count} moves {size}x{size} komi {komi}",
                size,
                komi,
                random_moves(size, count, seed=size * 1000 + count),
            )
        )
    for size, count, komi in ((19, 31, 7.5), (9, 25, 7.0)):
        moves = random_moves(size, count, seed=size * 1000 + count)
        chosen.append((f"random {count} moves {size}x{size} komi {komi}, pass", size, komi, [*moves, "pass"]))
    chosen.append(("walls 9x9, pass", 9, 7.5, [*ENDGAME_9, "pass"]))
    return chosen


class Gtp:
    """One GTP engine over pipes."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )

    def send(self, line: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        lines = []
        while True:
            text = self.process.stdout.readline()
            if text == "":
                raise RuntimeError(f"engine closed answering {line!r}")
            if text.strip() == "" and lines:
                break
            if text.strip():
                lines.append(text.rstrip("\n"))
        if not lines[0].startswith("="):
            raise RuntimeError(f"{line!r}: {' '.join(lines)}")
        lines[0] = lines[0][1:].strip()
        return "\n".join(line for line in lines if line)

    def close(self) -> None:
        try:
            self.send("quit")
        except RuntimeError:
            pass
        self.process.wait(timeout=30)


def parse_raw(text: str, size: int) -> dict[str, np.ndarray]:
    """The fields of a ``kata-raw-nn`` answer: scalars, ``policy`` (N*N + 1, NaN where illegal) and
    ``whiteOwnership`` (N*N)."""
    lines = text.splitlines()
    out: dict[str, np.ndarray] = {}
    i = 0
    while i < len(lines):
        words = lines[i].split()
        if words[0] in ("policy", "whiteOwnership"):
            rows = [
                float("nan") if w == "NAN" else float(w) for row in lines[i + 1 : i + 1 + size] for w in row.split()
            ]
            out[words[0]] = np.array(rows)
            i += size + 1
            continue
        if len(words) == 2:
            out[words[0]] = np.array(float("nan") if words[1] == "NAN" else float(words[1]))
        i += 1
    out["policy"] = np.append(out["policy"], out["policyPass"])
    return out


def differences(ours: dict[str, np.ndarray], theirs: dict[str, np.ndarray]) -> dict[str, float]:
    legal = ~np.isnan(theirs["policy"])
    if not np.array_equal(legal, ~np.isnan(ours["policy"])):
        raise RuntimeError("the engines disagree on the legal moves")
    return {
        "winrate": float(abs(ours["whiteWin"] - theirs["whiteWin"])),
        "lead": float(abs(ours["whiteLead"] - theirs["whiteLead"])),
        "policy": float(np.abs(ours["policy"][legal] - theirs["policy"][legal]).max()),
        "ownership": float(np.abs(ours["whiteOwnership"] - theirs["whiteOwnership"]).max()),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("katago")
    parser.add_argument("model")
    parser.add_argument("--config", default=str(Path(__file__).with_name("katago-raw.cfg")))
    parser.add_argument("--json", help="write the differences here")
    args = parser.parse_args()
    katago = Gtp([args.katago, "gtp", "-model", args.model, "-config", args.config])
    ours = Gtp(
        [sys.executable, "-m", "engine", "gtp", "--model", args.model, "--rules", "tromp-taylor", "--threads", "1"]
    )
    table, worst = [], {"winrate": 0.0, "lead": 0.0, "policy": 0.0, "ownership": 0.0}
    try:
        # KataGo plays under the rules ours reports, friendlyPassOk (ours removes dead stones when it scores) included
        katago.send(f"kata-set-rules {ours.send('kata-get-rules')}")
        for name, size, komi, moves in positions():
            answers = []
            for engine in (ours, katago):
                engine.send(f"boardsize {size}")
                engine.send("clear_board")
                engine.send(f"komi {komi}")
                for i, vertex in enumerate(moves):
                    engine.send(f"play {'B' if i % 2 == 0 else 'W'} {vertex}")
                answers.append(parse_raw(engine.send("kata-raw-nn 0"), size))
            row = differences(*answers)
            table.append({"position": name, **row})
            worst = {key: max(worst[key], row[key]) for key in worst}
            print(f"{name:40s} " + " ".join(f"{key} {value:.2e}" for key, value in row.items()), flush=True)
    finally:
        katago.close()
        ours.close()
    print("largest " + " ".join(f"{key} {value:.2e}" for key, value in worst.items()))
    if args.json:
        Path(args.json).write_text(json.dumps({"positions": table, "largest": worst}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
