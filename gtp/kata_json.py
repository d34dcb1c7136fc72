"""The codec of KataGo's JSON analysis protocol: request lines in, :class:`Query` and :class:`Action` out,
and the response objects back (KataGo's ``docs/Analysis_Engine.md`` is the spec).

A query names a game (``moves``, ``initialStones``, ``initialPlayer``, ``rules``,
``komi``, ``boardXSize`` = ``boardYSize``) and the turns to analyse; it becomes
one :class:`Turn` per analysed turn, each with its own game. Rules come as
KataGo's shorthand names or its JSON object and map onto the engine's presets;
what the engine cannot play (a button, stone scoring, territory scoring without
the seki tax, Spight ko) is refused. Every failure is a :class:`ProtocolError`
with KataGo's wording where it has one, and the ``id`` and ``field`` it concerns.
Values in responses are from the side to move, flipped to the perspective the
config asks (``reportAnalysisWinratesAs``); lists of points run from A19 (the
top left) row by row, as the engine's actions do.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import PurePath
from typing import Any

import numpy as np

from engine import (
    BLACK,
    FORMAT_VERSION,
    HANDICAP_BONUS_RULES,
    WHITE,
    Color,
    EngineError,
    Game,
    Level,
    Rules,
    RulesError,
    Search,
    SearchResult,
    action_to_gtp,
    gtp_to_action,
    handicap_bonus_rule,
    pass_wins,
    with_handicap_bonus,
)
from gtp.analysis import candidates, move_stats
from gtp.kata_config import AnalysisConfig, ConfigError, apply_settings

__all__ = ["ProtocolError", "Action", "Turn", "Query", "ACTIONS", "MAX_REQUEST_BYTES", "MAX_DEPTH", "parse_request",
           "request_id", "parse_rules", "model_entry",
           "analysis_response", "human_policy", "no_results", "encode"]

ACTIONS = ("query_version", "query_models", "clear_cache", "terminate", "terminate_all")
MAX_BOARD = 25
MAX_REQUEST_BYTES = 1 << 20
"""Longest request line read (a query for every turn of a long game takes tens of kilobytes)."""
MAX_DEPTH = 32
"""Deepest nesting of arrays and objects in a request line (a query needs 3)."""
PRECISION = 6
"""Decimals of the floats written (KataGo rounds likewise)."""

_SIZE_ERROR = f"Must provide an integer from 2 to {MAX_BOARD}"
_MOVES_ERROR = 'Must be an array of pairs of the form: ["b" or "w", GTP board vertex]'
_RULES_ERROR = ('Must specify rules string, such as "chinese" or "tromp-taylor", or a JSON object with detailed '
                'rules parameters.')
_UNUSED = "Unexpected or unused field, do you have a typo? (set warnUnusedFields=false in the config to disable this " \
          "warning)"
_UNSUPPORTED = ("includeOwnershipStdev", "includeMovesOwnershipStdev", "includeNoResultValue")
_FIELDS = {"id", "moves", "initialStones", "initialPlayer", "rules", "komi", "whiteHandicapBonus", "boardXSize",
           "boardYSize", "analyzeTurns", "maxVisits", "rootPolicyTemperature", "rootFpuReductionMax",
           "analysisPVLen", "includeOwnership", "includeMovesOwnership", "includePolicy", "includePVVisits",
           "avoidMoves", "allowMoves", "overrideSettings", "reportDuringSearchEvery", "priority", "priorities",
           *_UNSUPPORTED}

# KataGo's rules names (lower case, ``_``, ``-`` and spaces alike) -> (our preset, ko override); the white handicap
# bonus is the preset's (handicap_bonus_rule)
_RULES_NAMES: dict[str, tuple[str, str | None]] = {
    "tromptaylor": ("tromp-taylor", None),
    "chinese": ("chinese", "simple"),
    "chineseogs": ("chinese", None),
    "chinesekgs": ("chinese", None),
    "japanese": ("japanese", None),
    "korean": ("japanese", None),
    "aga": ("aga", None),
    "bga": ("aga", None),
    "french": ("aga", None),
    "newzealand": ("new-zealand", None),
    "nz": ("new-zealand", None),
}
_UNPLAYABLE_NAMES = {"stonescoring": "stone scoring", "ancientarea": "stone scoring",
                     "ancientterritory": "territory scoring with a tax on every group",
                     "agabutton": "a button", "goe": "Spight ko", "ing": "Spight ko"}
_KO = {"SIMPLE": "simple", "POSITIONAL": "positional", "SITUATIONAL": "situational"}
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class ProtocolError(EngineError, ValueError):
    """A request that cannot be served: answered ``{"error": message}`` with its ``id`` and ``field`` if known."""

    def __init__(self, message: str, id: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.message, self.id, self.field = message, id, field

    def response(self) -> dict[str, Any]:
        reply: dict[str, Any] = {"error": self.message}
        if self.id is not None:
            reply["id"] = self.id
            reply["field"] = self.field or ""
        return reply


@dataclass(frozen=True)
class Action:
    """A special action (``query_version``, ``query_models``, ``clear_cache``, ``terminate``, ``terminate_all``): the
    request as sent,
    echoed back when done, and for the terminations the id and turn numbers they concern (None: all)."""

    name: str
    request: dict[str, Any]
    terminate_id: str | None = None
    turn_numbers: frozenset[int] | None = None


@dataclass(frozen=True)
class Turn:
    """One analysed position of a query: its turn number (0: before ``moves[0]``), game and priority."""

    number: int
    game: Game
    priority: int


@dataclass(frozen=True)
class Query:
    """An analysis query, parsed: its turns and how to search and report them.

    ``kept_out`` (``int[3, N*N+1]``, rows by colour; None: nothing), from ``avoidMoves`` / ``allowMoves``:
    the plies from the root within which each move is kept out of the search
    (:meth:`engine.Search.shape_root`); ``warnings`` are ``(field, message)``
    pairs to write before the results.
    """

    id: str
    turns: list[Turn]
    config: AnalysisConfig
    include_ownership: bool = False
    include_moves_ownership: bool = False
    include_policy: bool = False
    include_pv_visits: bool = False
    report_every: float | None = None
    kept_out: np.ndarray | None = None
    warnings: list[tuple[str, str]] = field(default_factory=list)


def encode(reply: Mapping[str, Any]) -> str:
    """One response line: compact JSON with sorted keys, as KataGo writes it."""
    return json.dumps(reply, separators=(",", ":"), sort_keys=True, allow_nan=False)


# ------------------------------------------------------------------ requests
def parse_request(line: str, config: AnalysisConfig) -> Action | Query:
    """The action or query a request line holds; :class:`ProtocolError` for anything else."""
    request = _load(line)
    if not isinstance(request, dict):
        raise ProtocolError(f"Request line was valid json but was not an object, ignoring: {line.strip()}")
    if not isinstance(request.get("id"), str):
        raise ProtocolError('Request must have a string "id" field')
    if "action" in request:
        return _parse_action(request)
    return _Reader(request, config).query()


def request_id(line: str) -> str | None:
    """The ``id`` of a request line, None where none can be read (to answer a request that failed)."""
    try:
        request = _load(line)
    except ProtocolError as exc:
        return exc.id
    ident = request.get("id") if isinstance(request, dict) else None
    return ident if isinstance(ident, str) else None


def _load(line: str) -> Any:
    """The JSON value of a request line. ProtocolError for a line that is not JSON (NaN and numbers out of a
    double's range included: they could not be written back), or that nests deeper than MAX_DEPTH, which is
    checked before parsing because the parser recurses once per level; that error has the line's id where
    the line without its deepest parts still holds one."""
    deep = _deep_spans(line)
    if deep:
        pieces, last = [], 0
        for start, end in deep:
            pieces += [line[last:start], "null"]
            last = end
        try:
            request = json.loads("".join(pieces) + line[last:])
        except ValueError:
            request = None
        ident = request.get("id") if isinstance(request, dict) else None
        raise ProtocolError(f"Request nests arrays and objects deeper than {MAX_DEPTH} levels, ignoring",
                            ident if isinstance(ident, str) else None)
    try:
        return json.loads(line, parse_constant=_no_constant, parse_float=_finite_float)
    except ValueError as exc:
        raise ProtocolError(f"{exc} - could not parse input line as json request: {line.strip()}") from None


def _deep_spans(line: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each outermost array or object in ``line`` at a depth beyond MAX_DEPTH, in order.

    Brackets inside strings do not count; a malformed line may count too deep, never too shallow, where the
    parser would read it."""
    spans: list[tuple[int, int]] = []
    depth, start = 0, 0
    for token in _TOKEN.finditer(line):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth == MAX_DEPTH + 1:
                start = token.start()
        elif bracket in "]}":
            if depth == MAX_DEPTH + 1:
                spans.append((start, token.end()))
            depth = max(depth - 1, 0)
    if depth > MAX_DEPTH:
        spans.append((start, len(line)))
    return spans


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:30]} is out of range")
    return value


