"""Hints that fit the field: a cron the CRD's pattern refuses is explained in words with a corrected value, a
boolean field is never told to quote its value, and a metric written as a plain name gets the object form.
The API server's own message stays as it is (parity); the hint line carries the advice."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.validate.helpers import VALID

FIELDS = "minute hour day-of-month month day-of-week"


def findings(tmp_path: Path, text: str, *args: str) -> list[str]:
    path = tmp_path / "exp.yaml"
    path.write_text(text)
    result = run_cli("validate", *args, str(path))
    return [line.replace(f"{path}:", "") for line in result.output.splitlines()[:-1]]


def with_schedule(cron: str) -> str:
    return VALID.replace("spec:\n", f'spec:\n  schedule:\n    cron: "{cron}"\n', 1)


@pytest.mark.parametrize(("cron", "hint"), [
    ("0 3 * * * *", f'6 fields, a seconds field first; this CRD takes 5 ({FIELDS}) and no seconds: drop them: '
                    '"3 * * * *"'),
    ("0 0 3 * * ? 2026", "7 fields, a seconds field first and a year last (Quartz); this CRD takes 5 "
                         f'({FIELDS}) and no seconds: drop them: "0 3 * * ?"'),
    ("@daily", f'this CRD takes no @ macros, only the five fields {FIELDS}: write "0 0 * * *" for @daily'),
    ("@hourly", f'this CRD takes no @ macros, only the five fields {FIELDS}: write "0 * * * *" for @hourly'),
    ("@every 5m", f"this CRD takes no @ macros, only the five fields {FIELDS}; for an interval use a step: "
                  '"*/15 * * * *" runs every 15 minutes'),
    ("@reboot", "a schedule has no @reboot: to run when the agent is rolled out, set spec.trigger.enabled: true"),
    ("every day at 3", f'not a cron expression: write five fields, {FIELDS}: e.g. "0 3 * * *" runs daily at 03:00'),
    ("0 3 * *", f'4 fields, but this CRD takes 5 ({FIELDS}): e.g. "0 3 * * *"'),
    ("30", f'1 field, but this CRD takes 5 ({FIELDS}): e.g. "0 3 * * *" runs daily at 03:00'),
    ("0  3 * * *", 'separate the five fields with single spaces, nothing before or after: "0 3 * * *"'),
])
def test_cron_the_pattern_refuses_is_explained_in_words(tmp_path: Path, cron: str, hint: str) -> None:
    lines = findings(tmp_path, with_schedule(cron))
    assert lines == [f"""8:11: error[schema/pattern] spec.schedule.cron: Invalid value: "{cron}": must match """
                     r"""'^(\S+\s){4}\S+$'""", f"  hint: {hint}"]


def test_cron_out_of_range_names_the_field(tmp_path: Path) -> None:
    assert findings(tmp_path, with_schedule("0 25 * * *")) == [
        """8:11: error[semantic/cron] spec.schedule.cron: Invalid value: "0 25 * * *": hour field '25': 25 is out """
        "of range 0-23", '  hint: e.g. "0 3 * * *" runs daily at 03:00']


def with_enabled(value: str) -> str:
    return VALID.replace("spec:\n", f"spec:\n  trigger:\n    enabled: {value}\n", 1)


@pytest.mark.parametrize(("value", "lines"), [
    ("yes", ['8:14: warning[yaml/yaml11-boolean] spec.trigger.enabled: yes is read as the boolean true by Kubernetes '
             '(YAML 1.1) but as the string "yes" by YAML 1.2 tools (editors, yq, Python)', "  hint: write true"]),
    ("off", ['8:14: warning[yaml/yaml11-boolean] spec.trigger.enabled: off is read as the boolean false by '
             'Kubernetes (YAML 1.1) but as the string "off" by YAML 1.2 tools (editors, yq, Python)',
             "  hint: write false"]),
    ('"yes"', ['8:14: error[schema/type] spec.trigger.enabled: Invalid value: "yes": must be of type boolean',
               "  hint: write true: a quoted yes is text, and this field takes true or false"]),
    ('"true"', ['8:14: error[schema/type] spec.trigger.enabled: Invalid value: "true": must be of type boolean',
                "  hint: remove the quotes: write true (a quoted value is text)"]),
    ("enable", ['8:14: error[schema/type] spec.trigger.enabled: Invalid value: "enable": must be of type boolean',
                "  hint: write true or false"]),
    ("1", ["8:14: error[schema/type] spec.trigger.enabled: Invalid value: 1: must be of type boolean",
           "  hint: write true: Kubernetes does not read 1 and 0 as booleans"]),
])
def test_boolean_field_hints_say_what_to_write(tmp_path: Path, value: str, lines: list[str]) -> None:
    found = [line for line in findings(tmp_path, with_enabled(value)) if "cel/not-evaluated" not in line]
    assert found == lines
    assert not any("quote it" in line or "in quotes" in line for line in found), \
        "quoting a boolean makes it text: never the advice"


def test_a_text_field_still_says_quote_it(tmp_path: Path) -> None:
    text = VALID.replace("input: Will it rain in Berlin tomorrow?", "input: yes")
    assert 'hint: yes is a YAML 1.1 boolean for Kubernetes: write "yes" in quotes' in "\n".join(
        findings(tmp_path, text))


def test_the_boolean_hint_is_the_same_in_json_and_in_fix(tmp_path: Path) -> None:
    import json

    path = tmp_path / "exp.yaml"
    path.write_text(with_enabled("yes"))
    (found,) = json.loads(run_cli("validate", "-o", "json", str(path)).stdout)["diagnostics"]
    assert (found["hint"], found["fix"]["title"]) == ("write true", "write true")
    unfixed = run_cli("fix", "--diff", "--select", "schema", str(path))
    assert "quote it" not in unfixed.output
    assert "yes/no/on/off/y/n are booleans for Kubernetes (YAML 1.1) but text for YAML 1.2 tools: write true/false " \
           "in a boolean field, quote the word in a text field." in run_cli("validate", "--list-rules").output


METRICS = "                - metricName: AgentGoalAccuracyWithReference\n"


@pytest.mark.parametrize(("metrics", "lines"), [
    ("                - AgentGoalAccuracyWithReference\n",
     ['19:19: error[schema/type] spec.dataset.inline.scenarios[0].steps[0].metrics[0]: Invalid value: '
      '"AgentGoalAccuracyWithReference": must be of type object',
      '  hint: a metric is an object: write "- metricName: AgentGoalAccuracyWithReference"']),
    ("                - AnswerAccuracy: 0.7\n",
     ['19:19: error[schema/required] spec.dataset.inline.scenarios[0].steps[0].metrics[0].metricName: Required '
      'value: "metricName" must be set',
      '  hint: a metric is an object: write "- metricName: AnswerAccuracy" with "threshold: 0.7" on the next line, '
      "indented under it",
      '19:19: error[schema/unknown-field] spec.dataset.inline.scenarios[0].steps[0].metrics[0].AnswerAccuracy: '
      'unknown field "spec.dataset.inline.scenarios[0].steps[0].metrics[0].AnswerAccuracy"',
      '  hint: a metric is an object: write "- metricName: AnswerAccuracy" with "threshold: 0.7" on the next line, '
      "indented under it"]),
])
def test_metrics_given_as_plain_strings_get_the_object_form(tmp_path: Path, metrics: str, lines: list[str]) -> None:
    found = [line for line in findings(tmp_path, VALID.replace(METRICS, metrics)) if "cel/not-evaluated" not in line]
    assert found == lines
