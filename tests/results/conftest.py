"""Run every results test from the checkout root so fixture paths (and the sources printed) are relative."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