def _parse_action(request: dict[str, Any]) -> Action:
    name, ident = request["action"], request["id"]
    if name not in ACTIONS:
        raise ProtocolError("'action' field must be 'query_version' or 'query_models' or 'clear_cache' or "
                            "'terminate' or 'terminate_all'")
    target = None
    if name == "terminate":
        target = request.get("terminateId")
        if not isinstance(target, str):
            raise ProtocolError('Requests for a terminate action must have a string "terminateId" field', ident,
                                "terminateId")
    turns = None
    if name in ("terminate", "terminate_all") and "turnNumbers" in request:
        numbers = request["turnNumbers"]
        if not isinstance(numbers, list) or not all(_is_int(n) for n in numbers):
            raise ProtocolError("If provided, must be an array of integers indicating turns to terminate", ident,
                                "turnNumbers")
        turns = frozenset(numbers)
    return Action(name, request, target, turns)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class _Reader:
    """Reads one query's fields in KataGo's order, raising ProtocolError for the first bad one."""

    def __init__(self, request: dict[str, Any], config: AnalysisConfig) -> None:
        self.request, self.id, self.config = request, request["id"], config
        self.warnings: list[tuple[str, str]] = []
        self.bonus = "0"  # the white handicap bonus, once the rules are read

    def fail(self, field_name: str, message: str) -> ProtocolError:
        return ProtocolError(message, self.id, field_name)

    def query(self) -> Query:
        request = self.request
        size = self.board_size()
        if "overrideSettings" in request:
            self.override(request["overrideSettings"])
        for key, low, high, message in (("maxVisits", 1, 1 << 50, "Must be an integer from 1 to 2^50"),
                                        ("analysisPVLen", 1, 1000, "Must be an integer from 1 to 1000")):
            if key in request:
                value = request[key]
                if not _is_int(value) or not low <= value <= high:
                    raise self.fail(key, message)
                self.config = replace(self.config, **{"visits" if key == "maxVisits" else "pv_len": value})
        for key, low, high, name in (("rootPolicyTemperature", 0.01, 100.0, "root_temperature"),
                                     ("rootFpuReductionMax", 0.0, 2.0, "root_fpu_reduction")):
            if key in request:
                value = request[key]
                if not _is_number(value) or not low <= value <= high:
                    raise self.fail(key, f"Must be a number from {low} to {high}")
                if name == "root_fpu_reduction":
                    self.config = replace(self.config, search=replace(self.config.search, root_fpu_reduction=value))
                else:
                    self.config = replace(self.config, root_temperature=float(value))
        flags = {key: self.boolean(key) for key in ("includeOwnership", "includeMovesOwnership", "includePolicy",
                                                    "includePVVisits")}
        report_every = None
        if "reportDuringSearchEvery" in request:
            value = request["reportDuringSearchEvery"]
            if not _is_number(value) or not 0.001 <= value <= 1e6:
                raise self.fail("reportDuringSearchEvery", "Must be number of seconds from 0.001 to 1000000")
            report_every = float(value)
        rules = self.rules(size)
        game, moves = self.setup(rules)
        turns = self.turns(game, moves)
        kept_out = self.kept_out(size)
        for key in _UNSUPPORTED:
            if self.request.get(key):
                self.warnings.append((key, "Not supported by this engine; ignored"))
        if self.config.warn_unused_fields:
            self.warnings += [(key, _UNUSED) for key in request if key not in _FIELDS]
        return Query(self.id, turns, self.config, flags["includeOwnership"], flags["includeMovesOwnership"],
                     flags["includePolicy"], flags["includePVVisits"], report_every, kept_out, self.warnings)

    def boolean(self, key: str) -> bool:
        value = self.request.get(key, False)
        if not isinstance(value, bool):
            raise self.fail(key, "Must be a boolean")
        return value

    def board_size(self) -> int:
        sizes = []
        for key in ("boardXSize", "boardYSize"):
            value = self.request.get(key)
            if not _is_int(value) or not 2 <= value <= MAX_BOARD:
                raise self.fail(key, _SIZE_ERROR)
            sizes.append(value)
        if sizes[0] != sizes[1]:
            raise self.fail("boardYSize", f"Rectangular boards are not supported: boardXSize is {sizes[0]} but "
                                          f"boardYSize is {sizes[1]}")
        return sizes[0]

    def override(self, settings: object) -> None:
        if not isinstance(settings, dict):
            raise self.fail("overrideSettings", "Must be an object")
        texts = {key: value if isinstance(value, str) else json.dumps(value) for key, value in settings.items()}
        try:
            self.config, unknown = apply_settings(self.config, texts)
        except ConfigError as exc:
            raise self.fail("overrideSettings", f"Could not set settings: {exc}") from None
        if unknown:
            self.warnings.append(("overrideSettings", "Unknown config params: " + ",".join(unknown)))

    def rules(self, size: int) -> Rules:
        value = self.request.get("rules", self.config.rules)
        if value is None:
            raise self.fail("rules", _RULES_ERROR)
        komi = self.request.get("komi")
        if komi is not None and (not _is_number(komi) or abs(komi) > 400 or komi * 2 != int(komi * 2)):
            raise self.fail("komi", "Must be an integer or half-integer from -400 to 400")
        bonus = self.request.get("whiteHandicapBonus")
        if bonus is not None and bonus not in HANDICAP_BONUS_RULES:
            raise self.fail("whiteHandicapBonus", 'Must be "0", "N" or "N-1"')
        try:
            rules, rules_bonus = parse_rules(value, size)
        except EngineError as exc:
            raise self.fail("rules", str(exc)) from None
        self.bonus = bonus if bonus is not None else rules_bonus
        return rules if komi is None else replace(rules, komi=float(komi))

    def stones(self, key: str, size: int) -> list[tuple[Color, int]]:
        items = self.request.get(key, [])
        if not isinstance(items, list):
            raise self.fail(key, _MOVES_ERROR)
        found = []
        for item in items:
            if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
                raise self.fail(key, _MOVES_ERROR)
            found.append((self.player(key, item[0], f"Could not parse player: {item[0]}"),
                          self.vertex(key, item[1], size)))
        return found

    def player(self, key: str, text: object, message: str = 'Must be "b" or "w"') -> Color:
        try:
            return Color.parse(text) if isinstance(text, str) else Color.parse("")
        except ValueError:
            raise self.fail(key, message) from None

    def vertex(self, key: str, text: str, size: int) -> int:
        try:
            return gtp_to_action(text, size)
        except EngineError:
            raise self.fail(key, f"Could not parse board location: {text}") from None

    def setup(self, rules: Rules) -> tuple[Game, list[tuple[Color, int]]]:
        if "moves" not in self.request:
            raise self.fail("moves", "Must specify an array of [player,location] pairs")
        moves = self.stones("moves", rules.size)
        stones = self.stones("initialStones", rules.size)
        if any(action == rules.pass_action for _color, action in stones):
            raise self.fail("initialStones", "Could not parse board location: pass")
        first = moves[0][0] if moves else Color.BLACK
        to_play = self.player("initialPlayer", self.request["initialPlayer"]) if "initialPlayer" in self.request \
            else first
        black = [a for c, a in stones if c == BLACK]
        white = [a for c, a in stones if c == WHITE]
        handicap = len(black) if not white and len(black) >= 2 else 0
        rules = with_handicap_bonus(rules, handicap, self.bonus)
        game = Game(rules)
        try:
            game.setup(black=black, white=white, to_play=to_play)
        except (EngineError, ValueError) as exc:
            raise self.fail("initialStones", f"Bad initial stones: {exc}") from None
        return game, moves

    def turns(self, game: Game, moves: list[tuple[Color, int]]) -> list[Turn]:
        request = self.request
        wanted = request.get("analyzeTurns", [len(moves)])
        if not isinstance(wanted, list) or not all(_is_int(t) for t in wanted):
            raise self.fail("analyzeTurns", "Must specify an array of integers indicating turns to analyze")
        for turn in wanted:
            if not 0 <= turn <= len(moves):
                raise self.fail("analyzeTurns", f"Invalid turn number: {turn}")
        chosen = dict(zip(wanted, self.priorities(wanted)))  # a turn asked for twice is analysed once
        by_turn: dict[int, Game] = {}
        for number, (color, action) in enumerate(moves):
            if number in chosen:
                by_turn[number] = game.copy()
            try:
                game.play(action, color)
            except EngineError:
                raise self.fail("moves", f"Illegal move {number}: {action_to_gtp(action, game.rules.size)}") from None
        by_turn[len(moves)] = game
        return [Turn(number, by_turn[number], chosen[number]) for number in sorted(chosen)]

    def priorities(self, wanted: list[int]) -> list[int]:
        request = self.request
        if "priority" in request and "priorities" in request:
            raise self.fail("priority", "Cannot specify both priority and priorities")
        if "priorities" in request:
            values = request["priorities"]
            if "analyzeTurns" not in request:
                raise self.fail("priorities", "Can only specify when also specifying analyzeTurns")
            if not isinstance(values, list) or not all(_is_int(p) for p in values):
                raise self.fail("priorities", "Must specify an array of integers indicating priorities")
            if len(values) != len(wanted):
                raise self.fail("priorities", "Must be of matching length to analyzeTurns")
            return values
        priority = request.get("priority", 0)
        if not _is_int(priority):
            raise self.fail("priority", "Must be an integer")
        return [priority] * len(wanted)

    def kept_out(self, size: int) -> np.ndarray | None:
        request = self.request
        if "avoidMoves" in request and "allowMoves" in request:
            raise self.fail("allowMoves", "Cannot specify both allowMoves and avoidMoves")
        key = "avoidMoves" if "avoidMoves" in request else "allowMoves"
        entries = request.get(key, [])
        shape = "Must be a list of dicts with subfields 'player', 'moves', 'untilDepth'"
        if not isinstance(entries, list):
            raise self.fail(key, shape)
        until = np.zeros((3, size * size + 1), dtype=np.int64)
        players: set[Color] = set()
        for entry in entries:
            if not (isinstance(entry, dict) and {"player", "moves", "untilDepth"} <= set(entry)
                    and isinstance(entry["moves"], list) and _is_int(entry["untilDepth"])
                    and entry["untilDepth"] >= 1):
                raise self.fail(key, shape)
            color = self.player(key, entry["player"])
            actions = [self.vertex(key, m, size) if isinstance(m, str) else self.vertex(key, str(m), size)
                       for m in entry["moves"]]
            if key == "allowMoves":
                if color in players:
                    raise self.fail(key, "Currently allowMoves only allows at most one entry per player")
                until[color] = entry["untilDepth"]
                until[color, actions] = 0
            else:
                until[color, actions] = entry["untilDepth"]
            players.add(color)
        return until if players else None


