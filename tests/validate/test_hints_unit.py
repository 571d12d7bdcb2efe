"""The field hints word by word, per branch: cron the CRD's pattern refuses, booleans written as text or numbers,
metrics in the wrong shape, and which schema findings get which hint."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.validate.hints import (
    boolean_hint,
    cron_hint,
    field_hint,
    improve,
    metric_hint,
    value_at,
    yaml11_boolean,
)
from kubectl_testbench.validate.schema import SchemaError

FIELDS = "minute hour day-of-month month day-of-week"
EXAMPLE = '"0 3 * * *" runs daily at 03:00'
NOT_CRON = f"not a cron expression: write five fields, {FIELDS}: e.g. {EXAMPLE}"
MACRO = f"this CRD takes no @ macros, only the five fields {FIELDS}"


@pytest.mark.parametrize(("cron", "hint"), [
    ("@DAILY", f'{MACRO}: write "0 0 * * *" for @daily'),
    ("@yearly", f'{MACRO}: write "0 0 1 1 *" for @yearly'), ("@annually", f'{MACRO}: write "0 0 1 1 *" for @annually'),
    ("@monthly", f'{MACRO}: write "0 0 1 * *" for @monthly'), ("@weekly", f'{MACRO}: write "0 0 * * 0" for @weekly'),
    ("@midnight", f'{MACRO}: write "0 0 * * *" for @midnight'),
    (" @hourly", f'{MACRO}: write "0 * * * *" for @hourly'),
    ("@", f"{MACRO}: e.g. {EXAMPLE}"), ("@foo 1", f"{MACRO}: e.g. {EXAMPLE}"),
    ("", NOT_CRON), ("   ", NOT_CRON), ("every day", NOT_CRON), ("0 0 3 * * ? 2026 x", NOT_CRON),
    ("0 3 * * * 99", f"6 fields, a seconds field first; this CRD takes 5 ({FIELDS}) and no seconds: drop them: e.g. "
                     f"{EXAMPLE}"),
    ("JAN-FEB,MAR 1 2 3 4 5", f'6 fields, a seconds field first; this CRD takes 5 ({FIELDS}) and no seconds: drop '
                              'them: "1 2 3 4 5"'),
    ("0 0 3 * * ? 2026", f"7 fields, a seconds field first and a year last (Quartz); this CRD takes 5 ({FIELDS}) and "
                         'no seconds: drop them: "0 3 * * ?"'),
    ("0 3 * *", f'4 fields, but this CRD takes 5 ({FIELDS}): e.g. "0 3 * * *"'),
    ("0 3 99 *", f"4 fields, but this CRD takes 5 ({FIELDS}): e.g. {EXAMPLE}"),
    ("30", f"1 field, but this CRD takes 5 ({FIELDS}): e.g. {EXAMPLE}"),
    ("0 3", f"2 fields, but this CRD takes 5 ({FIELDS}): e.g. {EXAMPLE}"),
    ("0 3 *", f"3 fields, but this CRD takes 5 ({FIELDS}): e.g. {EXAMPLE}"),
    ("1 2 3 4 5 6 7 8", f"8 fields, but this CRD takes 5 ({FIELDS}): e.g. {EXAMPLE}"),
    ("0  3 * * *", 'separate the five fields with single spaces, nothing before or after: "0 3 * * *"'),
    ("\t0 3 L * 1#2 ", 'separate the five fields with single spaces, nothing before or after: "0 3 L * 1#2"'),
])
def test_cron_hint(cron: str, hint: str) -> None:
    assert cron_hint(cron) == hint


@pytest.mark.parametrize(("value", "hint"), [
    ("True", "remove the quotes: write true (a quoted value is text)"),
    ("false", "remove the quotes: write false (a quoted value is text)"),
    ("yes", "write true: a quoted yes is text, and this field takes true or false"),
    ("Y", "write true: a quoted Y is text, and this field takes true or false"),
    ("on", "write true: a quoted on is text, and this field takes true or false"),
    ("off", "write false: a quoted off is text, and this field takes true or false"),
    ("N", "write false: a quoted N is text, and this field takes true or false"),
    ("no", "write false: a quoted no is text, and this field takes true or false"),
    ("maybe", "write true or false"),
    (1, "write true: Kubernetes does not read 1 and 0 as booleans"),
    (0, "write false: Kubernetes does not read 1 and 0 as booleans"),
    (1.0, "write true: Kubernetes does not read 1 and 0 as booleans"),
    (2, "write true or false"), (-1, "write true or false"), (True, "write true or false"),
    (None, "write true or false"),
])
def test_boolean_hint(value: Any, hint: str) -> None:
    assert boolean_hint(value) == hint


def test_yaml11_boolean() -> None:
    assert yaml11_boolean("on", True) == (
        'on is read as the boolean true by Kubernetes (YAML 1.1) but as the string "on" by YAML 1.2 tools (editors, '
        "yq, Python)", "write true")
    assert yaml11_boolean("no", False) == (
        'no is read as the boolean false by Kubernetes (YAML 1.1) but as the string "no" by YAML 1.2 tools (editors, '
        "yq, Python)", "write false")


PLAIN = 'a metric is an object: write "- metricName: AnswerAccuracy"'


@pytest.mark.parametrize(("item", "hint"), [
    (" AnswerAccuracy ", PLAIN), ("", ""), ("  ", ""),
    ({"AnswerAccuracy": 0.7}, 'a metric is an object: write "- metricName: AnswerAccuracy" with "threshold: 0.7" on '
                              "the next line, indented under it"),
    ({"AnswerAccuracy": 1}, 'a metric is an object: write "- metricName: AnswerAccuracy" with "threshold: 1" on the '
                            "next line, indented under it"),
    ({"AnswerAccuracy": True}, PLAIN), ({"AnswerAccuracy": "x"}, PLAIN), ({"AnswerAccuracy": None}, PLAIN),
    ({"metricName": "X"}, ""), ({"answerAccuracy": 1}, ""), ({"A": 1}, ""), ({"Ab": 1, "Cd": 2}, ""), ({1: 2}, ""),
    ({"Answer Accuracy": 1}, ""), (5, ""), (None, ""),
])
def test_metric_hint(item: Any, hint: str) -> None:
    assert metric_hint(item) == hint


@pytest.mark.parametrize(("path", "expected"), [
    (("a", 1), "y"), (("a", 0), "x"), (("a", 2), None), (("a", -1), None), (("a", "0"), None), (("b",), None),
    (("a", 0, "z"), None), ((), {"a": ["x", "y"]})])
def test_value_at(path: tuple[Any, ...], expected: Any) -> None:
    assert value_at({"a": ["x", "y"]}, path) == expected


METRIC_AT = ("spec", "dataset", "inline", "scenarios", 0, "steps", 0, "metrics", 0)


def doc_with(metric: Any, cron: Any = "0 3 * *", enabled: Any = "yes") -> dict[str, Any]:
    return {"spec": {"schedule": {"cron": cron}, "trigger": {"enabled": enabled},
                     "dataset": {"inline": {"scenarios": [{"steps": [{"metrics": [metric]}]}]}}}}


@pytest.mark.parametrize(("rule", "path", "doc", "hint"), [
    ("schema/pattern", ("spec", "schedule", "cron"), doc_with(None), f'4 fields, but this CRD takes 5 ({FIELDS}): e.g. '
                                                                      '"0 3 * * *"'),
    ("schema/pattern", ("spec", "schedule", "cron"), doc_with(None, cron=5), ""),
    ("schema/pattern", ("spec", "schedule", "timezone"), doc_with(None), ""),
    ("schema/type", ("spec", "schedule", "cron"), doc_with(None), ""),
    ("schema/type", ("spec", "trigger", "enabled"), doc_with(None),
     "write true: a quoted yes is text, and this field takes true or false"),
    ("schema/type", ("metadata", "ownerReferences", 0, "controller"), {"metadata": {"ownerReferences": [
        {"controller": "true"}]}}, "remove the quotes: write true (a quoted value is text)"),
    ("schema/enum", ("spec", "trigger", "enabled"), doc_with(None), ""),
    ("schema/type", METRIC_AT, doc_with("AnswerAccuracy"), PLAIN),
    ("schema/type", METRIC_AT[:-1], doc_with("AnswerAccuracy"), ""),
    ("schema/required", (*METRIC_AT, "metricName"), doc_with({"AnswerAccuracy": None}), PLAIN),
    ("schema/required", (*METRIC_AT[:-1], "metricName"), doc_with({"AnswerAccuracy": None}), ""),
    ("schema/unknown-field", (*METRIC_AT, "AnswerAccuracy"), doc_with({"AnswerAccuracy": 0.5}),
     'a metric is an object: write "- metricName: AnswerAccuracy" with "threshold: 0.5" on the next line, indented '
     "under it"),
    ("schema/unknown-field", ("spec", "AnswerAccuracy"), doc_with(None), ""),
    ("schema/enum", (*METRIC_AT, "AnswerAccuracy"), doc_with({"AnswerAccuracy": 1}), ""),
    ("schema/required", ("spec", "trigger", "x"), {"spec": {"trigger": "AnswerAccuracy"}}, ""),
    ("schema/type", ("spec", "dataset", "inline", "scenarios", 0, "tasks", 0, "metrics", 0), doc_with("X"), ""),
    ("schema/type", ("spec", "dataset", "inline", "scenarios", 0, "steps", 0, "metrics", "0"), doc_with("X"), ""),
    ("schema/type", ("spec", "dataset", "inline", "cases", 0, "steps", 0, "metrics", 0), doc_with("X"), ""),
    ("schema/type", ("spec", "dataset", "inline", "scenarios", 0, "steps", 0, "checks", 0), doc_with("X"), ""),
])
def test_which_finding_gets_which_hint(rule: str, path: tuple[Any, ...], doc: dict[str, Any], hint: str) -> None:
    assert field_hint(SchemaError(path, rule, "message"), doc) == hint


def test_improve_keeps_the_own_hint_where_there_is_no_better_one() -> None:
    errors = [SchemaError(("spec", "schedule", "cron"), "schema/pattern", "m", hint="generic"),
              SchemaError(("spec", "x"), "schema/pattern", "m", hint="own")]
    improve(errors, doc_with(None))
    assert [e.hint for e in errors] == [f'4 fields, but this CRD takes 5 ({FIELDS}): e.g. "0 3 * * *"', "own"]
