"""A session of KataGo's JSON analysis protocol: reads request lines, schedules the searches, writes responses.

A reader thread (:class:`~gtp.inbox.Inbox`) queues the input lines, so that actions such as
``terminate`` take effect while searches run. The main thread parses each line
(:mod:`gtp.kata_json`), answers actions and errors at once, and turns every
query into one pending job per analysed turn, ordered by priority (highest
first, earlier queries first among equals). Up to ``AnalysisConfig.concurrent``
jobs search at once; every step gathers a leaf batch from each and evaluates the
leaves of all that share a network in one call (:func:`engine.step`). A finished
search is written at once, so responses come in the order searches end. At the
end of the input the session finishes the jobs still pending, or, with
``quit_without_waiting``, stops at once. Only the main thread writes. Each
request line and each search runs under a guard: whatever fails answers that
line (or that turn) with an error, is logged, and the session goes on.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import time
from collections.abc import Callable
from typing import Any, BinaryIO

import numpy as np

from engine import (
    EngineError,
    Evaluation,
    Evaluator,
    PositionBatch,
    Rules,
    Search,
    SearchJob,
    seen_at_level,
    step,
)
from gtp.inbox import EOF, Inbox
from gtp.kata_config import AnalysisConfig
from gtp.kata_json import (
    MAX_REQUEST_BYTES,
    Action,
    ProtocolError,
    Query,
    Turn,
    analysis_response,
    encode,
    human_policy,
    model_entry,
    no_results,
    parse_request,
    request_id,
)
from gtp.outbox import Outbox
from gtp.protocol import package_version

__all__ = ["AnalysisSession"]

log = logging.getLogger(__name__)


class _TurnJob(SearchJob):
    """The search of one analysed turn; keeps the network's policy of the root from its first evaluation.

    A query with a ``humanSLProfile`` searches as its level plays (the level's visits, blind spots and
    overlooked ataris drawn from ``rng``, and root temperature) and answers the level's move distribution as
    ``humanPolicy``.
    """

    def __init__(self, query: Query, turn: Turn, evaluator: Evaluator, rng: np.random.Generator) -> None:
        config = query.config
        search = Search(turn.game, evaluator, config.search)
        allowed, temperature, visits = None, config.root_policy_temperature, config.visits
        self.level = config.human_level
        if self.level is not None and self.level.visits is not None:
            allowed = seen_at_level(None, turn.game, self.level.blind_spots, self.level.overlooked_ataris, rng)
            temperature *= self.level.root_temperature
            visits = self.level.visits
        search.shape_root(allowed=allowed, kept_out=query.kept_out, temperature=temperature)
        super().__init__(search, evaluator, visits, playouts=config.playouts, seconds=config.seconds)
        self.query, self.turn = query, turn
        self.policy: np.ndarray | None = None
        self.reported = time.monotonic()
        self._root_gathered = False

    def gather(self) -> tuple[PositionBatch, np.ndarray]:
        leaves, legal = super().gather()
        self._root_gathered = self.policy is None and len(leaves) > 0  # a fresh tree gathers its root alone first
        return leaves, legal

    def complete(self, evaluation: Evaluation) -> None:
        if self._root_gathered:
            self.policy = np.array(evaluation.priors[0], dtype=np.float32)
        super().complete(evaluation)

    def response(self, during: bool) -> dict[str, Any]:
        result = self.result()
        reply = analysis_response(self.query, self.turn, result, self.search, self.policy, during)
        if self.level is not None:
            reply["humanPolicy"] = human_policy(self.level, self.turn.game, result)
        return reply


class AnalysisSession:
    """One analysis conversation over binary streams (``sys.stdin.buffer`` / ``sys.stdout.buffer`` or pipes).

    ``evaluator_for(rules)`` gives the evaluator for a board (the command caches one
    per size); an EngineError from it refuses the query's board size. ``model_for(rules)`` names the model
    file behind it (None: no network), for ``query_models``.
    """

    def __init__(self, config: AnalysisConfig, evaluator_for: Callable[[Rules], Evaluator], stdin: BinaryIO,
                 stdout: BinaryIO, quit_without_waiting: bool = False,
                 model_for: Callable[[Rules], str | None] = lambda rules: None) -> None:
        self.config = config
        self._evaluator_for = evaluator_for
        self._model_for = model_for
        self._evaluators: dict[int, Evaluator] = {}
        self._inbox, self._out = Inbox(stdin, limit=MAX_REQUEST_BYTES), Outbox(stdout)
        self._quit_without_waiting = quit_without_waiting
        self._pending: list[tuple[int, int, Query, Turn]] = []   # heap of (-priority, order, query, turn)
        self._order = itertools.count()
        self._active: list[_TurnJob] = []
        self._ended = False
        self._warned_heads = False
        self._warned_profiles: set[str] = set()
        self._rng = np.random.default_rng(config.evaluator.seed)   # the levels' blind spots

    # ------------------------------------------------------------- running
    def run(self, read_ahead: bool = False) -> None:
        """Serve until the input ends and the pending queries are answered (or the output closes).

        ``read_ahead`` reads the whole input before the first search (a file of queries), so that the
        priorities order all of them; otherwise searches start while the input is still read.
        """
        if read_ahead:
            self._inbox.read_all()
        else:
            self._inbox.start()
        while not self._out.closed:
            self._take_input(block=not self._active and not self._pending and not self._ended)
            if self._ended and self._quit_without_waiting:
                break
            self._start_jobs()
            if not self._active:
                if self._ended:
                    break
                continue
            self._step()

    def _take_input(self, block: bool) -> None:
        """Handle the lines that arrived (waiting for one if ``block``)."""
        while not self._ended:
            item = self._inbox.get(block)
            if item is None:
                return
            block = False
            if item is EOF:
                self._ended = True
                return
            _, raw = item  # type: ignore[misc]
            self._guarded(raw)

    def _write(self, reply: dict[str, Any]) -> None:
        self._out.write((encode(reply) + "\n").encode("utf-8"))

    # ------------------------------------------------------------ requests
    def _guarded(self, raw: bytes) -> None:
        """One request line under the session's guard: whatever fails while it is read or handled, the line
        gets one error response (with its id where one can be read), the error is logged and the session
        goes on."""
        if len(raw) > MAX_REQUEST_BYTES:
            self._write(ProtocolError(f"Request line longer than {MAX_REQUEST_BYTES} bytes, ignoring").response())
            return
        line = raw.decode("utf-8", errors="replace")
        try:
            self._handle(line)
        except Exception as exc:  # noqa: BLE001 -- no request line may end the session
            log.error("request failed", exc_info=exc)
            self._write(ProtocolError(f"internal error: {type(exc).__name__}: {exc}", request_id(line)).response())

    def _handle(self, line: str) -> None:
        if not line.strip():
            return
        try:
            request = parse_request(line, self.config)
            if isinstance(request, Action):
                self._act(request)
                return
            for turn in request.turns:  # the board size's network, before anything is queued
                self._evaluator(turn.game.rules, request.id)
        except ProtocolError as exc:
            self._write(exc.response())
            return
        for field, message in request.warnings:
            self._write({"id": request.id, "field": field, "warning": message})
        self._warn_of_profile(request.config)
        for turn in request.turns:
            heapq.heappush(self._pending, (-turn.priority, next(self._order), request, turn))

    def _warn_of_profile(self, config: AnalysisConfig) -> None:
        """Say once per profile, on stderr, which level plays for a ``humanSLProfile``."""
        profile, level = config.human_profile, config.human_level
        if profile is None or level is None or profile in self._warned_profiles:
            return
        self._warned_profiles.add(profile)
        log.warning("humanSLProfile %s: no human model here; the engine's level %s plays instead (the nearest; "
                    "levels are uncalibrated, docs/gtp.md, Levels)", profile, level.name)

    def _evaluator(self, rules: Rules, query_id: str) -> Evaluator:
        if rules.size not in self._evaluators:
            try:
                self._evaluators[rules.size] = self._evaluator_for(rules)
            except EngineError as exc:
                raise ProtocolError(str(exc), query_id, "boardXSize") from None
        return self._evaluators[rules.size]

    def _act(self, action: Action) -> None:
        reply = dict(action.request)
        if action.name == "query_version":
            reply.update(version=package_version(), git_hash="<omitted>")
        elif action.name == "query_models":
            reply["models"] = self._models()
        elif action.name == "clear_cache":
            for evaluator in self._evaluators.values():
                clear = getattr(evaluator, "clear_cache", None)
                if clear is not None:
                    clear()
        else:
            self._terminate(action.terminate_id, action.turn_numbers)
        self._write(reply)

    def _models(self) -> list[dict[str, Any]]:
        """The networks loaded so far, one entry per model file (KataGo's ``query_models`` fields)."""
        max_batch = self.config.max_batch or self.config.concurrent * self.config.search.batch_size
        entries: dict[str | None, dict[str, Any]] = {}
        for size, evaluator in self._evaluators.items():
            path = self._model_for(Rules.go(size))
            entries.setdefault(path, model_entry(path, evaluator, max_batch))
        return list(entries.values())

    def _terminate(self, query_id: str | None, turns: frozenset[int] | None) -> None:
        """Stop the matching searches (they report what they found) and drop the matching pending turns."""
        def matches(query: Query, turn: Turn) -> bool:
            return (query_id is None or query.id == query_id) and (turns is None or turn.number in turns)

        kept = []
        for entry in self._pending:
            if matches(entry[2], entry[3]):
                self._write(no_results(entry[2].id, entry[3].number))
            else:
                kept.append(entry)
        if len(kept) != len(self._pending):
            heapq.heapify(kept)
            self._pending = kept
        for job in self._active:
            if matches(job.query, job.turn):
                job.stop()

    # ---------------------------------------------------------- searching
    def _start_jobs(self) -> None:
        while self._pending and len(self._active) < self.config.concurrent:
            _, _, query, turn = heapq.heappop(self._pending)
            try:
                self._active.append(_TurnJob(query, turn, self._evaluators[turn.game.rules.size], self._rng))
            except Exception as exc:  # noqa: BLE001 -- a search that cannot start fails its turn, not the session
                self._fail_turn(query, turn, exc)

    def _step(self) -> None:
        try:
            step(self._active)
        except Exception as exc:  # noqa: BLE001 -- a failed evaluation fails its searches, not the session
            for job in self._active:
                self._fail_turn(job.query, job.turn, exc)
            self._active = []
            return
        now = time.monotonic()
        for job in list(self._active):
            try:
                if job.finished:
                    self._active.remove(job)
                    self._finish(job)
                elif job.query.report_every is not None and now - job.reported >= job.query.report_every:
                    job.reported = now
                    self._write(job.response(during=True))
            except Exception as exc:  # noqa: BLE001 -- a search that cannot report fails its turn
                if job in self._active:
                    self._active.remove(job)
                self._fail_turn(job.query, job.turn, exc)

    def _fail_turn(self, query: Query, turn: Turn, exc: Exception) -> None:
        """The one response of a turn whose search failed: an error with its id and turn number."""
        log.error("search of %s turn %d failed", query.id, turn.number, exc_info=exc)
        self._write({"id": query.id, "turnNumber": turn.number,
                     "error": f"internal error: {type(exc).__name__}: {exc}"})

    def _finish(self, job: _TurnJob) -> None:
        if job.search.root_visits == 0 and job.policy is None and not job.turn.game.is_over:
            self._write(no_results(job.query.id, job.turn.number))  # stopped before its first evaluation
            return
        reply = job.response(during=False)
        if not self._warned_heads and ("scoreLead" not in reply["rootInfo"] or
                                       (job.query.include_ownership and "ownership" not in reply)):
            self._warned_heads = True
            log.warning("the network has no score and ownership heads: responses carry no scoreLead, scoreMean, "
                        "scoreStdev or ownership")
        self._write(reply)
