"""The check of a setting that names one of a fixed set of choices, so that every refusal reads alike."""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["check_choice"]


def check_choice(what: str, value: object, choices: Collection[str], error: type[Exception] = ValueError) -> None:
    """Raise ``error`` ("unknown WHAT VALUE: expected one of ...") unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise error(f"unknown {what} {value!r}: expected one of {', '.join(choices)}")
