"""How a count reads: one word form for one, the plural for any other number."""

from __future__ import annotations

import pytest

from kubectl_testbench.words import plural


@pytest.mark.parametrize(("n", "text"), [(0, "0 findings"), (1, "1 finding"), (2, "2 findings"), (-1, "-1 findings")])
def test_a_regular_plural_adds_an_s(n: int, text: str) -> None:
    assert plural(n, "finding") == text


@pytest.mark.parametrize(("n", "text"), [(0, "0 fixes"), (1, "1 fix"), (3, "3 fixes")])
def test_an_irregular_plural_is_given(n: int, text: str) -> None:
    assert plural(n, "fix", "fixes") == text
