"""Reading and writing SGF game records (FF[4]) for Go (``GM[1]``), Gomoku (``GM[4]``) and Chain Reaction.

sgfmill parses the file into raw property values; every point is then
converted by :mod:`engine.core.coords` (``sgf_to_action`` / ``action_to_sgf``), so
both games and all board sizes up to 25 share one path. Reading::

    record = load_sgf_file("game.sgf")    # GameRecord: rules, setup, moves, result
    game = record.replay(upto=40)         # a Game after the first 40 moves, each one checked

``GameRecord.from_game(game)`` is the record of a game, so that a game is
replayed under other rules (GTP ``komi``) by the same checked path.

Writing: ``dump_sgf(game)`` returns the text of a record that loads back to the
same rules, setup stones, moves and final position.

Conventions:

- Only the main line is read (the first variation at every branch).
- Setup stones (``AB`` / ``AW`` / ``AE``) are honoured in the root and in any
  node before the first move, applied node by node; setup after the first move
  is not supported and raises :class:`~engine.core.types.SGFError` when loading.
- The side to move after the setup is ``PL``, else the colour of the first
  move, else black (white after a handicap). ``HA[n]`` with exactly ``n >= 2``
  black setup stones, no white ones and white to move is replayed as a
  handicap (``Game.place_handicap``); any other setup goes through ``Game.setup``.
- ``RU`` names a preset (``Chinese``, ``Japanese``, ``Korean``, ``AGA``, ``NZ``,
  ``Tromp-Taylor``; ``freestyle``, ``standard``, ``renju`` for Gomoku) or is a
  rules string as :meth:`Rules.parse` reads it; anything else falls back to
  Chinese (Go) or freestyle (Gomoku) with a logged warning. ``KM`` overrides the
  preset's komi; without ``KM`` the preset's komi applies.
- A missing ``SZ`` means 19 for Go, 15 for Gomoku and 5 for Chain Reaction.
- ``RE`` is read by :meth:`Outcome.from_sgf`; in Gomoku a win without a
  reason (``B+``) is a five and ``0`` a full-board draw, in Chain Reaction an
  elimination and a draw at the move cap.
- Chain Reaction has no number in SGF's list of games: the engine writes and
  reads ``GM[1000]`` (:data:`CHAIN_REACTION_GM`), a number the list will not
  reach, with the rules string in ``RU``; a move is an orb added to a cell, and
  a setup stone one orb. A resignation is kept
  in :attr:`GameRecord.result`; replaying does not resign, so the replayed
  game can be continued (GTP ``loadsgf``).

Every problem with the data, from bytes that are not SGF to an illegal move,
raises :class:`~engine.core.types.SGFError` with a message that says what and where;
so do a file larger than :data:`MAX_SGF_BYTES` and a main line longer than
:data:`MAX_RECORD_MOVES` moves.
"""

from __future__ import annotations

import codecs
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import metadata

from sgfmill import sgf_grammar

from engine.core.coords import action_to_gtp, action_to_sgf, sgf_to_action
from engine.core.game import Game, Move
from engine.core.position import END_REASONS
from engine.core.rules import CHAIN_REACTION, MAX_SIZE, MIN_SIZES, Rules
from engine.core.types import BLACK, EMPTY, WHITE, Color, EngineError, IllegalMoveError, Outcome, SGFError

__all__ = ["GameRecord", "load_sgf", "load_sgf_file", "dump_sgf", "MAX_SGF_BYTES", "MAX_RECORD_MOVES",
           "CHAIN_REACTION_GM"]

log = logging.getLogger(__name__)

MAX_SGF_BYTES = 16 << 20
"""Largest SGF file read (a long game with comments and variations takes well under a megabyte)."""
MAX_RECORD_MOVES = 10_000
"""Longest main line read: ten times the longest real games, and the replay of a longer one takes seconds."""

