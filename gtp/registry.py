"""The one table of GTP commands: exact names, handlers and how each answers.

A handler is ``handler(context, request) -> reply``. It returns the response
text (``str``) or, for the analysis commands, a :class:`Stream` that the
session runs in a background thread while it streams the lines on stdout.
Handlers never print, and signal failure by raising (the session turns any
exception into ``? message``). The registry also answers ``list_commands``
and ``known_command``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["Request", "Stream", "CommandSpec", "Registry"]


@dataclass(frozen=True)
class Request:
    """What a handler receives besides its context: the arguments and the interrupt check.

    ``interrupted()`` becomes true when the controller asks the running command
    to stop (GoGui's ``# interrupt``); long searches poll it.
    """

    args: tuple[str, ...]
    interrupted: Callable[[], bool] = lambda: False


@dataclass(frozen=True)
class Stream:
    """A streamed response: ``run(stop, emit)`` searches and calls ``emit(line)`` for each line.

    ``run`` returns a last line (``play D4``) or None. With ``until_next_line``
    the stream stops when the next input line arrives and the response stays
    open until then (``lz-analyze``); otherwise it ends when ``run`` returns
    (``lz-genmove_analyze``) and only an interrupt stops it early.
    """

    run: Callable[[Callable[[], bool], Callable[[str], None]], str | None]
    until_next_line: bool


Reply = str | Stream
Handler = Callable[[Any, Request], Reply]


@dataclass(frozen=True)
class CommandSpec:
    """A command: its exact name, its handler, and whether it waits for the warm engine."""

    name: str
    handler: Handler
    needs_engine: bool = True


class Registry:
    """Commands by exact name, in the order they were added (``list_commands`` keeps it)."""

    def __init__(self) -> None:
        self._commands: dict[str, CommandSpec] = {}

    def add(self, name: str, handler: Handler, *, needs_engine: bool = True) -> None:
        if name in self._commands or not name or any(c.isspace() for c in name):
            raise ValueError(f"bad or duplicate command name {name!r}")
        self._commands[name] = CommandSpec(name, handler, needs_engine)

    def get(self, name: str) -> CommandSpec | None:
        return self._commands.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._commands

    def __iter__(self) -> Iterator[str]:
        return iter(self._commands)

    def names(self) -> list[str]:
        return list(self._commands)
