"""Checks of values a user gives, shared by every layer so that each reads and refuses alike: a setting that
names one of a fixed set of choices, a word that reads as a number."""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["check_choice", "is_number"]


def check_choice(what: str, value: object, choices: Collection[str], error: type[Exception] = ValueError) -> None:
    """Raise ``error`` ("unknown WHAT VALUE: expected one of ...") unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise error(f"unknown {what} {value!r}: expected one of {', '.join(choices)}")


def is_number(word: str) -> bool:
    """Whether ``float`` reads ``word`` (infinities and NaN included)."""
    try:
        float(word)
    except ValueError:
        return False
    return True