CHAIN_REACTION_GM = 1000
"""``GM`` of a Chain Reaction record: a private number, outside the SGF list of games."""
_GAMES = {1: "go", 4: "gomoku", CHAIN_REACTION_GM: CHAIN_REACTION}
_GAME_NUMBERS = {game: number for number, game in _GAMES.items()}
_DEFAULT_SIZE = {"go": 19, "gomoku": 15, CHAIN_REACTION: 5}
# RU spellings found in the wild that Rules.parse does not know (keys are lower-cased, single-spaced).
_RU_NAMES = {
    "cn": "chinese",
    "jp": "japanese",
    "new zealand": "new-zealand",
    "newzealand": "new-zealand",
    "tromp taylor": "tromp-taylor",
    "tromptaylor": "tromp-taylor",
    "gomoku": "freestyle",
    "free": "freestyle",
    "free-style": "freestyle",
}
_SETUP = (("AE", EMPTY), ("AB", BLACK), ("AW", WHITE))
# Properties dump_sgf derives from the game; extra root properties may not replace them.
_DERIVED = frozenset({"FF", "GM", "CA", "SZ", "KM", "RU", "HA", "AB", "AW", "AE", "PL", "B", "W"})

Properties = dict[str, list[bytes]]


@dataclass(frozen=True)
class GameRecord:
    """The main line of an SGF record, with points as actions (``N*N`` is pass).

    ``setup_black`` / ``setup_white`` are the stones on the board before the
    first move (all setup nodes applied); ``handicap`` is ``HA`` as written
    (0 if absent). ``comments`` has one entry per move (``None`` where the
    move's node has no ``C``); ``comment`` is the root's. ``properties`` holds
    every root property's values as text. ``territory`` holds the ``TB`` and
    ``TW`` markers of the main line's last node (black's and white's territory,
    dead stones included, as GNU Go and CGoban mark a scored game), or None
    when that node has neither.
    """

    rules: Rules
    moves: tuple[Move, ...] = ()
    setup_black: tuple[int, ...] = ()
    setup_white: tuple[int, ...] = ()
    handicap: int = 0
    to_play: Color | None = None
    result: Outcome | None = None
    black_name: str | None = None
    white_name: str | None = None
    comment: str | None = None
    comments: tuple[str | None, ...] = ()
    properties: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    territory: tuple[tuple[int, ...], tuple[int, ...]] | None = None

    @property
    def is_handicap(self) -> bool:
        """True when the setup is ``handicap`` black stones placed as a handicap (white moves next)."""
        return self.handicap >= 2 and len(self.setup_black) == self.handicap and not self.setup_white

    def start_color(self) -> Color:
        """The side to move after the setup.

        ``PL`` if given, else the first move's colour, else black (white after a handicap).
        """
        if self.to_play is not None:
            return self.to_play
        if self.moves:
            return self.moves[0].color
        return Color.WHITE if self.is_handicap else Color.BLACK

    @classmethod
    def from_game(cls, game: Game) -> "GameRecord":
        """The rules, setup and moves of ``game``: :meth:`replay` plays it again (with ``play_on``)."""
        return cls(rules=game.rules, moves=tuple(game.moves),
                   setup_black=tuple(m.action for m in game.setup_stones if m.color == Color.BLACK),
                   setup_white=tuple(m.action for m in game.setup_stones if m.color == Color.WHITE),
                   handicap=game.handicap, to_play=game.start_to_play)

    def replay(self, upto: int | None = None, *, play_on: bool = False) -> Game:
        """A Game with the setup and the first ``upto`` moves (default all) played and checked.

        ``upto`` counts moves, passes included, and is clipped to the record's
        length; GTP ``loadsgf FILE N`` (the position before move N) is
        ``upto=N - 1``. ``play_on``: moves after two passes or the move cap go
        on (:meth:`Game.play_on`), as in GTP; without it they are illegal.
        Raises SGFError naming the first illegal move.
        """
        if upto is not None and upto < 0:
            raise ValueError(f"upto must be >= 0, not {upto}")
        game = Game(self.rules)
        self._set_up(game)
        for number, move in enumerate(self.moves[:upto], 1):
            if play_on:
                game.play_on()
            try:
                game.play(move.action, move.color)
            except IllegalMoveError as exc:
                vertex = action_to_gtp(move.action, self.rules.size)
                raise SGFError(f"move {number} ({move.color.letter} {vertex}) is illegal: {exc.reason}") from exc
        return game

    def _set_up(self, game: Game) -> None:
        color = self.start_color()
        try:
            if self.is_handicap and color == Color.WHITE:
                game.place_handicap(self.setup_black)
            elif self.setup_black or self.setup_white or color != Color.BLACK:
                game.setup(self.setup_black, self.setup_white, to_play=color)
        except EngineError as exc:
            raise SGFError(f"bad setup stones: {exc}") from exc
        if self.rules.game == "go":
            starved = (game.position.board() != EMPTY) & (game.position.liberties() == 0)
            if starved.any():
                where = action_to_gtp(int(starved.reshape(-1).argmax()), self.rules.size)
                raise SGFError(f"bad setup stones: the chain at {where} has no liberties")


