"""Games and collections of games: ``engine match | evaluate | search-picture | check-games | gnugo-games |
gomokubench-games``.

Each command builds the config of the library function it calls, calls it,
and reports: progress bars (tqdm) on stderr, the result on stdout (one JSON
object with ``--json``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from engine.cli.options import (
    GAMES,
    evaluator_options,
    fail,
    json_option,
    komi_correction_option,
    openings_options,
    read_openings_option,
    report,
    runtime_options,
    seed_option,
)
from engine.cli.settings import (
    MATCH_BATCH,
    MATCH_GAMES,
    MATCH_HANDICAP,
    MATCH_HANDICAP_TAKER,
    MATCH_OPENING_MOVES,
    MATCH_PARALLEL_GAMES,
    MATCH_RESIGN_THRESHOLD,
    MATCH_VISITS,
    PLAYER_VISITS,
)

__all__ = ["match_command", "evaluate_command", "search_picture_command", "check_games_command",
           "gnugo_games_command", "gomokubench_games_command"]


# ---------------------------------------------------------------- evaluate
@click.command("evaluate")
@click.argument("model_a")
@click.argument("model_b")
@click.option("--games", type=click.IntRange(1), default=MATCH_GAMES.default, show_default=True)
@click.option("--visits", type=click.IntRange(2), default=MATCH_VISITS.default, show_default=True,
              help="Visits per move of models.")
@click.option("--parallel-games", type=click.IntRange(1), default=MATCH_PARALLEL_GAMES.default, show_default=True)
@click.option("--batch-size", type=click.IntRange(1), default=MATCH_BATCH.default, show_default=True)
@click.option("--temperature-moves", type=click.IntRange(0), default=MATCH_OPENING_MOVES.default, show_default=True,
              help="Opening moves sampled from the visits, so that games differ.")
@click.option("--resign-threshold", type=click.FloatRange(-1, 1), default=MATCH_RESIGN_THRESHOLD.default,
              show_default=True)
@click.option("--no-resign", is_flag=True)
@click.option("--sgf-dir", type=click.Path(file_okay=False), default=None, help="Write every game as SGF here.")
@click.option("--rules", "rules_text", default=None, help="Rules string [default: the model's game, default rules].")
@click.option("--game", type=GAMES, default=None, help="Game, when both players are baselines.")
@click.option("--size", type=click.IntRange(2, 25), default=None)
@click.option("--win-length", type=click.IntRange(3, 25), default=None, help="Gomoku: stones in a row to win.")
@openings_options
@komi_correction_option
@runtime_options()
@seed_option()
@json_option
def evaluate_command(model_a: str, model_b: str, games: int, visits: int, parallel_games: int, batch_size: int,
                     temperature_moves: int, resign_threshold: float, no_resign: bool, sgf_dir: str | None,
                     rules_text: str | None, game: str | None, size: int | None, win_length: int | None,
                     openings_path: str | None, openings_within: int | None, komi_correction: bool | None,
                     device: str | None, dtype: str, runtime: str, threads: int | None, seed: int,
                     as_json: bool) -> None:
    """Play MODEL_A against MODEL_B (model files, or `random`, `mcts-rollouts[:N]`, `gomokubench[:LEVEL]`):
    win rate and Elo."""
    from tqdm import tqdm

    from engine import EngineError
    from training.match import make_agent, match_rules, play_match
    from training.match_config import MatchConfig
    from training.settings import replace_paths

    try:
        rules = match_rules(model_a, model_b, rules_text, game, size, win_length)
        config = replace_paths(MatchConfig(), {
            "games": games, "parallel_games": parallel_games, "seed": seed, "player.visits": visits,
            "player.search.batch_size": batch_size, "player.temperature_moves": temperature_moves,
            "player.resign_threshold": None if no_resign else resign_threshold,
            "openings": read_openings_option(openings_path, openings_within, rules.size),
            **_komi_correction_path(komi_correction)})
        options = evaluator_options(device, dtype, runtime, threads, seed)
        a, b = make_agent(model_a, rules, config, options), make_agent(model_b, rules, config, options)
        with tqdm(total=games, desc=f"{a.name} vs {b.name}", unit="game", file=sys.stderr) as bar:
            result = play_match(a, b, rules, config, sgf_dir, lambda _r: bar.update(1))
    except (EngineError, ValueError) as error:
        raise fail(error) from error
    report({"rules": str(rules), **result.to_dict()}, as_json, result.describe())


# ---------------------------------------------------------- search picture
@click.command("search-picture")
@click.argument("model")
@click.argument("output", type=click.Path(dir_okay=False))
@click.option("--moves", default="", help="Moves played before the search, as GTP vertices: 'C3 B2'.")
@click.option("--visits", type=click.IntRange(2), default=PLAYER_VISITS.default, show_default=True)
@click.option("--rules", "rules_text", default=None, help="Rules string [default: the model's game, default rules].")
@click.option("--size", type=click.IntRange(2, 25), default=None,
              help="Board size [default: the model's; a size-independent model needs it or --rules].")
@runtime_options(numpy=True)
@seed_option()
def search_picture_command(model: str, output: str, moves: str, visits: int, rules_text: str | None,
                           size: int | None, device: str | None, dtype: str, runtime: str, threads: int | None,
                           seed: int) -> None:
    """Search one position with MODEL and draw it in OUTPUT (PNG): each move's visits and deepest line on the
    board, and the tree's visited nodes by depth."""
    from engine import EngineError, Game, gtp_to_action, load_evaluator, read_info
    from training.models import model_rules
    from training.search_picture import draw_search, picture_search

    try:
        rules = model_rules(read_info(model), rules_text, size)
        game = Game(rules)
        for vertex in moves.split():
            game.play(gtp_to_action(vertex, rules.size))
        evaluator = load_evaluator(rules, model, evaluator_options(device, dtype, runtime, threads, seed))
        picture = picture_search(game, evaluator, visits, seed=seed)
        draw_search(picture, output, f"{Path(model).name} after {len(game.moves)} moves")
    except (EngineError, ValueError) as error:
        raise fail(error) from error
    click.echo(f"{output}: {int(picture.visits.sum())} visits, {picture.nodes_by_depth.shape[0] - 1} deep")


