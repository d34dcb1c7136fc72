"""One full game of ``engine gomocup`` through the Gomocup protocol within Gomocup 2024's fast-game limits.

    python experiments/gomocup-limits/run.py [--opponent gomokubench:standard] [--rule 0|1|4] [--brain-color black]
                                        [--json] [-- ENGINE GOMOCUP OPTIONS...]

The brain is started as a manager starts it (``engine gomocup`` with the options after ``--``, default: the
network bundled for the rules) and told the fast-game limits as Piskvork tells them: ``INFO timeout_turn
5000``, ``INFO timeout_match 120000``, ``INFO max_memory 367001600`` (350 MB), ``INFO rule``, and before
every ``TURN`` the match time it has left (``INFO time_left``). Its opponent (a baseline of ``engine
evaluate``, in this process) answers each move; every move of both goes through the rules core (renju
included). Reported: the brain's start-up (``START`` to ``OK``), its longest and total thinking time (from
the command to its answer), the result, and its peak resident memory: ``VmHWM`` of ``/proc/PID/status``
for the brain and, summed, for every process under it still alive at the end (torch's compile workers, if
any), read just before ``END``. The limits hold when no move took over 5 s, the whole game under 120 s and
the peak under 350 MB.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # experiments.piskvork, run as a script

from engine import Color, Game, Rules
from experiments.piskvork import START_SECONDS, Brain, peak_memory
from training.match import make_agent
from training.match_config import MatchConfig
from training.players import play_through

TURN_LIMIT_S, MATCH_LIMIT_S, MEMORY_LIMIT_MB = 5.0, 120.0, 350.0
RULE_VARIANTS = {0: "freestyle", 1: "standard", 4: "renju"}


def peak_rss_mb(pid: int) -> tuple[float, float]:
    """(the process's VmHWM, the sum over it and its living descendants) in MB (2^20 bytes)."""
    def hwm(p: int) -> float:
        return (peak_memory(p) or 0) / 2 ** 20

    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    tree, todo = [], [pid]
    while todo:
        p = todo.pop()
        tree.append(p)
        todo += children.get(p, [])
    return hwm(pid), sum(hwm(p) for p in tree)


def play(args: argparse.Namespace) -> dict[str, Any]:
    rules = Rules.gomoku(args.size, 5, RULE_VARIANTS[args.rule])
    opponent = make_agent(args.opponent, rules, MatchConfig(seed=args.seed))
    seat = opponent.seat()
    seat.new_game(rules, args.seed)
    brain = Brain([sys.executable, "-c", "from engine.cli import main; main()", "gomocup", *args.engine_args],
                  "engine gomocup")
    ok, startup = brain.ask(f"START {args.size}", START_SECONDS)
    assert ok == "OK", ok
    for line in (f"INFO timeout_turn {int(TURN_LIMIT_S * 1000)}", f"INFO timeout_match {int(MATCH_LIMIT_S * 1000)}",
                 f"INFO max_memory {int(MEMORY_LIMIT_MB * 2 ** 20)}", f"INFO rule {args.rule}"):
        brain.send(line)
    game, ours = Game(rules), Color.BLACK if args.brain_color == "black" else Color.WHITE
    thinking: list[float] = []
    command = "BEGIN" if ours == Color.BLACK else None
    while not game.is_over:
        if game.to_play != ours:
            action = play_through(seat.genmove(game.to_play))
            assert action is not None, "the opponent resigned"
            game.play(action)
            y, x = divmod(action, args.size)
            command = f"TURN {x},{y}"
            continue
        left_ms = max(0, int((MATCH_LIMIT_S - sum(thinking)) * 1000))
        brain.send(f"INFO time_left {left_ms}")
        assert command is not None
        reply, seconds = brain.ask(command, TURN_LIMIT_S + 60)
        assert reply is not None, "the brain said nothing"
        thinking.append(seconds)
        x, y = (int(v) for v in reply.split(","))
        game.play(y * args.size + x)  # the rules core refuses an illegal move (a forbidden one under renju)
        seat.play(ours, y * args.size + x)
    own, tree = peak_rss_mb(brain.process.pid)
    brain.close()
    outcome = game.outcome()
    assert outcome is not None
    return {"rules": str(rules), "brain": " ".join(["engine gomocup", *args.engine_args]), "brain_color":
            args.brain_color, "opponent": opponent.name, "moves": len(game.moves), "brain_moves": len(thinking),
            "result": outcome.to_sgf(), "brain_won": outcome.winner == ours, "startup_s": startup,
            "max_move_s": max(thinking, default=0.0), "total_thinking_s": sum(thinking), "peak_rss_mb": own,
            "peak_rss_tree_mb": tree,
            "within_limits": max(thinking, default=0.0) <= TURN_LIMIT_S and sum(thinking) <= MATCH_LIMIT_S
            and tree <= MEMORY_LIMIT_MB}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opponent", default="gomokubench:standard", help="A baseline of engine evaluate.")
    parser.add_argument("--rule", type=int, choices=sorted(RULE_VARIANTS), default=0,
                        help="Gomocup's INFO rule: 0 freestyle, 1 standard, 4 renju.")
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--brain-color", choices=["black", "white"], default="black")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("engine_args", nargs="*", help="Options of engine gomocup (after --).")
    args = parser.parse_args()
    result = play(args)
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return
    print(f"{result['brain']} ({result['brain_color']}) vs {result['opponent']}, {result['rules']}: "
          f"{result['result']} in {result['moves']} moves; start-up {result['startup_s']:.1f} s, longest move "
          f"{result['max_move_s']:.2f} s, thinking {result['total_thinking_s']:.1f} s in all; peak memory "
          f"{result['peak_rss_mb']:.0f} MB ({result['peak_rss_tree_mb']:.0f} MB with its children); "
          f"{'within' if result['within_limits'] else 'OUTSIDE'} the limits (5 s a move, 120 s, 350 MB)")


if __name__ == "__main__":
    main()