# ------------------------------------------------------------------ loading
def load_sgf_file(path: str | os.PathLike[str]) -> GameRecord:
    """Read the first game of the SGF file at ``path`` (see :func:`load_sgf`). A regular file of at most
    :data:`MAX_SGF_BYTES`: a device or a pipe (which could block or never end) and a huge file are refused."""
    if os.path.exists(path) and not os.path.isfile(path):
        raise SGFError(f"cannot read {os.fspath(path)!r}: not a regular file")
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SGF_BYTES + 1)
    except OSError as exc:
        raise SGFError(f"cannot read {os.fspath(path)!r}: {exc.strerror or exc}") from exc
    if len(data) > MAX_SGF_BYTES:
        raise SGFError(f"{os.fspath(path)!r} is larger than {MAX_SGF_BYTES >> 20} MiB: not a game record")
    return load_sgf(data)


def load_sgf(data: bytes | str) -> GameRecord:
    """Parse the first game in SGF ``data`` into a GameRecord (nothing is replayed yet).

    Bytes are decoded with the ``CA`` charset (UTF-8, then ISO-8859-1, when
    absent); a str is taken as already decoded.
    """
    if isinstance(data, str):
        raw, forced = data.encode("utf-8"), "utf-8"
    elif isinstance(data, (bytes, bytearray, memoryview)):
        raw, forced = bytes(data), None
    else:
        raise TypeError(f"load_sgf takes bytes or str, not {type(data).__name__}")
    try:
        tree = sgf_grammar.parse_sgf_game(raw)
    except ValueError as exc:
        raise SGFError(f"not a readable SGF record: {exc}") from exc
    nodes = list(sgf_grammar.main_sequence_iter(tree))
    if len(nodes) > MAX_RECORD_MOVES + 1:
        raise SGFError(f"the main line has {len(nodes)} nodes: records of more than {MAX_RECORD_MOVES} moves are "
                       f"not read")
    root = nodes[0]
    decode = _decoder(forced or _charset(root))
    rules = _read_rules(root, decode)
    black, white, moves, comments = _read_main_line(nodes, rules.size, decode)
    result_text = _text(root, "RE", decode, simple=True)
    return GameRecord(
        rules=rules,
        moves=tuple(moves),
        setup_black=tuple(sorted(black)),
        setup_white=tuple(sorted(white)),
        handicap=_handicap(root, decode, rules.num_points),
        to_play=_to_play(root, decode),
        result=_read_result(result_text, rules.game),
        black_name=_text(root, "PB", decode, simple=True),
        white_name=_text(root, "PW", decode, simple=True),
        comment=_text(root, "C", decode),
        comments=tuple(comments),
        properties={key: tuple(decode(sgf_grammar.text_value(v)) for v in values) for key, values in root.items()},
        territory=_read_territory(nodes[-1], rules.size),
    )


