"""``loop``: bootstrap, then self-play -> gather -> train -> (gate) -> (rate), generation after generation.

The run directory holds everything, and the loop resumes from it after a kill::

    RUN_DIR/run.json          the run's settings (LoopConfig, format version 2: nested configs)
    RUN_DIR/state.json        progress: the best model, the next generation, the phase, the history
    RUN_DIR/models/           000000-b6c64.safetensors, 000001-b6c64.safetensors, ...
    RUN_DIR/games/000001/     records played by the best model to train generation 1 (+ holdout/)
    RUN_DIR/sgf/000001/       the same games as SGF
    RUN_DIR/chunks/000001/    gathered training samples (+ manifest.json); holdout/000001/ the held-out ones
    RUN_DIR/tensorboard/      training scalars, by global training step
    RUN_DIR/matches/000001/   SGF of the gating and rating matches
    RUN_DIR/ratings.md        the ratings table; RUN_DIR/progress.png the loss and rating plot
    RUN_DIR/search.png        one search of the newest rated network from the empty board, pictured
    RUN_DIR/.lock             held (flock) by the one loop running here; a second is refused

Generation g is trained from the best model on the chunks of the last
``window`` generations. With ``gate_games`` > 0 it replaces the best model
only if it scores at least ``gate_threshold`` against it. With
``rating_games`` > 0 generation 0 and every accepted generation whose number
``rating_every`` divides play the ``rating_opponent`` for the ratings table:
Elo relative to that opponent. It is a baseline (``mcts-rollouts:1000`` by
default), a model file, or a GTP engine's command line (GNU Go, Pachi), played
as ``engine match`` plays it: 2 random opening moves, its ``final_score`` the
verdict. Generation 0 is a random network of ``bootstrap``'s size, or a copy of
``start_model`` (whose size the run then takes).
With ``cpu_hours`` no generation starts once the run's processes have used that
much CPU time (self-play, gather, training and validation, counted per phase in
``state.json``; gating and rating matches not counted): arms of an experiment get
equal compute even when they share a machine. Self-play notes its CPU time after
every game, so a kill does not hide the compute behind the games it keeps (self-play
worker processes count only once they end). Each phase resumes where a kill left it
(self-play counts the games already written, gather skips what it gathered,
training restarts from its checkpoint); a match in flight is replayed.

With a :class:`Cluster` (``engine loop --ray``, :mod:`training.cluster`) self-play
runs as Ray actors and training as a Ray Train job, each game is saved as it
arrives, and the phases, state and resumption are the ones above.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import math
import os
import shlex
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from engine import atomic_path, read_json, write_json, write_text
from training.errors import RunStateError
from training.match_config import MatchConfig
from training.models import BootstrapConfig
from training.selfplay import HOLDOUT_DIR
from training.selfplay_config import SelfPlayConfig
from training.settings import from_dict
from training.stats import signed
from training.train import TrainConfig

if TYPE_CHECKING:
    from engine import NetConfig

__all__ = ["LoopConfig", "Cluster", "run_loop", "load_config", "cpu_hours_used", "RUN_FILE", "STATE_FILE", "PHASES"]

log = logging.getLogger(__name__)

RUN_FILE = "run.json"
STATE_FILE = "state.json"
LOCK_FILE = ".lock"
RUN_VERSION = 2
STATE_VERSION = 1
PHASES = ("selfplay", "gather", "train", "validate", "gate", "rate")
_UNCOUNTED = ("gate", "rate")  # matches measure a run; the CPU budget is for learning
GTP_RETRIES = 2  # a rating match's engines are started again this many times after failures with no game between


@dataclass(frozen=True)
class LoopConfig:
    """Everything a run needs; stored in ``run.json``. ``rules`` (a rules string) overrides the
    game's default rules for ``bootstrap.game`` / ``bootstrap.size`` (and ``win_length`` for Gomoku)."""

    bootstrap: BootstrapConfig = field(default_factory=lambda: BootstrapConfig("gomoku", 6, blocks=2, filters=32))
    rules: str | None = None
    win_length: int | None = None
    generations: int = 10
    games_per_generation: int = 200
    window: int = 4
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    match: MatchConfig = field(default_factory=lambda: MatchConfig(games=0))
    gate_games: int = 0
    gate_threshold: float = 0.55
    rating_opponent: str = "mcts-rollouts:1000"
    rating_games: int = 0
    rating_every: int = 1
    workers: int = 1
    device: str | None = None
    runtime: str = "auto"
    threads: int | None = None
    cpu_hours: float | None = None
    start_model: str | None = None
    lr_drops: tuple[tuple[int, float], ...] = ()
    grow: tuple[tuple[int, int, int], ...] = ()

    def __post_init__(self) -> None:
        # run.json holds them as lists: keep one form, sorted by generation
        drops = tuple(sorted((int(generation), float(rate)) for generation, rate in self.lr_drops))
        if any(generation < 1 or rate <= 0 for generation, rate in drops):
            raise ValueError(f"learning rate drops need a generation >= 1 and a positive rate, not {drops}")
        object.__setattr__(self, "lr_drops", drops)
        steps = tuple(sorted((int(generation), int(blocks), int(filters)) for generation, blocks, filters in self.grow))
        size = (self.bootstrap.blocks, self.bootstrap.filters)
        for generation, blocks, filters in steps:
            if generation < 1 or blocks < size[0] or filters < size[1]:
                raise ValueError(f"the network grows from generation 1 on, to at least {size[0]} blocks of "
                                 f"{size[1]} filters: not to {blocks} of {filters} at generation {generation}")
            size = (blocks, filters)
        object.__setattr__(self, "grow", steps)

    def learning_rate(self, generation: int) -> float:
        """The peak learning rate ``generation`` trains at: ``train.learning_rate`` until the first of
        ``lr_drops`` (``(from generation, rate)``, the step schedule Leela Zero and AlphaGo Zero used once
        progress slowed), then that drop's rate."""
        rate = self.train.learning_rate
        for start, drop in self.lr_drops:
            if generation >= start:
                rate = drop
        return rate

    def architecture(self, generation: int) -> tuple[int, int]:
        """Blocks and filters of ``generation``'s network: the bootstrap's until the first of ``grow``
        (``(from generation, blocks, filters)``), then that step's. A run outgrows its small network
        without starting over: :func:`training.grow.grow_model` keeps what it learnt."""
        size = (self.bootstrap.blocks, self.bootstrap.filters)
        for start, blocks, filters in self.grow:
            if generation >= start:
                size = (blocks, filters)
        return size

    def game_rules(self) -> Any:
        from engine import Rules
        from training.models import default_rules

        if self.rules:
            return Rules.parse(self.rules)
        return default_rules(self.bootstrap.game, self.bootstrap.size, self.win_length)

    def evaluator_options(self) -> Any:
        """How self-play and matches run the network (a random symmetry per evaluation); ``threads`` is
        for the command to set, and for self-play's worker processes."""
        from engine import EvaluatorOptions

        return EvaluatorOptions(device=self.device, random_symmetry=True, runtime=self.runtime)

    def to_dict(self) -> dict[str, Any]:
        return {"format_version": RUN_VERSION, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "LoopConfig":
        data = dict(data)
        if data.pop("format_version", None) != RUN_VERSION:
            raise ValueError(f"not a format version {RUN_VERSION} run file")
        return from_dict(cls, data)


def load_config(run_dir: str | os.PathLike[str]) -> LoopConfig | None:
    """The settings stored in ``run_dir`` (None for a new run)."""
    path = Path(run_dir) / RUN_FILE
    if not path.exists():
        return None
    try:
        return LoopConfig.from_dict(read_json(path))
    except (OSError, ValueError, TypeError, KeyError) as error:
        raise RunStateError(f"run file {path}: {error}") from error


class Cluster(Protocol):
    """Where self-play and training run instead of this process (``engine loop --ray``:
    :class:`training.cluster.RayCluster`), and where the run's files go as they are written."""

    cpu_seconds: float  # CPU time its processes spent for the run so far

    def selfplay(self, model: Path, rules: Any, config: SelfPlayConfig, games: int, output: Any, options: Any,
                 on_game: Callable[[Any], None] | None, desc: str, leave: bool) -> Any:
        """Play ``games`` games, saving each through ``output`` as it ends; a SelfPlaySummary."""

    def train(self, model: Path, out_model: Path, chunk_dirs: list[Path], expect: Any, generation: int,
              config: TrainConfig, logdir: Path | None) -> Any:
        """Train ``model`` on the chunks into ``out_model``; a TrainResult."""

    def commit(self, paths: list[Path]) -> None:
        """These files of the run were just written."""

    def sync(self) -> None:
        """Every file of the run written since the last sync was, ``state.json`` last."""


# ---------------------------------------------------------------------- state
def _gen(number: int) -> str:
    return f"{number:06d}"


class _Run:
    """Paths and state of one run directory."""

    def __init__(self, root: Path, config: LoopConfig, report: Callable[[str], None],
                 cluster: Cluster | None = None) -> None:
        self.root = root
        self.config = config
        self.report = report
        self.cluster = cluster
        self.rules = config.game_rules()
        self.state: dict[str, Any] = {}
        self.phase_cpu = 0.0  # cpu_seconds() when the running phase began

    def cpu_seconds(self) -> float:
        """CPU time of this process, its finished children and the cluster's processes for this run."""
        return _cpu_seconds() + (self.cluster.cpu_seconds if self.cluster is not None else 0.0)

    def path(self, *parts: str) -> Path:
        return self.root.joinpath(*parts)

    def load_state(self) -> bool:
        path = self.path(STATE_FILE)
        if not path.exists():
            return False
        try:
            self.state = read_json(path)
            if self.state.get("format_version") != STATE_VERSION:
                raise ValueError(f"not a format version {STATE_VERSION} state file")
            missing = [key for key in ("best", "next", "phase", "history", "current") if key not in self.state]
            if missing:
                raise ValueError(f"missing {', '.join(missing)}")
            _check_state(self.state)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise RunStateError(f"state file {path}: {error}") from error
        return True

    def save_state(self, everything: bool = True) -> None:
        """Write ``state.json``; on a cluster, upload it (with ``everything``: after every file written
        since the last upload, so the run never records a phase before holding its files)."""
        write_json(self.path(STATE_FILE), self.state)
        if self.cluster is not None:
            if everything:
                self.cluster.sync()
            else:
                self.cluster.commit([self.path(STATE_FILE)])

    def save_progress(self) -> None:
        """Note the running phase's CPU time so far (``cpu_pending``), so that a kill does not lose it:
        the games that phase wrote are kept, and the compute that made them counts."""
        self.state["current"]["cpu_pending"] = round(self.cpu_seconds() - self.phase_cpu, 3)
        self.save_state(everything=False)

    def fold_pending_cpu(self) -> None:
        """After a kill: the interrupted phase's CPU time joins the generation's."""
        current = self.state["current"]
        pending = current.pop("cpu_pending", 0.0)
        if pending:
            current["cpu_seconds"] = round(current.get("cpu_seconds", 0.0) + pending, 3)

    @property
    def best(self) -> Path:
        return self.path(self.state["best"])

    def model_path(self, generation: int) -> Path:
        from engine import MODEL_SUFFIX, NetConfig, model_name

        boot = self.config.bootstrap  # a model's name depends on blocks, filters and heads, not the planes
        blocks, filters = self.config.architecture(generation)
        net = NetConfig(blocks, filters, 1, None if boot.heads == "pooled" else boot.size, boot.heads)
        return self.path("models", model_name(generation, net) + MODEL_SUFFIX)


def _check_state(state: dict[str, Any]) -> None:
    """ValueError for a state whose fields the loop could not follow: the next generation, the phase, the best
    model (a file of the run's ``models`` folder), the history and the current generation's notes."""
    best = state["best"]
    if not isinstance(best, str) or Path(best).parent != Path("models"):
        raise ValueError(f"best is {best!r}, not a file of the run's models folder")
    if not isinstance(state["next"], int) or isinstance(state["next"], bool) or state["next"] < 1:
        raise ValueError(f"next is {state['next']!r}, not a generation number")
    if state["phase"] not in (*PHASES, "done"):
        raise ValueError(f"phase is {state['phase']!r}, not one of {', '.join(PHASES)}, done")
    if not isinstance(state["current"], dict) or not isinstance(state["history"], list) or not all(
            isinstance(row, dict) for row in state["history"]):
        raise ValueError("current must be an object and history a list of objects")


# ------------------------------------------------------------------- phases
def _bootstrap(run: _Run) -> None:
    from training.models import bootstrap

    if run.config.start_model:
        from engine import load_model, save_model

        start = load_model(run.config.start_model)
        path = save_model(run.model_path(0), start.with_generation(0, 0, start.info.komi))
    else:
        path = bootstrap(run.model_path(0), run.config.bootstrap)
    run.state = {"format_version": STATE_VERSION, "best": str(path.relative_to(run.root)), "next": 1,
                 "phase": "selfplay", "current": {}, "history": []}
    row: dict[str, Any] = {"generation": 0, "model": path.name, "accepted": True}
    if run.config.rating_games:
        row["rating"] = _rate(run, path, 0)
    run.state["history"].append(row)
    run.save_state()
    run.report(f"bootstrapped {path.name}")


def _selfplay(run: _Run, generation: int) -> dict[str, Any]:
    from tqdm import tqdm

    from training.gpu_busy import GpuBusy, counting_games
    from training.records import list_records
    from training.selfplay import SelfPlayOutput, run_selfplay

    games_dir = run.path("games", _gen(generation))
    have = len(list_records(games_dir)) + len(list_records(games_dir / HOLDOUT_DIR))
    todo = max(run.config.games_per_generation - have, 0)
    if todo == 0:
        return {"games": have}
    config = run.config.selfplay
    if config.seed is not None:
        config = replace(config, seed=config.seed + 1_000_003 * generation + have)
    output = SelfPlayOutput(games_dir, run.path("sgf", _gen(generation)))
    if run.cluster is not None:
        summary = run.cluster.selfplay(run.best, run.rules, config, todo, output, run.config.evaluator_options(),
                                       lambda _game: run.save_progress(), f"self-play {_gen(generation)}", False)
    else:
        with tqdm(total=todo, desc=f"self-play {_gen(generation)}", unit="game", leave=False) as bar, \
                GpuBusy() as gpu:
            counted = counting_games(bar, gpu)
            summary = run_selfplay(run.best, run.rules, config, todo, output, run.config.evaluator_options(),
                                   run.config.workers, lambda game: (counted(game), run.save_progress()),
                                   worker_threads=run.config.threads)
    run.report(f"generation {generation} self-play: {summary.describe()}")
    return {"games": have + summary.games, **{k: summary.to_dict()[k] for k in (
        "moves", "targets", "black_wins", "white_wins", "draws", "games_per_hour", "false_resign_rate")}}


def _target(run: _Run) -> Any:
    from engine import read_info
    from training.gather import GatherTarget

    info = read_info(run.best)
    return GatherTarget(info.game, run.rules.size, info.encoder)


def _gather(run: _Run, generation: int) -> dict[str, Any]:
    from training.gather import GatherConfig, gather, list_inputs

    target = _target(run)
    games_dir = run.path("games", _gen(generation))
    config = GatherConfig(kind="records", seed=generation)
    main = gather(list_inputs(games_dir, "records"), run.path("chunks", _gen(generation)), target, config)
    held: list[Path] = list_inputs(games_dir / HOLDOUT_DIR, "records") if (games_dir / HOLDOUT_DIR).is_dir() else []
    holdout = gather(held, run.path("holdout", _gen(generation)), target, config)
    run.report(f"generation {generation} gather: {main.describe()}; holdout: {holdout.describe()}")
    return {"samples": main.samples, "holdout_samples": holdout.samples}


def _chunk_dirs(run: _Run, kind: str, generations: range) -> list[Path]:
    from training.chunks import list_chunks

    dirs = [run.path(kind, _gen(g)) for g in generations]
    return [d for d in dirs if d.is_dir() and list_chunks([d])]


def _train(run: _Run, generation: int) -> dict[str, Any]:
    from tqdm import tqdm

    from engine import load_model, read_info
    from training.chunks import ChunkInfo
    from training.stream import SampleStream
    from training.train import train

    info = read_info(run.best)
    base = _grown(run, generation, info.config)
    window = range(max(1, generation - run.config.window + 1), generation + 1)
    dirs = _chunk_dirs(run, "chunks", window)
    if not dirs:
        raise RunStateError(f"generation {generation} has no training samples in {run.path('chunks')}")
    expect = ChunkInfo(info.game, run.rules.size, info.encoder, info.num_planes, "bits", 0)
    config = replace(run.config.train, learning_rate=run.config.learning_rate(generation))
    if run.cluster is not None:
        result = run.cluster.train(base, run.model_path(generation), dirs, expect, generation, config,
                                   run.path("tensorboard"))
    else:
        samples = SampleStream.from_chunks(dirs, expect)
        with tqdm(total=config.steps, desc=f"train {_gen(generation)}", unit="step", leave=False) as bar:
            result = train(samples, load_model(base), run.model_path(generation), generation, config,
                           run.path("tensorboard"), lambda done, _metrics: bar.update(done - bar.n))
    run.report(f"generation {generation} training: {result.describe()}")
    return {"steps": result.steps, "learning_rate": config.learning_rate, "train_samples": result.samples,
            "train_policy_loss": result.policy_loss,
            "train_value_loss": result.value_loss, "train_top1": result.top1,
            **{f"train_{term}_loss": loss for term, loss in result.aux_losses.items()}}


def _grown(run: _Run, generation: int, net: NetConfig) -> Path:
    """The model ``generation`` trains from: the best (whose network is ``net``), grown first when
    ``generation`` starts a larger network (saved beside it as the same generation at the new size, so a
    resumed run grows it the same way)."""
    from engine import MODEL_SUFFIX, load_model, model_name, save_model
    from training.grow import grow_model

    blocks, filters = run.config.architecture(generation)
    if (net.blocks, net.filters) == (blocks, filters):
        return run.best
    best = load_model(run.best)
    grown = grow_model(best, blocks, filters, seed=run.config.bootstrap.seed + generation)
    path = save_model(run.path("models", model_name(best.info.generation, grown.net.config) + MODEL_SUFFIX), grown)
    run.report(f"generation {generation}: {run.best.name} grown to {path.name}")
    return path


def _validate(run: _Run, generation: int) -> dict[str, Any]:
    from engine import load_model
    from training.chunks import load_samples
    from training.validate import validate

    dirs = _chunk_dirs(run, "holdout", range(generation, generation + 1))
    if not dirs:
        return {}
    model = load_model(run.model_path(generation))
    result = validate(model.net, load_samples(dirs), device=run.config.device)
    run.report(f"generation {generation} holdout: {result.describe()}")
    return {"holdout_policy_loss": result.policy_loss, "holdout_top1": result.top1,
            "holdout_value_mse": result.value_mse, "holdout_score_mae": result.score_mae,
            "holdout_ownership_accuracy": result.ownership_accuracy}


def _match(run: _Run, a: str, b: str, games: int, directory: Path) -> Any:
    from tqdm import tqdm

    from training.match import make_agent, play_match

    config = replace(run.config.match, games=games)
    options = run.config.evaluator_options()
    first, second = make_agent(a, run.rules, config, options), make_agent(b, run.rules, config, options)
    with tqdm(total=games, desc=f"{first.name} vs {second.name}", unit="game", leave=False) as bar:
        result = play_match(first, second, run.rules, config, directory, lambda _r: bar.update(1))
    run.report(result.describe())
    return result


def _gtp_match(run: _Run, model: Path, command: str, games: int, directory: Path, seed: int) -> Any:
    """``model`` (in this process, as in gating) against a GTP engine, as ``engine match`` plays it; a match
    cut short goes on from the games in ``directory``. An engine that fails (it hung past its timeout, as
    any engine seems to once the run was paused with SIGSTOP for longer than that, or it died) is started
    afresh, the games finished so far kept; the run stops after ``GTP_RETRIES`` failures in a row that finished
    no game (GNU Go dies now and then on 19x19: that costs a game, not the run)."""
    from tqdm import tqdm

    from training.errors import PlayerError
    from training.match import contestant, play_match

    random_moves = 0 if run.config.match.openings else 2
    config = replace(run.config.match, games=games, random_moves=random_moves, scorer="b", seed=seed)
    options = run.config.evaluator_options()
    name = Path(shlex.split(command)[0]).name
    failures = 0
    while True:
        finished = len(list(directory.glob("*.sgf")))
        try:
            a, b = contestant(str(model), "A", run.rules, config, options), contestant(command, "B", run.rules, config)
            with tqdm(total=games, desc=f"{model.name} vs {name}", unit="game", leave=False) as bar:
                result = play_match(a, b, run.rules, config, directory, lambda r: bar.update(r.games - bar.n),
                                    resume=True)
            break
        except PlayerError as error:
            failures = 1 if len(list(directory.glob("*.sgf"))) > finished else failures + 1
            if failures > GTP_RETRIES:
                raise
            run.report(f"rating match: {error}; starting the engines again ({failures} of {GTP_RETRIES} in a row "
                       "without a finished game)")
    run.report(result.describe())
    return result


def _gate(run: _Run, generation: int) -> dict[str, Any]:
    if not run.config.gate_games:
        return {"accepted": True}
    result = _match(run, str(run.model_path(generation)), str(run.best), run.config.gate_games,
                    run.path("matches", _gen(generation), "gate"))
    return {"accepted": result.rate >= run.config.gate_threshold, "gate_rate": result.rate,
            "gate_elo": result.elo}


def _rate(run: _Run, model: Path, generation: int) -> dict[str, Any]:
    from training.match import is_local

    opponent, games, directory = run.config.rating_opponent, run.config.rating_games, run.path(
        "matches", _gen(generation), "rating")
    if is_local(opponent):
        result = _match(run, str(model), opponent, games, directory)
    else:
        result = _gtp_match(run, model, opponent, games, directory, seed=generation)
    low, high = result.elo_interval()
    return {"opponent": result.b, "games": result.games, "win_rate": result.rate, "elo": result.elo,
            "elo_low": low, "elo_high": high}


def _phase(run: _Run, phase: str, generation: int) -> dict[str, Any]:
    if phase == "selfplay":
        return {"selfplay": _selfplay(run, generation)}
    if phase == "gather":
        return _gather(run, generation)
    if phase == "train":
        return _train(run, generation)
    if phase == "validate":
        return _validate(run, generation)
    if phase == "gate":
        return _gate(run, generation)
    accepted = run.state["current"].get("accepted", True)
    if not run.config.rating_games or not accepted or generation % run.config.rating_every:
        return {}
    _picture_search(run, run.model_path(generation))
    return {"rating": _rate(run, run.model_path(generation), generation)}


def _picture_search(run: _Run, model: Path) -> None:
    """RUN_DIR/search.png: what ``model`` sees from the empty board at the matches' visits."""
    from engine import Game, load_evaluator
    from training.search_picture import draw_search, picture_search

    evaluator = load_evaluator(run.rules, model, run.config.evaluator_options())
    player = run.config.match.player
    picture = picture_search(Game(run.rules), evaluator, player.visits, player.search)
    draw_search(picture, run.path("search.png"), model.name)


def _finish_generation(run: _Run, generation: int, seconds: float) -> None:
    row = {"generation": generation, "model": run.model_path(generation).name, **run.state["current"],
           "seconds": round(seconds + run.state["current"].get("seconds", 0.0), 1)}
    run.state["history"].append(row)
    if row.get("accepted", True):
        run.state["best"] = str(run.model_path(generation).relative_to(run.root))
    run.state["next"] = generation + 1
    run.state["phase"] = PHASES[0]
    run.state["current"] = {}
    run.save_state()
    write_text(run.path("ratings.md"), ratings_table(run.state["history"]))
    plot_progress(run.state["history"], run.path("progress.png"))


def _sized_like_start_model(config: LoopConfig) -> LoopConfig:
    """A new run's config with the bootstrap network described as its start model (names, encoder)."""
    from engine import read_info

    info = read_info(config.start_model)
    net = info.config
    size = config.bootstrap.size if net.board_size is None else net.board_size
    return replace(config, bootstrap=replace(config.bootstrap, game=info.game, size=size, encoder=info.encoder,
                                             blocks=net.blocks, filters=net.filters, heads=net.heads,
                                             aux_heads=net.aux_heads))


def _cpu_seconds() -> float:
    """User and system CPU time of this process (to the nanosecond clock, not os.times' 10 ms ticks, so that a
    few quick games count) and of its finished children (self-play workers)."""
    times = os.times()
    return time.process_time() + times.children_user + times.children_system


def cpu_hours_used(state: dict[str, Any]) -> float:
    """CPU hours a run has used in its finished generations and in the phases done of the current one."""
    seconds = sum(row.get("cpu_seconds", 0.0) for row in state["history"])
    return (seconds + state["current"].get("cpu_seconds", 0.0)) / 3600.0


def run_loop(run_dir: str | os.PathLike[str], config: LoopConfig, report: Callable[[str], None] = log.info,
             after_phase: Callable[[int, str], None] | None = None, cluster: Cluster | None = None) -> dict[str, Any]:
    """Run (or resume) the loop in ``run_dir`` until ``config.generations`` generations exist or the
    ``cpu_hours`` budget is spent.

    ``after_phase(generation, phase)`` is called after each phase is saved (tests
    interrupt the loop there). With ``cluster`` (``engine loop --ray``:
    :class:`training.cluster.RayCluster`) self-play and training run there, and
    every file the loop writes in ``run_dir`` is handed to it. Returns the final state.
    """
    _check_rating_opponent(config)
    root = Path(run_dir)
    root.mkdir(parents=True, exist_ok=True)
    with _sole_writer(root):
        return _run_locked(root, config, report, after_phase, cluster)


def _check_rating_opponent(config: LoopConfig) -> None:
    """A rating opponent that cannot play is refused now rather than after a generation's hours."""
    from training.match import BASELINES, is_local

    opponent = config.rating_opponent
    if not config.rating_games or is_local(opponent):
        return
    try:
        program = shlex.split(opponent)[0]
    except (ValueError, IndexError):
        program = None
    if program is None or shutil.which(program) is None:
        raise RunStateError(f"rating opponent {opponent!r} is neither a baseline ({BASELINES}), a model file, nor "
                            "a command line whose program is on PATH")


@contextlib.contextmanager
def _sole_writer(root: Path) -> Iterator[None]:
    """Hold ``root/LOCK_FILE`` for the whole run: a second loop on the same directory would interleave
    generations and overwrite the state, so it is refused. The kernel drops the lock when the process
    dies, ``kill -9`` included, so a stale lock never blocks a resume."""
    with open(root / LOCK_FILE, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunStateError(f"{root}: another loop is running in this directory (it holds {LOCK_FILE}); "
                                "stop it first or choose another run directory") from None
        yield


def _run_locked(root: Path, config: LoopConfig, report: Callable[[str], None],
                after_phase: Callable[[int, str], None] | None, cluster: Cluster | None) -> dict[str, Any]:
    new = not (root / STATE_FILE).exists()
    if new and config.start_model:
        config = _sized_like_start_model(config)
    run = _Run(root, config, report, cluster)
    resumed = run.load_state()   # a state the loop cannot follow is refused before anything is written
    write_json(root / RUN_FILE, config.to_dict())
    if not resumed:
        _bootstrap(run)
    run.fold_pending_cpu()
    while run.state["next"] <= config.generations:
        if config.cpu_hours is not None and cpu_hours_used(run.state) >= config.cpu_hours:
            report(f"CPU budget spent: {cpu_hours_used(run.state):.2f} of {config.cpu_hours:g} hours")
            break
        generation = run.state["next"]
        started = time.perf_counter()
        for phase in PHASES[PHASES.index(run.state["phase"]):]:
            run.phase_cpu = run.cpu_seconds()
            run.state["current"].update(_phase(run, phase, generation))
            current = run.state["current"]
            current.pop("cpu_pending", None)
            if phase not in _UNCOUNTED:
                current["cpu_seconds"] = round(current.get("cpu_seconds", 0.0) + run.cpu_seconds() - run.phase_cpu,
                                               3)
            following = PHASES.index(phase) + 1
            run.state["phase"] = PHASES[following] if following < len(PHASES) else "done"
            run.save_state()
            if after_phase is not None:
                after_phase(generation, phase)
        _finish_generation(run, generation, time.perf_counter() - started)
    if cluster is not None:
        cluster.sync()  # the last generation's table and plot
    return run.state


# ------------------------------------------------------------------ reports
def _number(value: Any, spec: str) -> str:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)


def ratings_table(history: list[dict[str, Any]]) -> str:
    """The history as a Markdown table: losses, holdout accuracy, gate and rating per generation."""
    lines = ["| gen | model | accepted | CPU h | steps | train policy | train value | holdout policy | holdout top-1 | "
             "gate | vs opponent | Elo (95% CI) |",
             "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    cpu_hours = 0.0
    for row in history:
        cpu_hours += row.get("cpu_seconds", 0.0) / 3600.0
        rating = row.get("rating") or {}
        elo = ""
        if rating:
            elo = f"{signed(rating['elo'])} ({signed(rating['elo_low'])}, {signed(rating['elo_high'])})"
        vs = f"{100 * rating['win_rate']:.0f}% of {rating['games']}" if rating else ""
        lines.append(
            f"| {row['generation']} | {row['model']} | {'yes' if row.get('accepted', True) else 'no'} | "
            f"{cpu_hours:.2f} | {row.get('steps', '')} | {_number(row.get('train_policy_loss'), '.3f')} | "
            f"{_number(row.get('train_value_loss'), '.3f')} | {_number(row.get('holdout_policy_loss'), '.3f')} | "
            f"{_number(100 * row['holdout_top1'] if 'holdout_top1' in row else None, '.1f')} | "
            f"{_number(row.get('gate_rate'), '.2f')} | {vs} | {elo} |")
    opponent = next((row["rating"]["opponent"] for row in history if row.get("rating")), None)
    note = f"\nElo is relative to {opponent} (0 = even).\n" if opponent else "\n"
    return "\n".join(lines) + "\n" + note


def plot_progress(history: list[dict[str, Any]], path: str | os.PathLike[str]) -> Path:
    """A PNG with the losses (left) and the rating (right) per generation.

    Drawn on a bare ``Figure`` (no pyplot), so no global backend is chosen or needed.
    """
    import textwrap

    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(10, 4))
    losses, ratings = figure.subplots(1, 2)
    for key, label in (("train_policy_loss", "train policy"), ("train_value_loss", "train value MSE"),
                       ("holdout_policy_loss", "holdout policy"), ("holdout_value_mse", "holdout value MSE")):
        points = [(row["generation"], row[key]) for row in history if row.get(key) is not None]
        if points:
            losses.plot(*zip(*points), marker="o", label=label)
    losses.set_xlabel("generation")
    losses.set_ylabel("loss")
    losses.set_title("losses")
    if losses.lines:
        losses.legend()
    rated = [row for row in history if row.get("rating")]
    if rated:
        x = [row["generation"] for row in rated]
        y = [row["rating"]["elo"] for row in rated]
        errors = [[v - row["rating"]["elo_low"] for v, row in zip(y, rated)],
                  [row["rating"]["elo_high"] - v for v, row in zip(y, rated)]]
        ratings.errorbar(x, y, yerr=errors, marker="o", capsize=3)
        ratings.set_title("\n".join(textwrap.wrap(f"Elo against {rated[0]['rating']['opponent']}", 60)),
                          fontsize="medium")
    else:
        ratings.set_title("rating")
    ratings.set_xlabel("generation")
    ratings.set_ylabel("Elo (0 = even)")
    for axes in (losses, ratings):
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    figure.tight_layout()
    with atomic_path(path) as temp:
        figure.savefig(temp, format="png", dpi=80)
    return Path(path)
