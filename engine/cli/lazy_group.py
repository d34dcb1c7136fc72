"""A click group whose subcommands are named as strings, imported on first use and listed by topic."""

from __future__ import annotations

import importlib
from typing import NamedTuple

import click

__all__ = ["LazyGroup", "Lazy"]


class Lazy(NamedTuple):
    """A subcommand not imported yet: where it is (``"package.module:attribute"``) and its one-line help."""

    target: str
    summary: str


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use.

    ``sections`` maps a heading of ``--help`` to its subcommands, each a :class:`Lazy`, so that
    listing the commands imports none of them.
    """

    def __init__(self, *args: object, sections: dict[str, dict[str, Lazy]] | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.sections = dict(sections or {})
        self.lazy = {name: entry for entries in self.sections.values() for name, entry in entries.items()}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy:
            module_name, attribute = self.lazy[name].target.split(":")
            command = getattr(importlib.import_module(module_name), attribute)
            if not isinstance(command, click.Command):
                raise TypeError(f"{self.lazy[name].target} is not a click command")
            return command
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        for heading, entries in self.sections.items():
            with formatter.section(heading):
                formatter.write_dl([(name, entry.summary) for name, entry in entries.items()])