def _read_result(text: str | None, game: str) -> Outcome | None:
    """``RE`` as an Outcome; outside Go a bare ``B+`` is the game's win (a five, an elimination) and ``0`` its
    draw (a full board, the move cap)."""
    outcome = None if text is None else Outcome.from_sgf(text)
    if game not in END_REASONS or outcome is None or outcome.reason != "score":
        return outcome
    win, draw = END_REASONS[game]
    if outcome.winner is None:
        return replace(outcome, reason=draw)
    return replace(outcome, reason=win) if outcome.margin is None else outcome


def _charset(root: Properties) -> str | None:
    if "CA" not in root:
        return None
    name = root["CA"][0].decode("ascii", "replace").strip()
    try:
        b"a\xff".decode(name, "replace")   # a text encoding (not rot13 or zlib) that replaces what it cannot read
        return codecs.lookup(name).name
    except (LookupError, ValueError):
        log.warning("unknown SGF charset CA[%s]; reading the text as UTF-8", name)
        return None


def _decoder(charset: str | None) -> Callable[[bytes], str]:
    def decode(value: bytes) -> str:
        if charset is not None:
            return value.decode(charset, "replace")
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value.decode("iso-8859-1")
    return decode


def _text(node: Properties, key: str, decode: Callable[[bytes], str], simple: bool = False) -> str | None:
    if key not in node:
        return None
    value = node[key][0]
    return decode(sgf_grammar.simpletext_value(value) if simple else sgf_grammar.text_value(value))


def _number(node: Properties, key: str, decode: Callable[[bytes], str]) -> int | None:
    text = _text(node, key, decode, simple=True)
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        raise SGFError(f"bad {key}[{text}]: expected a whole number") from None


def _handicap(root: Properties, decode: Callable[[bytes], str], num_points: int) -> int:
    stones = _number(root, "HA", decode) or 0
    if not 0 <= stones < num_points:
        raise SGFError(f"bad HA[{stones}]: expected 0..{num_points - 1} stones")
    return stones


def _to_play(root: Properties, decode: Callable[[bytes], str]) -> Color | None:
    text = _text(root, "PL", decode, simple=True)
    if text is None:
        return None
    try:
        return Color.parse(text)
    except ValueError:
        raise SGFError(f"bad PL[{text}]: expected B or W") from None


def _read_rules(root: Properties, decode: Callable[[bytes], str]) -> Rules:
    number = _number(root, "GM", decode)
    number = 1 if number is None else number
    if number not in _GAMES:
        raise SGFError(f"GM[{number}] is not supported: only Go (GM[1]), Gomoku (GM[4]) and Chain Reaction "
                       f"(GM[{CHAIN_REACTION_GM}]) are")
    game = _GAMES[number]
    size = _read_size(root, decode, game)
    rules = _rules_for(game, size, _text(root, "RU", decode, simple=True))
    komi_text = _text(root, "KM", decode, simple=True)
    if game == "go" and komi_text is not None:
        try:
            rules = replace(rules, komi=float(komi_text))
        except ValueError as exc:
            raise SGFError(f"bad KM[{komi_text}]: {exc}") from None
    return rules


def _read_size(root: Properties, decode: Callable[[bytes], str], game: str) -> int:
    text = _text(root, "SZ", decode, simple=True)
    if text is None:
        return _DEFAULT_SIZE[game]
    columns, _, rows = text.partition(":")
    if rows and rows.strip() != columns.strip():
        raise SGFError(f"SZ[{text}]: only square boards are supported")
    low = MIN_SIZES[game]
    try:
        size = int(columns)
    except ValueError:
        raise SGFError(f"bad SZ[{text}]: expected a board size {low}..{MAX_SIZE}") from None
    if not low <= size <= MAX_SIZE:
        raise SGFError(f"SZ[{text}]: {game} board size must be {low}..{MAX_SIZE}")
    return size


def _rules_for(game: str, size: int, ru: str | None) -> Rules:
    """The rules an ``RU`` value names for ``game`` on a ``size`` board."""
    default = Rules.default(game, size)
    if ru is None or not ru.strip():
        return default
    key = " ".join(ru.lower().replace("_", " ").split())
    try:
        rules = Rules.parse(_RU_NAMES.get(key, key), size=size)
    except ValueError:  # RulesError, or int() of a bad size= option
        rules = None
    if rules is None or rules.game != game:
        log.warning("unknown %s rules RU[%s]; using %s", game, ru, default.preset)
        return default
    return rules if rules.size == size else rules.resized(size)