# ------------------------------------------------------------ GTP engines
def _komi_correction_path(komi_correction: bool | None) -> dict[str, bool]:
    """``--komi-correction`` as a MatchConfig setting for the players of this process (none: the default)."""
    return {} if komi_correction is None else {"player.search.komi_correction": komi_correction}


def _go_board(command: Callable[..., Any]) -> Callable[..., Any]:
    """--size and --komi of games between GTP engines (Chinese rules)."""
    command = click.option("--komi", type=float, default=7.0, show_default=True)(command)
    return click.option("--size", type=click.IntRange(5, 19), default=9, show_default=True)(command)


@click.command("match")
@click.argument("engine_a")
@click.argument("engine_b")
@click.option("--games", type=click.IntRange(1), default=20, show_default=True)
@click.option("--size", type=click.IntRange(5, 25), default=None, help="Board size [default: 9 for Go, the rules' "
              "(15) for Gomoku].")
@click.option("--komi", type=float, default=7.0, show_default=True, help="Go: komi.")
@click.option("--rules", "rules_text", default=None,
              help="Rules string, e.g. renju, freestyle, standard (Gomoku), chain-reaction [default: chinese].")
@click.option("--random-moves", type=click.IntRange(0), default=0, show_default=True,
              help="Uniformly random opening moves, so that deterministic engines play different games (after any "
                   "handicap stones).")
@click.option("--handicap", type=click.IntRange(0, 9), default=MATCH_HANDICAP.default, show_default=True,
              help="Go: every game starts from this many handicap stones at GTP's fixed_handicap points (2 to 9 "
                   "on odd boards from 9x9, 2 to 4 on 7x7 and even boards), White to move. Colours do not "
                   "alternate: --handicap-taker is Black in every game.")
@click.option("--handicap-taker", type=click.Choice(["a", "b"]), default=MATCH_HANDICAP_TAKER.default,
              show_default=True, help="Which engine takes Black and the handicap stones in every game.")
@openings_options
@click.option("--scorer", type=click.Choice(["a", "b", "board"]), default="b", show_default=True,
              help="Who scores a Go game that ends on the board: A's or B's final_score (its dead-stone "
                   "judgement), or the rules core on the board as it stands.")
