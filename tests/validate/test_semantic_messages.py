"""Semantic findings as the user reads them: rule, path, message and hint verbatim, with the boundary of each
numeric rule at the limit and one past it."""

from __future__ import annotations

import pytest

from kubectl_testbench.validate.engine import validate_text
from tests.validate.helpers import VALID

Seen = tuple[str, str, str, str]
NOT_IANA = "not an IANA timezone name"
IGNORED = f"{NOT_IANA}; Testkube would ignore it and run on cluster time"


def seen(text: str) -> list[Seen]:
    return [(d.rule, d.path, d.message, d.hint) for d in validate_text(text, "t.yaml").diagnostics]


def with_timezone(tz: str) -> str:
    return VALID + f"  schedule:\n    cron: '0 3 * * *'\n    timezone: \"{tz}\"\n"


@pytest.mark.parametrize(("tz", "message", "hint"), [
    ("/UTC", NOT_IANA, 'did you mean "UTC"?'),                    # Go's LoadLocation refuses a leading "/"
    ("../etc/passwd", NOT_IANA, 'use a name like "Europe/Berlin" or "UTC"'),
    ("UTC/..", NOT_IANA, 'did you mean "UTC"?'),
    ("Europe\\\\Berlin", NOT_IANA, 'did you mean "Europe/Berlin"?'),
    ("Europe/Berlinn", IGNORED, 'did you mean "Europe/Berlin"?'),
    ("europe/berlin", IGNORED, 'did you mean "Europe/Berlin"? Zone names are case-sensitive'),
    ("Qqqqqq", IGNORED, 'use a name like "Europe/Berlin" or "UTC"'),
])
def test_timezone_that_is_not_a_zone_name(tz: str, message: str, hint: str) -> None:
    shown = tz.replace("\\\\", "\\")
    assert seen(with_timezone(tz)) == [
        ("semantic/timezone", "spec.schedule.timezone", f'Invalid value: "{shown}": {message}', hint)]


@pytest.mark.parametrize("tz", ["UTC", "Local", "Etc/UTC", "Europe/Berlin"])
def test_timezone_names_go_loads(tz: str) -> None:
    assert seen(with_timezone(tz)) == []


def with_env(name: str, value: str) -> str:
    return VALID.replace("  dataset:", f"  env:\n    - name: {name}\n      value: '{value}'\n  dataset:")


SECRET = ("semantic/literal-secret", "spec.env[0].value", 'env "API_TOKEN" has a literal value that looks like a '
          "secret (value not shown)", "store it in a Secret and use valueFrom.secretKeyRef")


def test_literal_secret_under_a_secret_name_from_8_characters() -> None:
    assert seen(with_env("API_TOKEN", "abcdefg")) == []
    assert seen(with_env("API_TOKEN", "abcdefgh")) == [SECRET]
    assert seen(with_env("API_TOKEN", "$(FROM_ELSEWHERE)")) == []