def _read_main_line(nodes: list[Properties], size: int, decode: Callable[[bytes], str]
                    ) -> tuple[set[int], set[int], list[Move], list[str | None]]:
    """Setup stones before the first move, then the moves and their comments."""
    stones: dict[int, int] = {}
    moves: list[Move] = []
    comments: list[str | None] = []
    for node in nodes:
        if any(key in node for key, _ in _SETUP):
            if moves:
                raise SGFError(f"setup stones (AB/AW/AE) after move {len(moves)} are not supported")
            _apply_setup(node, size, stones)
        colors = [color for color in (Color.BLACK, Color.WHITE) if color.letter in node]
        if len(colors) == 2:
            raise SGFError(f"move {len(moves) + 1}: a node holds both a B and a W move")
        if colors:
            moves.append(_read_move(node, colors[0], size, len(moves) + 1))
            comments.append(_text(node, "C", decode))
    black = {a for a, c in stones.items() if c == BLACK}
    white = {a for a, c in stones.items() if c == WHITE}
    return black, white, moves, comments


def _read_move(node: Properties, color: Color, size: int, number: int) -> Move:
    values = node[color.letter]
    if len(values) != 1:
        raise SGFError(f"move {number}: {color.letter} has {len(values)} values")
    text = values[0].decode("ascii", "replace")
    try:
        return Move(color, sgf_to_action(text, size))
    except EngineError as exc:
        raise SGFError(f"move {number} ({color.letter}[{text}]): {exc}") from None


def _apply_setup(node: Properties, size: int, stones: dict[int, int]) -> None:
    """Apply one node's AE, AB, AW to ``stones`` (action -> colour); a point may appear once per node."""
    seen: set[int] = set()
    for key, color in _SETUP:
        for value in node.get(key, ()):
            for action in _point_list(value.decode("ascii", "replace"), size, key):
                if action in seen:
                    raise SGFError(f"{key}: point {action_to_sgf(action, size)} is set up twice in one node")
                seen.add(action)
                if color == EMPTY:
                    stones.pop(action, None)
                else:
                    stones[action] = color


def _point_list(text: str, size: int, key: str) -> list[int]:
    """The actions of one point-list value: a point or a compressed ``aa:cc`` rectangle."""
    corners = text.split(":")
    try:
        if len(corners) > 2:
            raise SGFError(f"{key}[{text}]: expected a point or a rectangle aa:cc")
        actions = [sgf_to_action(corner, size) for corner in corners]
    except EngineError as exc:
        raise SGFError(f"{key}[{text}]: {exc}") from None
    if size * size in actions:
        raise SGFError(f"{key}[{text}]: needs points on the board, not a pass")
    (r1, c1), (r2, c2) = divmod(actions[0], size), divmod(actions[-1], size)
    return [r * size + c for r in range(min(r1, r2), max(r1, r2) + 1) for c in range(min(c1, c2), max(c1, c2) + 1)]