@click.option("--referee", default=None, metavar="COMMAND",
              help="A third GTP engine whose final_score decides games that end by passing, e.g. "
                   "\"gnugo --mode gtp --chinese-rules\" (overrides --scorer).")
@click.option("--jobs", type=click.IntRange(1), default=1, show_default=True,
              help="Games played at once, each by its own pair of engines.")
@click.option("--visits", type=click.IntRange(2), default=MATCH_VISITS.default, show_default=True,
              help="Visits per move of a player given as a model file.")
@click.option("--timeout", type=click.FloatRange(0, min_open=True), default=300.0, show_default=True,
              help="Seconds an engine may take over one command before it counts as hung.")
@click.option("--sgf-dir", type=click.Path(file_okay=False), default=None, help="Write every game as SGF here.")
@click.option("--resume", is_flag=True,
              help="Count the games already in --sgf-dir and play only the rest (same engines and settings).")
@komi_correction_option
@runtime_options()
@seed_option()
@json_option
def match_command(engine_a: str, engine_b: str, games: int, size: int | None, komi: float, rules_text: str | None,
                  random_moves: int, handicap: int, handicap_taker: str, openings_path: str | None,
                  openings_within: int | None, scorer: str,
                  referee: str | None, jobs: int, visits: int, timeout: float,
                  sgf_dir: str | None, resume: bool, komi_correction: bool | None, device: str | None, dtype: str,
                  runtime: str,
                  threads: int | None, seed: int, as_json: bool) -> None:
    """Play ENGINE_A against ENGINE_B (GTP command lines, baselines: random, mcts-rollouts:N,
    gomokubench:LEVEL, or model files, played in this process at --visits with --device, --dtype,
    --runtime and --threads), by default under Chinese rules: A's win rate and Elo.

    Every move is checked by the rules core; an engine that plays an illegal move
    (under renju: black's forbidden points too), refuses a command or hangs ends
    the match with an error naming it. The games' records call the players A and B.
    The result counts A's wins and which side resigned in which game.
    """
    from tqdm import tqdm

    from engine import EngineError, Rules
    from training.match import contestant, is_model_file, play_match
    from training.match_config import MatchConfig
    from training.settings import replace_paths

    try:
        network = is_model_file(engine_a) or is_model_file(engine_b)
        options = evaluator_options(device, dtype, runtime, threads, seed) if network else None
        text = rules_text or "chinese"
        rules = Rules.parse(text, size=size or (9 if Rules.parse(text).game == "go" else None))
        if rules.game == "go":
            rules = replace(rules, komi=komi)
        config = replace_paths(MatchConfig(), {
            "games": games, "player.visits": visits, "random_moves": random_moves, "scorer": scorer,
            "referee": referee, "jobs": jobs, "timeout": timeout, "seed": seed, "handicap": handicap,
            "handicap_taker": handicap_taker,
            "openings": read_openings_option(openings_path, openings_within, rules.size),
            **_komi_correction_path(komi_correction)})
        a, b = contestant(engine_a, "A", rules, config, options), contestant(engine_b, "B", rules, config, options)
        with tqdm(total=games, desc="A vs B", unit="game", file=sys.stderr) as bar:
            def on_game(result: Any) -> None:
                bar.n = result.games
                bar.set_postfix_str(f"A {result.wins}-{result.losses}")
                bar.refresh()
            result = play_match(a, b, rules, config, sgf_dir, on_game, resume=resume)
    except (EngineError, ValueError) as error:
        raise fail(error) from error
    report({"rules": str(rules), **result.to_dict()}, as_json, result.describe())


@click.command("gnugo-games")
@click.argument("out_dir", type=click.Path(file_okay=False))
@click.option("--games", type=click.IntRange(1), default=100, show_default=True,
              help="Games the folder should hold (those already there are kept).")
@_go_board
@click.option("--level", type=click.IntRange(0, 10), default=1, show_default=True, help="GNU Go's strength.")
@click.option("--random-moves", type=click.IntRange(0), default=4, show_default=True)
@click.option("--jobs", type=click.IntRange(1), default=2, show_default=True, help="GNU Go processes.")
@click.option("--timeout", type=click.FloatRange(0, min_open=True), default=60.0, show_default=True,
              help="Seconds GNU Go may take over one command before it counts as hung.")
