"""Hints that know the field: what to write instead, worded for the field's type and meaning.

The schema reports the API server's own message (kept for parity); these hints say in words what is wrong and
give a corrected value, for the mistakes people make first: a cron that is not five fields (seconds, ``@daily``,
prose), a boolean written as text (``"yes"``, quoted ``"true"``), a metric written as a plain name.
"""

from __future__ import annotations

import re
from typing import Any

from kubectl_testbench.load.positions import Path, value_at
from kubectl_testbench.rules.schema import (
    SCHEMA_MAXIMUM,
    SCHEMA_PATTERN,
    SCHEMA_REQUIRED,
    SCHEMA_TYPE,
    SCHEMA_UNKNOWN_FIELD,
)
from kubectl_testbench.validate.cron import cron_error
from kubectl_testbench.validate.diagnostics import Fix, FixKind
from kubectl_testbench.validate.schema import SchemaError
from kubectl_testbench.words import plural

CRON: Path = ("spec", "schedule", "cron")
CRON_FIELDS = "minute hour day-of-month month day-of-week"
CRON_EXAMPLE = '"0 3 * * *" runs daily at 03:00'
MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
          "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}
"""robfig/cron's descriptors, which Testkube would read but this CRD's pattern refuses."""
_CRON_TOKEN = re.compile(r"^(?:[\d*?/,LW#-]+|(?:[A-Za-z]{3}(?:-[A-Za-z]{3})?)(?:,[A-Za-z]{3})*)$")
YAML11_TRUE = frozenset(("y", "yes", "on", "true"))
YAML11_FALSE = frozenset(("n", "no", "off", "false"))


def improve(errors: list[SchemaError], doc: dict[str, Any]) -> None:
    """Replace the generic hint of the findings this module knows better, and give the fix where the corrected
    value has one meaning."""
    for err in errors:
        hint = field_hint(err, doc)
        if hint:
            err.hint = hint
        if err.fix is None:
            err.fix = field_fix(err, doc)


def field_fix(err: SchemaError, doc: dict[str, Any]) -> Fix | None:
    """The safe fix for one schema finding, or None: a percentage written as a threshold, a cron whose seconds
    field is 0 (dropping it keeps every run time)."""
    value = value_at(doc, err.path)
    if err.rule == SCHEMA_MAXIMUM.id and _is_threshold(err.path):
        fraction = percent_fraction(value)
        if fraction is not None:
            return Fix(FixKind.REPLACE, err.path, fraction, f"write {fraction}")
    if err.rule == SCHEMA_PATTERN.id and err.path == CRON and isinstance(value, str):
        fields = value.split()
        if len(fields) == 6 and fields[0] in ("0", "00") and cron_error(" ".join(fields[1:])) is None:
            five = " ".join(fields[1:])
            return Fix(FixKind.REPLACE, err.path, five, f'write "{five}"')
    return None


def field_hint(err: SchemaError, doc: dict[str, Any]) -> str:
    """The hint for one schema finding, or "" to keep its own."""
    from kubectl_testbench.validate.crdschema import schema_type_at

    value = value_at(doc, err.path)
    if err.rule == SCHEMA_PATTERN.id and err.path == CRON and isinstance(value, str):
        return cron_hint(value)
    if err.rule == SCHEMA_TYPE.id and schema_type_at(err.path) == "boolean":
        return boolean_hint(value)
    if err.rule == SCHEMA_TYPE.id and _is_metric(err.path):
        return metric_hint(value)
    if err.rule == SCHEMA_REQUIRED.id and _is_metric(err.path[:-1]):
        return metric_hint(value_at(doc, err.path[:-1]))
    if err.rule == SCHEMA_UNKNOWN_FIELD.id and _is_metric(err.path[:-1]):
        return metric_hint({err.path[-1]: value})
    if err.rule == SCHEMA_MAXIMUM.id and _is_threshold(err.path):
        fraction = percent_fraction(value)
        if fraction is not None:
            return (f"thresholds are fractions of 1 (a score from 0 to 1): {value} reads as a percentage: "
                    f"write {fraction}")
    return ""


def _is_threshold(path: Path) -> bool:
    """``defaultThreshold``, or a metric's ``threshold``."""
    return (path == ("spec", "dataset", "inline", "defaultThreshold")
            or (len(path) == 10 and _is_metric(path[:9]) and path[9] == "threshold"))


