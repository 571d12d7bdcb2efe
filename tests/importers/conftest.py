"""Importer tests run from the fixtures directory, so that file names in warnings are short and exact."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from importer_helpers import FIXTURES


@pytest.fixture(autouse=True)
def _in_fixtures(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(FIXTURES)
    yield
