"""Standard 5-field cron expressions, parsed as robfig/cron (Testkube, Kubernetes CronJobs) parses them."""

from __future__ import annotations

FieldSpec = tuple[str, int, int, dict[str, int]]

_FIELDS: tuple[FieldSpec, ...] = (
    ("minute", 0, 59, {}),
    ("hour", 0, 23, {}),
    ("day of month", 1, 31, {}),
    ("month", 1, 12, {n: i + 1 for i, n in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}),
    ("day of week", 0, 6, {n: i for i, n in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}),
)


def cron_error(expr: str) -> str | None:
    """Why ``expr`` is not a valid standard cron expression, or None."""
    fields = expr.split()
    if len(fields) != 5:
        return f"expected 5 fields (minute hour day-of-month month day-of-week), found {len(fields)}"
    for text, (name, low, high, names) in zip(fields, _FIELDS, strict=True):
        for part in text.split(","):
            err = _part_error(part, low, high, names)
            if err:
                return f"{name} field {text!r}: {err}"
    return None


def _part_error(part: str, low: int, high: int, names: dict[str, int]) -> str | None:
    if not part:
        return "empty list item"
    range_text, slash, step_text = part.partition("/")
    for number in (*range_text.partition("-")[::2], step_text):
        if _is_number(number) and len(number) > _MAX_DIGITS:  # strconv.Atoi fails; int() would refuse it too
            return f"{number[:12]}… ({len(number)} digits) is out of range"
    if slash and (not _is_number(step_text) or int(step_text) == 0):
        return f"step {step_text!r} must be a positive number"
    if range_text in ("*", "?"):
        return None
    start_text, dash, end_text = range_text.partition("-")
    start = _value(start_text, names)
    if start is None:
        return f"{start_text!r} is not a number" + (" or a name" if names else "")
    if not low <= start <= high:
        return f"{start} is out of range {low}-{high}"
    if dash:
        end = _value(end_text, names)
        if end is None:
            return f"{end_text!r} is not a number" + (" or a name" if names else "")
        if not low <= end <= high:
            return f"{end} is out of range {low}-{high}"
        if end < start:
            return f"range {start}-{end} runs backwards"
    return None


def _value(text: str, names: dict[str, int]) -> int | None:
    if _is_number(text):
        return int(text)
    return names.get(text.lower())


_MAX_DIGITS = 18
"""Longer numbers are out of every cron range (and past what Python converts without a limit)."""


def _is_number(text: str) -> bool:
    """ASCII digits only, as Go's strconv.Atoi reads them ("²".isdigit() is true, and int("²") raises)."""
    return text.isascii() and text.isdigit()