def percent_fraction(value: Any) -> float | None:
    """``value`` / 100 when ``value`` can only be a percentage, spelled as short as it is: above 10 and at most 100
    (``2`` or ``8`` may be a slip or a score out of 10, ``1.5`` a slip: no guess)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 10 < value <= 100:
        return None
    return float(f"{value / 100:.10g}")


# --- cron -------------------------------------------------------------------------------------------------


def cron_hint(value: str) -> str:
    """What is wrong with a cron the CRD's pattern (five whitespace-separated fields) refuses, in words."""
    fields = value.split()
    if value.lstrip().startswith("@"):
        macro = fields[0].lower()  # the value starts with "@": there is a first field
        if macro in MACROS:
            return (f"this CRD takes no @ macros, only the five fields {CRON_FIELDS}: write "
                    f'"{MACROS[macro]}" for {macro}')
        if macro == "@every":
            return (f"this CRD takes no @ macros, only the five fields {CRON_FIELDS}; for an interval use a step: "
                    '"*/15 * * * *" runs every 15 minutes')
        if macro == "@reboot":
            return "a schedule has no @reboot: to run when the agent is rolled out, set spec.trigger.enabled: true"
        return f"this CRD takes no @ macros, only the five fields {CRON_FIELDS}: e.g. {CRON_EXAMPLE}"
    if not all(_CRON_TOKEN.match(f) for f in fields) or not fields:
        return f"not a cron expression: write five fields, {CRON_FIELDS}: e.g. {CRON_EXAMPLE}"
    count = len(fields)
    if count == 5:
        return f'separate the five fields with single spaces, nothing before or after: "{" ".join(fields)}"'
    if count in (6, 7):
        what = "a seconds field first" if count == 6 else "a seconds field first and a year last (Quartz)"
        candidate = " ".join(fields[1:6])
        fixed = f': "{candidate}"' if cron_error(candidate) is None else f": e.g. {CRON_EXAMPLE}"
        return f"{count} fields, {what}; this CRD takes 5 ({CRON_FIELDS}) and no seconds: drop them{fixed}"
    candidate = " ".join([*fields, "*"])  # with 4 fields, most often the day of week was left out
    example = f'"{candidate}"' if cron_error(candidate) is None else CRON_EXAMPLE
    return f"{plural(count, 'field')}, but this CRD takes 5 ({CRON_FIELDS}): e.g. {example}"


# --- booleans ---------------------------------------------------------------------------------------------


def boolean_hint(value: Any) -> str:
    """A boolean field holding text or a number: what to write, never "quote it" (quoting makes it text)."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("true", "false"):
            return f"remove the quotes: write {word} (a quoted value is text)"
        if word in YAML11_TRUE or word in YAML11_FALSE:
            meant = "true" if word in YAML11_TRUE else "false"
            return f"write {meant}: a quoted {value} is text, and this field takes true or false"
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (0, 1):
        return f"write {'true' if value else 'false'}: Kubernetes does not read 1 and 0 as booleans"
    return "write true or false"


def yaml11_boolean(text: str, value: bool) -> tuple[str, str]:
    """Message and hint for an unquoted ``yes``/``on``/``y`` in a boolean field: Kubernetes reads the boolean the
    user meant, YAML 1.2 tools a string; the cure is the spelling both read alike."""
    word = "true" if value else "false"
    return (f'{text} is read as the boolean {word} by Kubernetes (YAML 1.1) but as the string "{text}" by YAML 1.2 '
            "tools (editors, yq, Python)", f"write {word}")


# --- metrics ----------------------------------------------------------------------------------------------


def _is_metric(path: Path) -> bool:
    return (len(path) == 9 and path[:4] == ("spec", "dataset", "inline", "scenarios") and path[5] == "steps"
            and path[7] == "metrics" and isinstance(path[8], int))


def metric_hint(item: Any) -> str:
    """A metric given as a plain name (``- AnswerAccuracy``) or as ``- AnswerAccuracy: 0.7``: the object form."""
    if isinstance(item, str) and item.strip():
        return f'a metric is an object: write "- metricName: {item.strip()}"'
    if isinstance(item, dict) and len(item) == 1:
        ((name, setting),) = item.items()
        if isinstance(name, str) and re.fullmatch(r"[A-Z][A-Za-z0-9]+", name):  # a class name, not metricName
            if isinstance(setting, (int, float)) and not isinstance(setting, bool):
                return (f'a metric is an object: write "- metricName: {name}" with "threshold: {setting}" on the '
                        "next line, indented under it")
            return f'a metric is an object: write "- metricName: {name}"'
    return ""
