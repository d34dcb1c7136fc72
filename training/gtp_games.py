"""Games between GTP engines, refereed by the rules core: GNU Go's self-play data and matches against peers.

::

    python -m training.gtp_games "engine gtp --visits 800" "gnugo --mode gtp --level 10 --chinese-rules" \\
        --games 40 --size 9 --komi 7 --sgf-dir vs-gnugo

plays engine A against engine B with colours alternating (A is black in even
games) and prints A's results with a 95% interval and the Elo difference, as
``engine evaluate`` does for model files. Every move either engine generates
is checked through :class:`~engine.core.game.Game` (an illegal move ends the run
with an error naming the engine); a game ends after two passes, a resignation
or the rules' move cap. Finished-by-passing games are scored by the scorer
engine's ``final_score`` (B by default: GNU Go's dead-stone judgement is the
usual referee), which falls back to the board as it stands.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import click
import numpy as np

from engine import Color, EngineError, Game, Outcome, Rules, action_to_gtp, dump_sgf, gtp_to_action, write_text
from training.baselines import random_move
from training.match import MatchResult

__all__ = ["GtpEngine", "GtpEngineError", "play_game"]


class GtpEngineError(EngineError, RuntimeError):
    """A GTP engine that refused a command, died, or played an illegal move."""


class GtpEngine:
    """One GTP engine process (its stderr discarded), spoken to one command at a time."""

    def __init__(self, argv: list[str], name: str | None = None) -> None:
        self.name = name or Path(argv[0]).name
        try:
            self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as error:
            raise GtpEngineError(f"cannot start {shlex.join(argv)}: {error}") from error

    def send(self, command: str) -> str:
        """The answer to ``command``; GtpEngineError for a ``?`` answer or a dead process."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        except OSError as error:
            raise GtpEngineError(f"{self.name} exited before {command!r}") from error
        lines = []
        while True:
            line = self.process.stdout.readline()
            if line == "":
                raise GtpEngineError(f"{self.name} exited while answering {command!r}")
            if line.strip() == "" and lines:
                break
            if line.strip():
                lines.append(line.strip())
        answer = " ".join(lines)
        if answer.startswith("?"):
            raise GtpEngineError(f"{self.name} refused {command!r}: {answer[1:].strip()}")
        return answer[1:].strip()

    def close(self) -> None:
        try:
            self.send("quit")
        except GtpEngineError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def play_game(black: GtpEngine, white: GtpEngine, rules: Rules, random_moves: int, rng: np.random.Generator,
              scorer: GtpEngine | None = None) -> tuple[Game, Outcome]:
    """One game (``black`` may be ``white``: self-play) after ``random_moves`` random opening moves.

    A scored game's result is the ``scorer``'s ``final_score`` (default: the
    white engine's), else the board as it stands under ``rules``.
    """
    players = {Color.BLACK: black, Color.WHITE: white}
    engines = list({id(engine): engine for engine in (black, white)}.values())
    for engine in engines:
        engine.send(f"boardsize {rules.size}")
        engine.send("clear_board")
        engine.send(f"komi {rules.komi:g}")
    game = Game(rules)

    def tell_others(mover: GtpEngine | None, color: Color, vertex: str) -> None:
        """Every engine but the mover (all of them for a random move) learns of the move."""
        for engine in engines:
            if engine is not mover:
                engine.send(f"play {color.letter} {vertex}")

    for _ in range(random_moves):
        color, action = game.to_play, random_move(game, rng)
        game.play(action)
        tell_others(None, color, action_to_gtp(action, rules.size))
    while not game.is_over:
        color = game.to_play
        mover = players[color]
        vertex = mover.send(f"genmove {color.letter}").lower()
        if vertex == "resign":
            game.resign(color)
            break
        try:
            game.play(gtp_to_action(vertex, rules.size))
        except EngineError as error:
            raise GtpEngineError(f"{mover.name} played {vertex!r} as {color.letter}: {error}") from error
        tell_others(mover, color, vertex)
    outcome = game.outcome()
    if game.resigned is None:  # scored: the scorer's dead-stone judgement
        outcome = Outcome.from_sgf((scorer or white).send("final_score")) or outcome
    assert outcome is not None
    return game, outcome


@click.command()
@click.argument("engine_a")
@click.argument("engine_b")
@click.option("--games", type=click.IntRange(1), default=20, show_default=True)
@click.option("--size", type=click.IntRange(5, 19), default=9, show_default=True)
@click.option("--komi", type=float, default=7.0, show_default=True)
@click.option("--random-moves", type=click.IntRange(0), default=0, show_default=True,
              help="Uniformly random opening moves, so that deterministic engines play different games.")
@click.option("--scorer", type=click.Choice(["a", "b"]), default="b", show_default=True,
              help="Whose final_score decides games that end by passing.")
@click.option("--sgf-dir", type=click.Path(file_okay=False), default=None)
@click.option("--seed", type=int, default=0, show_default=True)
def main(engine_a: str, engine_b: str, games: int, size: int, komi: float, random_moves: int, scorer: str,
         sgf_dir: str | None, seed: int) -> None:
    """Play ENGINE_A against ENGINE_B (two GTP command lines) under Chinese rules and report A's results."""
    rules = Rules.go(size, "chinese", komi=komi)
    a, b = GtpEngine(shlex.split(engine_a), "A"), GtpEngine(shlex.split(engine_b), "B")
    result = MatchResult(engine_a, engine_b)
    try:
        for index in range(games):
            a_color = Color.BLACK if index % 2 == 0 else Color.WHITE
            black, white = (a, b) if a_color == Color.BLACK else (b, a)
            game, outcome = play_game(black, white, rules, random_moves, np.random.default_rng([seed, index]),
                                      scorer=a if scorer == "a" else b)
            result.add(outcome, a_color, len(game.moves))
            print(f"game {index + 1}: A {a_color.name.lower()}, {outcome.to_sgf()}; A {result.wins}-{result.losses}",
                  file=sys.stderr, flush=True)
            if sgf_dir is not None:
                names = ("A", "B") if a_color == Color.BLACK else ("B", "A")
                write_text(Path(sgf_dir) / f"game-{index + 1:04d}.sgf",
                           dump_sgf(game, black_name=names[0], white_name=names[1], result=outcome))
    except GtpEngineError as error:
        raise click.ClickException(str(error)) from error
    finally:
        a.close()
        b.close()
    click.echo(result.describe())


if __name__ == "__main__":
    main()