@seed_option()
@click.option("--gnugo", "binary", default=None, help="Path of gnugo [default: found on PATH or /usr/games].")
def gnugo_games_command(out_dir: str, games: int, size: int, komi: float, level: int, random_moves: int, jobs: int,
                        timeout: float, seed: int, binary: str | None) -> None:
    """Write GNU Go self-play games as SGF files into OUT_DIR (resumable: games already there are kept)."""
    from tqdm import tqdm

    from engine import EngineError, Rules
    from training.gnugo_games import GnuGoGamesConfig, missing_games, write_gnugo_games
    from training.gtp_client import find_gnugo

    binary = binary or find_gnugo()
    if binary is None:
        raise click.ClickException("gnugo is not installed (apt-get install gnugo)")
    config = GnuGoGamesConfig(games, Rules.go(size, "chinese", komi=komi), level, random_moves, jobs, seed, timeout)
    try:
        with tqdm(total=len(missing_games(out_dir, config)), desc="GNU Go games", unit="game", file=sys.stderr) as bar:
            summary = write_gnugo_games(out_dir, binary, config, bar.update)
    except (EngineError, OSError) as error:
        raise fail(error) from error
    click.echo(summary.describe(out_dir))


@click.command("check-games")
@click.argument("sgf_dir", type=click.Path(exists=True, file_okay=False))
@click.option("--rules", "rules_text", default=None,
              help="Replay under these rules, e.g. renju [default: each file's RU].")
@json_option
def check_games_command(sgf_dir: str, rules_text: str | None, as_json: bool) -> None:
    """Replay every SGF game below SGF_DIR through the rules core; exit 1 on an illegal move (under renju:
    a forbidden point of black's) or a result the board contradicts."""
    from engine import EngineError, Rules
    from training.replay import check_games

    try:
        summary = check_games(sgf_dir, None if rules_text is None else Rules.parse(rules_text))
    except (EngineError, ValueError) as error:
        raise fail(error) from error
    report({"games": summary.games, "black_moves": summary.black_moves,
           "black_moves_facing_forbidden": summary.black_moves_facing_forbidden, "problems": summary.problems},
          as_json, summary.describe())
    if not summary.ok:
        sys.exit(1)


@click.command("gomokubench-games")
@click.argument("out_dir", type=click.Path(file_okay=False))
@click.option("--games", type=click.IntRange(1), default=100, show_default=True,
              help="Games the folder should hold (those already there are kept).")
@click.option("--rules", "rules_text", default="freestyle", show_default=True,
              help="Gomoku rules string (five in a row): freestyle, standard, renju, 'renju size=19'.")
@click.option("--levels", default="easy,standard,standard,hard", show_default=True,
              help="Levels each side's is drawn from, game by game (repeat one to draw it more often).")
@click.option("--random-moves", type=click.IntRange(0), default=2, show_default=True,
              help="Uniformly random opening moves, so that games differ.")
@seed_option()
@click.option("--jobs", type=click.IntRange(1), default=1, show_default=True,
              help="Worker processes playing games side by side (gomokubench is pure Python: one a free core).")
def gomokubench_games_command(out_dir: str, games: int, rules_text: str, levels: str, random_moves: int,
                              seed: int, jobs: int) -> None:
    """Write games of gomokubench's alpha-beta player against itself as SGF files into OUT_DIR (resumable)."""
    from tqdm import tqdm

    from engine import EngineError, Rules
    from training.gomokubench_games import GomokubenchGamesConfig, missing_games, write_gomokubench_games

    try:
        config = GomokubenchGamesConfig(games, Rules.parse(rules_text), tuple(levels.split(",")), random_moves, seed,
                                        jobs)
        with tqdm(total=len(missing_games(out_dir, config)), desc="gomokubench games", unit="game",
                  file=sys.stderr) as bar:
            summary = write_gomokubench_games(out_dir, config, bar.update)
    except (EngineError, ValueError, OSError) as error:
        raise fail(error) from error
    click.echo(summary.describe(out_dir))