def _read_territory(node: Properties, size: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The ``TB`` and ``TW`` actions of ``node`` (single points only), or None when it has neither."""
    if "TB" not in node and "TW" not in node:
        return None
    marked = []
    for key in ("TB", "TW"):
        actions: list[int] = []
        for value in node.get(key, ()):
            text = value.decode("ascii", "replace")
            if ":" in text:
                raise SGFError(f"{key}[{text}]: a territory marker must be one point on the board")
            actions += _point_list(text, size, key)
        marked.append(tuple(actions))
    return marked[0], marked[1]


# ------------------------------------------------------------------ writing
def dump_sgf(game: Game, *, black_name: str | None = None, white_name: str | None = None,
             result: Outcome | str | None = None, comments: Sequence[str | None] | None = None,
             properties: Mapping[str, str] | None = None,
             territory: tuple[Iterable[int], Iterable[int]] | None = None) -> str:
    """The SGF text (FF[4], UTF-8) of ``game``: rules, setup or handicap, moves and result.

    ``result`` defaults to ``game.outcome()`` once the game is over (a str is
    written as given, e.g. ``"?"``). ``comments`` holds at most one entry per
    move (``None`` for none). ``properties`` adds root properties (``DT``,
    ``GN``, ``C``, ...); it may not replace ones derived from the game such as
    ``SZ``, ``KM``, ``RU``, ``AB`` or ``PL``. ``territory`` (black's points,
    white's points) is written as ``TB`` / ``TW`` on the last node.
    """
    if comments is not None and len(comments) > len(game.moves):
        raise ValueError(f"{len(comments)} comments for {len(game.moves)} moves")
    root = _root_properties(game)
    if result is None and game.is_over:
        result = game.outcome()
    for key, value in (("PB", black_name), ("PW", white_name),
                       ("RE", result.to_sgf() if isinstance(result, Outcome) else result)):
        if value is not None:
            root[key] = [_escape(value)]
    for key, value in (properties or {}).items():
        if key in _DERIVED or not sgf_grammar.is_valid_property_identifier(key):
            raise ValueError(f"root property {key!r} cannot be set here")
        root[key] = [_escape(value)]
    tree = sgf_grammar.Coarse_game_tree()
    tree.sequence = [root] + _move_nodes(game, comments or ())
    for key, actions in zip(("TB", "TW"), territory or ()):
        points = [action_to_sgf(a, game.rules.size).encode() for a in sorted(actions)]
        if points:
            tree.sequence[-1][key] = points
    return sgf_grammar.serialise_game_tree(tree).decode("utf-8")


def _root_properties(game: Game) -> Properties:
    rules = game.rules
    root: Properties = {
        "FF": [b"4"],
        "GM": [str(_GAME_NUMBERS[rules.game]).encode()],
        "CA": [b"UTF-8"],
        "AP": [b"engine:" + _version().encode("ascii", "replace")],
        "SZ": [str(rules.size).encode()],
        "RU": [_escape(_rules_text(rules))],
    }
    if rules.game == "go":
        root["KM"] = [f"{rules.komi:g}".encode()]
    black = [m.action for m in game.setup_stones if m.color == Color.BLACK]
    white = [m.action for m in game.setup_stones if m.color == Color.WHITE]
    if game.handicap:
        root["HA"] = [str(game.handicap).encode()]
    for key, actions in (("AB", black), ("AW", white)):
        if actions:
            root[key] = [action_to_sgf(a, rules.size).encode() for a in actions]
    default = Color.WHITE if game.handicap else Color.BLACK
    if not game.moves and game.to_play != default:
        root["PL"] = [game.to_play.letter.encode()]
    return root


def _move_nodes(game: Game, comments: Sequence[str | None]) -> list[Properties]:
    nodes: list[Properties] = []
    for index, move in enumerate(game.moves):
        node: Properties = {move.color.letter: [action_to_sgf(move.action, game.rules.size).encode()]}
        if index < len(comments) and comments[index] is not None:
            node["C"] = [_escape(comments[index])]
        nodes.append(node)
    return nodes


def _rules_text(rules: Rules) -> str:
    """A preset name where it says everything, else the full rules string (which :func:`load_sgf` reads)."""
    if rules.game == "go":
        plain = bool(rules.preset) and rules == Rules.go(rules.size, rules.preset, rules.komi)
    elif rules.game == "gomoku":
        plain = rules == Rules.gomoku(rules.size, 5, rules.variant)
    else:
        plain = rules == Rules.chain_reaction(rules.size)
    return rules.preset if plain else str(rules)


def _escape(text: str) -> bytes:
    return sgf_grammar.escape_text(text.encode("utf-8"))


def _version() -> str:
    try:
        return metadata.version("engine")
    except metadata.PackageNotFoundError:
        return "unknown"