def parse_rules(value: object, size: int) -> tuple[Rules, str]:
    """Go rules on an N x N board and the white handicap bonus ("0", "N" or "N-1") from KataGo's rules field:
    a shorthand name (``"japanese"``, ``"chinese-ogs"``, ``"tromp-taylor"``, ...) or a JSON object with
    ``ko``, ``scoring``, ``tax``, ``suicide``, ``hasButton``, ``whiteHandicapBonus``, ``friendlyPassOk``, ``komi``.
    Raises RulesError for rules the engine cannot play."""
    if isinstance(value, str):
        name = "".join(ch for ch in value.lower() if ch not in " -_")
        if name in _UNPLAYABLE_NAMES:
            raise RulesError(f"Could not parse rules: {value} (rules with {_UNPLAYABLE_NAMES[name]} are not "
                             f"supported)")
        if name not in _RULES_NAMES:
            raise RulesError(f"Could not parse rules: {value}")
        preset, ko = _RULES_NAMES[name]
        rules = Rules.go(size, preset)
        return (rules if ko is None else replace(rules, ko=ko)), handicap_bonus_rule(rules)  # the preset's bonus
    if not isinstance(value, dict):
        raise RulesError(_RULES_ERROR)
    return _rules_object(value, size)


def _rules_object(value: dict[str, Any], size: int) -> tuple[Rules, str]:
    known = {"ko", "scoring", "tax", "suicide", "hasButton", "whiteHandicapBonus", "friendlyPassOk", "komi"}
    unknown = set(value) - known
    if unknown:
        raise RulesError(f"Could not parse rules: unknown keys {', '.join(sorted(unknown))}")
    ko = str(value.get("ko", "POSITIONAL")).upper()
    scoring = str(value.get("scoring", "AREA")).upper()
    tax = str(value.get("tax", "SEKI" if scoring == "TERRITORY" else "NONE")).upper()
    bonus = str(value.get("whiteHandicapBonus", "0"))
    if ko not in _KO:
        raise RulesError(f"Could not parse rules: ko {value.get('ko')!r} is not supported (SIMPLE, POSITIONAL, "
                         f"SITUATIONAL)")
    if (scoring, tax) not in (("AREA", "NONE"), ("TERRITORY", "SEKI")):
        raise RulesError(f"Could not parse rules: scoring {scoring} with tax {tax} is not supported (AREA with tax "
                         f"NONE, TERRITORY with tax SEKI)")
    if value.get("hasButton", False) is not False:
        raise RulesError("Could not parse rules: hasButton is not supported")
    if not isinstance(value.get("suicide", False), bool) or bonus not in HANDICAP_BONUS_RULES:
        raise RulesError("Could not parse rules: suicide must be a boolean and whiteHandicapBonus 0, N or N-1")
    rules = Rules.go(size, "japanese" if scoring == "TERRITORY" else "chinese")
    rules = rules.with_options({"ko": _KO[ko], "suicide": "yes" if value.get("suicide", False) else "no"})
    if "komi" in value:
        komi = value["komi"]
        if not _is_number(komi):
            raise RulesError("Could not parse rules: komi must be a number")
        rules = replace(rules, komi=float(komi))
    return rules, bonus


