"""Fixtures shared by run --local's tests."""

from __future__ import annotations

import locale
from collections.abc import Iterator

import pytest


@pytest.fixture
def ascii_locale() -> Iterator[None]:
    """LC_CTYPE=C for the test: Python's default text encoding is then ASCII (unless it runs in UTF-8 mode), so
    a file read or written without an explicit encoding fails on non-ASCII text."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
