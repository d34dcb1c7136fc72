"""The checks of values a user gives: a name among fixed choices, a word that reads as a number."""

from __future__ import annotations

import pytest

from engine.core.checks import check_choice, is_number
from engine.core.types import RulesError


def test_a_choice_passes() -> None:
    check_choice("schedule", "cosine", ("constant", "cosine"))


def test_anything_else_is_refused_with_the_choices_and_the_error_asked_for() -> None:
    with pytest.raises(RulesError, match=r"^unknown ko rule 'none': expected one of simple, positional$"):
        check_choice("ko rule", "none", ("simple", "positional"), RulesError)
    with pytest.raises(ValueError, match="unknown schedule 3"):
        check_choice("schedule", 3, ("constant", "cosine"))


@pytest.mark.parametrize("word,number", [("12", True), ("-0.5", True), ("1e3", True), ("inf", True),
                                         ("C3", False), ("", False), ("1,5", False)])
def test_a_number_is_a_word_float_reads(word: str, number: bool) -> None:
    assert is_number(word) is number