# ----------------------------------------------------------------- responses
def _round(value: float) -> float:
    return round(float(value), PRECISION) + 0.0  # + 0.0: no -0.0 from a flipped zero


def _points(values: np.ndarray) -> list[float]:
    return [_round(v) for v in values]


def human_policy(level: Level, game: Game, result: SearchResult) -> list[float]:
    """``humanPolicy``: the distribution ``level``'s move is drawn from after the search of ``game`` (``N*N+1``
    numbers, rows from the top, pass last, 0 on every move the level would not play), which KaTrain's
    human-like AIs draw their move from. Where the opponent passed and a pass ends a game won on a settled board
    it is that pass alone, as the player's own rule has it (:func:`~engine.search.passing.pass_wins`): people
    know when a game is over, and two such levels end their game."""
    if pass_wins(game, result):
        policy = np.zeros(game.rules.num_actions, dtype=np.float32)
        policy[game.rules.pass_action] = 1.0
        return _points(policy)
    return _points(level.move_policy(result))


def analysis_response(query: Query, turn: Turn, result: SearchResult, search: Search,
                      policy: np.ndarray | None, during: bool) -> dict[str, Any]:
    """The response for a searched turn: ``moveInfos``, ``rootInfo`` and what the query asked to include.

    ``policy`` is the network's policy of the root (``float32[N*N+1]``), written
    with -1 on the illegal actions when the query asked for it.
    """
    game, size = turn.game, turn.game.rules.size
    to_play = game.to_play
    perspective = query.config.perspective
    flip = (perspective == "BLACK" and to_play == WHITE) or (perspective == "WHITE" and to_play == BLACK)
    sign = -1.0 if flip else 1.0

    def view(winrate: float) -> float:
        return 1.0 - winrate if flip else winrate

    infos = []
    for order, action in enumerate(candidates(result)):
        stats = move_stats(result, action)
        line = search.child_pv(action, query.config.pv_len)
        info: dict[str, Any] = {"move": action_to_gtp(action, size), "visits": stats.visits, "order": order,
                                "winrate": _round(view(stats.winrate)), "utility": _round(sign * stats.utility),
                                "lcb": _round(view(stats.lcb)), "prior": _round(stats.prior),
                                "pv": [action_to_gtp(a, size) for a in line]}
        if stats.score_mean is not None and stats.score_stdev is not None:
            info.update(scoreLead=_round(sign * stats.score_mean), scoreMean=_round(sign * stats.score_mean),
                        scoreStdev=_round(stats.score_stdev))
        if query.include_pv_visits:
            info["pvVisits"] = search.line_visits(line)
        if query.include_moves_ownership:
            owned = search.ownership(action)
            if owned is not None:
                info["ownership"] = _points(sign * owned)
        infos.append(info)
    value = float(result.value)
    root: dict[str, Any] = {"currentPlayer": to_play.letter, "visits": int(search.root_visits),
                            "winrate": _round(view(min(1.0, max(0.0, (value + 1) / 2)))),
                            "utility": _round(sign * value)}
    if result.score_mean is not None and result.score_stdev is not None:
        root.update(scoreLead=_round(sign * result.score_mean), scoreStdev=_round(result.score_stdev))
    reply: dict[str, Any] = {"id": query.id, "turnNumber": turn.number, "isDuringSearch": during,
                             "moveInfos": infos, "rootInfo": root}
    if query.include_ownership and result.ownership is not None:
        reply["ownership"] = _points(sign * result.ownership)
    if query.include_policy and policy is not None:
        legal = game.legal_mask()
        reply["policy"] = [_round(p) if ok else -1 for p, ok in zip(policy, legal)]
    return reply


def model_entry(path: str | None, evaluator: object, max_batch: int) -> dict[str, Any]:
    """A loaded network as ``query_models`` describes it in KataGo's fields: the file's name, its name without
    the suffix, the most positions one network call takes, no human SL profile, the model format's version and
    whether it computes in half precision (``"true"`` / ``"false"``). ``path`` None: no network (uniform
    priors, or random playouts)."""
    name = "none" if path is None else PurePath(path).name
    half = getattr(evaluator, "dtype_name", "fp32") in ("fp16", "bf16")
    return {"name": name, "internalName": PurePath(name).stem if path is not None else name,
            "maxBatchSize": max_batch, "usesHumanSLProfile": False, "version": FORMAT_VERSION,
            "usingFP16": "true" if half else "false"}


def no_results(query_id: str, turn: int) -> dict[str, Any]:
    """The response for a turn terminated before it was searched at all."""
    return {"id": query_id, "turnNumber": turn, "isDuringSearch": False, "noResults": True}
