"""The one check of a setting that names one of a fixed set of choices."""

from __future__ import annotations

import pytest

from engine.core.choices import check_choice
from engine.core.types import RulesError


def test_a_choice_passes() -> None:
    check_choice("schedule", "cosine", ("constant", "cosine"))


def test_anything_else_is_refused_with_the_choices_and_the_error_asked_for() -> None:
    with pytest.raises(RulesError, match=r"^unknown ko rule 'none': expected one of simple, positional$"):
        check_choice("ko rule", "none", ("simple", "positional"), RulesError)
    with pytest.raises(ValueError, match="unknown schedule 3"):
        check_choice("schedule", 3, ("constant", "cosine"))
