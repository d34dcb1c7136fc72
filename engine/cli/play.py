"""``engine gtp``, ``engine gomocup``, ``engine analysis`` and ``engine play``: the front ends on stdin/stdout.

Only click is imported here; the engine loads when a command runs, so
``engine gtp --help`` stays fast.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from engine.cli.options import (
    GAMES,
    komi_correction_option,
    log_level_option,
    runtime_options,
    seed_option,
    stack,
    with_komi_correction,
)
from engine.cli.process import exit_at_once, set_blas_threads_first, set_torch_threads_on_load, setup_logging
from engine.cli.settings import (
    GTP_MOVE_SECONDS,
    GTP_VISITS,
    PLAYER_VISITS,
    SEARCH_FPU_FROM_MEAN,
    SEARCH_LCB_MIN_VISIT_SHARE,
    SEARCH_LCB_STDEVS,
    SEARCH_STDEV_SCALE,
)

if TYPE_CHECKING:
    from gtp.kata_config import AnalysisConfig
    from gtp.state import FrontEndConfig

__all__ = ["gtp_command", "gomocup_command", "analysis_command", "play_command"]

FRONT_END_THREADS = 1
"""Torch's CPU threads of a front end unless ``--threads`` says otherwise: a GUI engine shares the machine (another
engine, the GUI), and torch's OpenMP threads wait for each other at every layer, so two threads on two busy cores
are several times slower than one (``engine bench genmove --contend`` measures it)."""

def _check_model(_context: click.Context, _parameter: click.Parameter, value: str | None) -> str | None:
    from engine.nn.networks import NETWORK_FREE

    if value is not None and value not in NETWORK_FREE and not Path(value).is_file():
        raise click.BadParameter(f"{value!r} is not a model file (give a path, {' or '.join(map(repr, NETWORK_FREE))})")
    return value


def _resolve_model(model: str | None) -> tuple[str | None, str, bool]:
    """``--model`` as FrontEndConfig's ``model``, ``network_free`` and ``bundled``: the file given; or, without
    one, the network bundled for the rules in play, pure MCTS with random playouts where none ships; or
    ``(None, name, False)`` for a name of ``NETWORK_FREE``."""
    from engine.nn.networks import NETWORK_FREE

    if model in NETWORK_FREE:
        return None, model, False
    return model, "rollouts", model is None


def _engine_options(runtime: str, visits_default: str = str(PLAYER_VISITS.default)) -> Any:
    """Options the front ends share: the model, the search limits and the hardware; ``runtime`` is the default
    of ``--runtime``, ``visits_default`` what ``--visits`` plays without it."""
    return stack(
        click.option("--model", default=None, callback=_check_model, metavar="PATH|rollouts|uniform",
                     help="Model file [default: the network bundled for the rules in play (Go: the one learnt "
                          "on 9x9 below 13x13, the one learnt on 19x19 from 13x13 up); where none ships, "
                          "'rollouts']; "
                          "'rollouts' plays pure MCTS with random playouts (weak), 'uniform' uniform priors and "
                          "no value (very weak)."),
        click.option("--visits", type=click.IntRange(min=1), default=None,
                     help=f"Search visits per move [default: {visits_default}]."),
        click.option("--time", "seconds", type=click.FloatRange(min=0, min_open=True), default=None,
                     help="Seconds per move instead of a visit count; a time control set by the controller "
                          "can only lower it."),
        click.option("--batch", type=click.IntRange(min=1), default=16, show_default=True,
                     help="Positions per network evaluation."),
        click.option("--temperature-moves", type=click.IntRange(min=0), default=None,
                     help="Moves at the start of each game drawn at random among the near-best (see --near-best), "
                          "so that games differ; --seed makes the draws repeatable [default: a sixth of the "
                          "board's points: 13 on 9x9, 60 on 19x19]; 0 always plays the most visited move."),
        click.option("--near-best", type=click.FloatRange(0, 1), default=0.35, show_default=True,
                     help="The drawn moves are those with at least this share of the most visited move's visits, "
                          "in proportion to their visits (0: any move the search visited)."),
        komi_correction_option,
        runtime_options(numpy=True, runtime=runtime, threads=FRONT_END_THREADS),
        seed_option(None, "Seed for repeatable searches and ownership estimates."),
        log_level_option)


_resign_options = stack(
    click.option("--resign-threshold", type=click.FloatRange(-1, 0, max_open=True), default=None,
                 help="Resign once the search's value of the position, from -1 (lost) to 1 (won), stays below "
                      "this [default: -0.9]."),
    click.option("--resign-consecutive", type=click.IntRange(min=1), default=None,
                 help="...for this many of the engine's moves in a row [default: 3]."),
    click.option("--resign-min-score", type=click.FloatRange(min=0), default=None,
                 help="...and, where the network has a score head, the engine is more than this many points "
                      "behind [default: 10]. Nobody resigns early in a handicap game (docs/gtp.md, *Resignation*)."),
    click.option("--no-resign", is_flag=True, help="Never resign."))
"""``engine gtp``'s resignation settings (``PlayerConfig.resign_*``); an option left out keeps the front end's
default (:class:`gtp.state.FrontEndConfig`), which docs/gtp.md (*Resignation*) lists."""


def _level_option() -> Any:
    from engine.search.levels import LEVELS

    return click.option("--level", type=click.Choice([level.name for level in LEVELS], case_sensitive=False),
                        default=None,
                        help="Play like a person of this rank (uncalibrated: docs/gtp.md, *Levels*): moves drawn "
                             "from the network's policy, fewer visits, blind spots; 'full' plays at full strength. "
                             "Not with --visits or --time.")


def _check_level(level: str | None, visits: int | None, seconds: float | None) -> None:
    if level is not None and (visits is not None or seconds is not None):
        raise click.UsageError("give --level or --visits / --time, not both")


def _at_level(player: Any, name: str | None) -> Any:
    """The PlayerConfig ``player`` at the level called ``name`` (None: as it is)."""
    if name is None:
        return player
    from engine.search.levels import level_named

    return replace(player, **level_named(name).player_settings())


def _resignation(player: Any, threshold: float | None, consecutive: int | None, min_score: float | None,
                 no_resign: bool) -> Any:
    """The PlayerConfig ``player`` with the resignation options given applied."""
    if no_resign and threshold is not None:
        raise click.UsageError("give --resign-threshold or --no-resign, not both")
    changes: dict[str, Any] = {"resign_consecutive": consecutive, "resign_min_score": min_score}
    changes = {key: value for key, value in changes.items() if value is not None}
    if no_resign or threshold is not None:
        changes["resign_threshold"] = None if no_resign else threshold
    return replace(player, **changes)


def _check_limits(visits: int | None, seconds: float | None) -> None:
    if visits is not None and seconds is not None:
        raise click.UsageError("give --visits or --time, not both")


def _front_end_config(model: str | None, game: str, visits: int | None, seconds: float | None, batch: int,
                      temperature_moves: int | None, near_best: float, device: str | None, dtype: str, runtime: str,
                      seed: int | None, keep_own_eyes: bool = True, komi_correction: bool | None = None,
                      c_puct_stdev_scale: float = SEARCH_STDEV_SCALE.default,
                      fpu_from_mean: bool = SEARCH_FPU_FROM_MEAN.default, random_symmetry: bool = False,
                      lcb_stdevs: float = SEARCH_LCB_STDEVS.default,
                      lcb_min_visit_share: float = SEARCH_LCB_MIN_VISIT_SHARE.default, **own: Any) -> FrontEndConfig:
    """The FrontEndConfig the options describe: the limits and the choice of the opening's moves go to the
    player, the hardware to the evaluator.

    Neither ``--visits`` nor ``--time``: the player's default visits. ``own`` are the
    config's own fields (size, rules, komi).
    """
    from engine import EvaluatorOptions, SearchConfig
    from gtp.state import FrontEndConfig

    search = with_komi_correction(SearchConfig(batch_size=batch, keep_own_eyes=keep_own_eyes,
                                               c_puct_stdev_scale=c_puct_stdev_scale, fpu_from_mean=fpu_from_mean,
                                               lcb_stdevs=lcb_stdevs, lcb_min_visit_share=lcb_min_visit_share),
                                  komi_correction)
    player = replace(FrontEndConfig().player, search=search, temperature_moves=temperature_moves, near_best=near_best)
    if visits is not None or seconds is not None:
        player = replace(player, visits=visits, seconds=seconds)
    model, network_free, bundled = _resolve_model(model)
    return FrontEndConfig(model=model, network_free=network_free, bundled=bundled, game=game, player=player,
                          seed=seed, evaluator=EvaluatorOptions(device=device, dtype=dtype, runtime=runtime, seed=seed,
                                                                random_symmetry=random_symmetry),
                          **own)


def _size_threads(config: FrontEndConfig, threads: int) -> None:
    """Torch's thread pool is the process's, so the command sizes it, and only when a torch network may run (a
    bundled one for any of the game's rules families counts; the numpy runtime's threads are BLAS's)."""
    from engine import Rules

    if config.evaluator.runtime == "numpy":
        return
    families = {"go": [Rules.go()], "gomoku": [Rules.gomoku(), Rules.gomoku(variant="renju")]}.get(config.game)
    if any(config.model_for(rules) is not None for rules in families or [config.initial_rules()]):
        set_torch_threads_on_load(threads)


@click.command("gtp")
@click.option("--game", type=click.Choice(["go", "gomoku"]), default="go", show_default=True)
@click.option("--size", type=click.IntRange(2, 25), default=None, help="Board size (default 19 for Go, 15 Gomoku).")
@click.option("--rules", "rules_text", default=None,
              help="Rules preset or string, e.g. chinese, japanese, 'tromp-taylor komi=7', freestyle, standard.")
@click.option("--komi", type=float, default=None, help="Komi (default: the rules preset's).")
@click.option("--ponder/--no-ponder", default=False, show_default=True,
              help="After its own move, search on the opponent's time until the next command; the next genmove "
                   "reuses the tree (and its visit limit counts those visits).")
@click.option("--fill-own-eyes", is_flag=True,
              help="Go: let the search consider filling its own one-point eyes (by default it never does: no sound "
                   "move does, short of rare seki and capturing-race shapes).")
@click.option("--c-puct-stdev-scale", type=click.FloatRange(0, 1), default=SEARCH_STDEV_SCALE.default,
              show_default=True,
              help="Scale the search's exploration at each node by the spread of the values backed up through it, "
                   "as KataGo does (0: off; docs/search.md, *Exploration scaled by the values' spread*).")
@click.option("--fpu-from-mean/--no-fpu-from-mean", default=SEARCH_FPU_FROM_MEAN.default,
              show_default=True,
              help="Value an unread move from its parent's mean backed-up value blended with the parent's "
                   "evaluation, as KataGo does (docs/search.md, *First-play urgency from the mean*), rather than "
                   "from the evaluation alone.")
@click.option("--lcb-stdevs", type=click.FloatRange(min=0), default=SEARCH_LCB_STDEVS.default, show_default=True,
              help="Play the move whose value has the best lower confidence bound, its mean less this many standard "
                   "errors, rather than the most visited, as Leela Zero and KataGo do (KataGo: 5; 0: off; "
                   "docs/search.md, *Move choice by the lower confidence bound*).")
@click.option("--lcb-min-visit-share", type=click.FloatRange(0, 1, min_open=True),
              default=SEARCH_LCB_MIN_VISIT_SHARE.default, show_default=True,
              help="With --lcb-stdevs: only moves with at least this share of the most visited move's visits.")
@click.option("--random-symmetry", is_flag=True,
              help="Evaluate each position under one of the board's 8 symmetries drawn at random, as KataGo's "
                   "nnRandomize does, so that one orientation's errors do not repeat through the tree [default: "
                   "the position as it stands].")
@click.option("--name", "gtp_name", default="engine", show_default=True, help="What GTP's name command answers.")
@click.option("--override-version", "gtp_version", default=None, metavar="TEXT",
              help="What GTP's version command answers, as KataGo's -override-version [default: the package's "
                   "version]. Lizzie takes an engine whose command line holds override-version for KataGo and asks "
                   "it for kata-analyze: score and territory (docs/gtp.md, GUIs).")
@_level_option()
@_resign_options
@_engine_options(runtime="auto",
                 visits_default=f"{GTP_VISITS.default}, stopping at {GTP_MOVE_SECONDS.default:g} s if that comes "
                                "first, unless the controller sets a time control")
def gtp_command(game: str, size: int | None, rules_text: str | None, komi: float | None, ponder: bool,
                fill_own_eyes: bool, c_puct_stdev_scale: float, fpu_from_mean: bool, lcb_stdevs: float,
                lcb_min_visit_share: float, random_symmetry: bool, gtp_name: str,
                gtp_version: str | None, level: str | None,
                resign_threshold: float | None, resign_consecutive: int | None, resign_min_score: float | None,
                no_resign: bool, model: str | None, visits: int | None,
                seconds: float | None, batch: int, temperature_moves: int | None, near_best: float,
                komi_correction: bool | None,
                device: str | None, dtype: str, threads: int, runtime: str, seed: int | None,
                log_level: str) -> None:
    """Speak GTP on stdin/stdout for GUIs (Sabaki, Lizzie, GoGui) and match tools.

    Besides GTP 2 the engine knows the KGS, Leela Zero, KataGo, Sabaki and
    GoGui extensions: live analysis (lz-analyze, kata-analyze, analyze and
    the genmove_analyze variants), time controls, GoGui's analyze and ruler
    commands. See docs/gtp.md for the full list.
    """
    _check_limits(visits, seconds)
    _check_level(level, visits, seconds)
    set_blas_threads_first(runtime, threads)
    setup_logging(log_level)
    from engine import RulesError
    from gtp.commands import serve

    move_seconds = None
    if visits is None and seconds is None:
        visits, move_seconds = GTP_VISITS.default, GTP_MOVE_SECONDS.default
    config = _front_end_config(model, game, visits, seconds, batch, temperature_moves, near_best, device, dtype,
                               runtime, seed, not fill_own_eyes, komi_correction, c_puct_stdev_scale, fpu_from_mean,
                               random_symmetry=random_symmetry, lcb_stdevs=lcb_stdevs,
                               lcb_min_visit_share=lcb_min_visit_share, size=size, rules=rules_text, komi=komi,
                               ponder=ponder, move_seconds=move_seconds, name=gtp_name, version=gtp_version)
    config = replace(config, player=_resignation(_at_level(config.player, level), resign_threshold,
                                                 resign_consecutive, resign_min_score, no_resign))
    try:
        config.initial_rules()
    except RulesError as exc:
        raise click.UsageError(str(exc)) from exc
    _size_threads(config, threads)
    serve(config, sys.stdin.buffer, sys.stdout.buffer)
    exit_at_once()


@click.command("gomocup")
@_engine_options(runtime="numpy")
def gomocup_command(model: str | None, visits: int | None, seconds: float | None, batch: int,
                    temperature_moves: int | None, near_best: float, komi_correction: bool | None,
                    device: str | None, dtype: str, threads: int,
                    runtime: str, seed: int | None, log_level: str) -> None:
    """Speak the Gomocup (Piskvork) protocol on stdin/stdout for Gomoku managers and tournaments.

    The board size comes with START; INFO rule picks the rules by Gomocup's and
    Yixin-Board's codes (0 freestyle, 1 exactly five, 2 and 4 renju, 5 swap1,
    6 swap2; any other is refused with ERROR). Times from INFO
    (timeout_turn, timeout_match, time_left) limit each move. The network runs
    on numpy by default (--runtime numpy): Gomocup limits a brain's memory
    (350 MB in its 2024 fast games) and importing torch alone takes most of it.
    """
    _check_limits(visits, seconds)
    set_blas_threads_first(runtime, threads)
    setup_logging(log_level)
    from gtp.gomocup import play_gomocup

    config = _front_end_config(model, "gomoku", visits, seconds, batch, temperature_moves, near_best, device, dtype,
                               runtime, seed, komi_correction=komi_correction)
    _size_threads(config, threads)
    play_gomocup(config, sys.stdin.buffer, sys.stdout.buffer)
    exit_at_once()


@click.command("play")
@click.option("--game", type=GAMES, default="chain-reaction", show_default=True)
@click.option("--size", type=click.IntRange(2, 25), default=None,
              help="Board size [default: 19 Go, 15 Gomoku, 5 Chain Reaction].")
@click.option("--rules", "rules_text", default=None,
              help="Rules preset or string, e.g. renju, 'chain-reaction size=7'.")
@click.option("--color", type=click.Choice(["black", "white"]), default="black", show_default=True,
              help="Your colour: black moves first.")
@_level_option()
@_engine_options(runtime="auto")
def play_command(game: str, size: int | None, rules_text: str | None, color: str, level: str | None,
                 model: str | None, visits: int | None, seconds: float | None, batch: int,
                 temperature_moves: int | None, near_best: float, komi_correction: bool | None,
                 device: str | None, dtype: str, threads: int,
                 runtime: str, seed: int | None, log_level: str) -> None:
    """Play against the engine in the terminal: the board is drawn as text after every move; type a move
    such as c3 (pass in Go), undo, help or quit.

    Without a network for the rules (none ships for Chain Reaction: give one with --model) the engine plays
    pure Monte-Carlo tree search with random playouts.
    """
    _check_limits(visits, seconds)
    _check_level(level, visits, seconds)
    set_blas_threads_first(runtime, threads)
    setup_logging(log_level)
    from engine import Color, EngineError, RulesError
    from gtp.protocol import GtpError
    from gtp.state import EngineState
    from gtp.terminal import TerminalGame

    config = _front_end_config(model, game, visits, seconds, batch, temperature_moves, near_best, device, dtype,
                               runtime, seed, komi_correction=komi_correction, size=size, rules=rules_text)
    config = replace(config, player=_at_level(config.player, level))
    try:
        state = EngineState(config)
    except RulesError as exc:
        raise click.UsageError(str(exc)) from exc
    _size_threads(config, threads)
    state.start(background=False)
    try:
        TerminalGame(state, Color.parse(color), sys.stdin, sys.stdout).run()
    except (EngineError, GtpError) as exc:   # the engine could not start (a model that does not fit the rules)
        raise click.ClickException(str(exc)) from exc


@click.command("analysis")
@click.option("-model", "--model", "model", default=None, callback=_check_model, metavar="PATH",
              help="Model file [default: the Go network bundled for each query's board size].")
@click.option("-human-model", "--human-model", "human_model", default=None,
              type=click.Path(exists=True, dir_okay=False), metavar="PATH",
              help="KataGo's human model (KaTrain passes it): not read; a query's humanSLProfile plays the "
                   "engine's nearest level instead (docs/gtp.md, *Levels*).")
@click.option("-config", "--config", "config_path", default=None, type=click.Path(exists=True, dir_okay=False),
              help="KataGo analysis config (key = value lines); the keys that map onto the engine's are used.")
@click.option("-override-config", "--override-config", "overrides", default="", metavar="K1=V1,K2=V2",
              help="Config keys set on top of the config file.")
@click.option("-analysis-threads", "--analysis-threads", "analysis_threads", type=click.IntRange(1, 16384),
              default=None, help="Positions searched at once (numAnalysisThreads); their leaves share network calls.")
@click.option("-quit-without-waiting", "--quit-without-waiting", "quit_without_waiting", is_flag=True,
              help="When stdin closes, stop at once instead of finishing the queued queries.")
@komi_correction_option
@runtime_options(numpy=True)
@seed_option(None, "Seed of the network's random symmetries (nnRandomize).")
@log_level_option
def analysis_command(model: str | None, human_model: str | None, config_path: str | None, overrides: str,
                     analysis_threads: int | None, quit_without_waiting: bool, komi_correction: bool | None,
                     device: str | None, dtype: str, threads: int | None, runtime: str, seed: int | None,
                     log_level: str) -> None:
    """Speak KataGo's JSON analysis protocol on stdin/stdout (KaTrain, batch analysis of game collections).

    Accepts KataGo's command line (single or double dashes), so that a program
    that starts `katago analysis -model M -config C` can start `engine analysis`
    instead. One JSON query per line; one JSON response per analysed turn.
    """
    set_blas_threads_first(runtime, threads)
    setup_logging(log_level)
    from gtp.kata_config import AnalysisConfig, ConfigError, apply_settings, parse_overrides, read_config

    try:
        settings = read_config(config_path) if config_path is not None else {}
        settings.update(parse_overrides(overrides))
        config, unknown = apply_settings(AnalysisConfig(), settings)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from exc
    if unknown:
        logging.getLogger(__name__).warning("config keys with no meaning here, ignored: %s", ", ".join(unknown))
    if human_model is not None:
        logging.getLogger(__name__).info("human model %s is not read: a humanSLProfile plays the engine's "
                                         "nearest level", human_model)
    if analysis_threads is not None:
        config = replace(config, analysis_threads=analysis_threads)
    config = replace(config, evaluator=replace(config.evaluator, device=device, dtype=dtype, runtime=runtime,
                                                           seed=seed),
                     search=with_komi_correction(config.search, komi_correction))
    path, _, bundled = _resolve_model(model)  # Go networks ship: only 'uniform' or 'rollouts' leave none
    if (path is not None or bundled) and config.evaluator.runtime != "numpy":
        set_torch_threads_on_load(threads)
    _serve_analysis(config, path, bundled, quit_without_waiting)


def _serve_analysis(config: AnalysisConfig, model: str | None, bundled: bool, quit_without_waiting: bool) -> None:
    """Load the network (a failure ends the command before any input is read), then serve stdin/stdout.
    ``bundled``: each query's board plays the network bundled for its size."""
    from engine import LARGE_GO_BOARD as LARGE
    from engine import (
        EngineError,
        Evaluator,
        Game,
        Rules,
        Search,
        bundled_model,
        compile_ahead,
        load_evaluator,
        read_info,
    )
    from gtp.kata_session import AnalysisSession

    def model_for(rules: Rules) -> str | None:
        found = bundled_model(rules) if bundled else None
        return model if found is None else str(found)

    size = 19
    if model is not None:
        try:
            size = read_info(model).board_size or size  # a network for one board size warms up on that size
        except (EngineError, ValueError, OSError):
            pass  # another format: load_evaluator says whether it can read it

    options = replace(config.evaluator, ahead_of_time=True)   # no query waits for a compile in this process

    def evaluator_for(rules: Rules) -> Evaluator:
        evaluator = load_evaluator(rules, model_for(rules), options)
        compile_ahead(evaluator, rules.size)
        return evaluator

    rules = Rules.go(size)
    try:
        evaluator = evaluator_for(rules)
        Search(Game(rules), evaluator).run(2)  # loads the network and compiles the search kernels
    except (EngineError, ValueError, OSError) as exc:
        raise click.ClickException(f"cannot load model {model_for(rules)}: {exc}") from exc
    log = logging.getLogger(__name__)
    if bundled:
        log.info("bundled Go networks: %s below %dx%d, %s from there up", model_for(Rules.go(LARGE - 1)), LARGE,
                 LARGE, model_for(Rules.go(LARGE)))
    log.info("analysis engine ready: %s (%r), %d positions at a time", model_for(rules) or "uniform priors",
             evaluator, config.concurrent)
    def session_evaluator_for(query_rules: Rules) -> Evaluator:
        """The warm-up's evaluator for its board size (a second one would commit its cache again), a new one
        for any other size (the session keeps one a size)."""
        return evaluator if query_rules.size == rules.size else evaluator_for(query_rules)

    AnalysisSession(config, session_evaluator_for, sys.stdin.buffer, sys.stdout.buffer, quit_without_waiting,
                    model_for=model_for).run()
