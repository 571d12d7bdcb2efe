"""Every bound, name, step, list and range of the five cron fields, as robfig/cron's standard parser (the one
Kubernetes CronJobs and Testkube use) reads them. The text after ``Invalid value: "<cron>":`` in a
``semantic/cron`` finding is ``cron_error``'s message, so it is asserted verbatim."""

from __future__ import annotations

import pytest

from kubectl_testbench.validate.cron import cron_error
from kubectl_testbench.validate.engine import validate_text
from tests.validate.helpers import VALID

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


@pytest.mark.parametrize("cron", [
    "0 0 1 1 0",            # every lower bound
    "59 23 31 12 6",        # every upper bound: Saturday is 6
    "0 3 * * 6",
    "0 3 * DEC *", "0 3 * dec *", "0 3 * Jan-Dec *", "0 3 * * SUN-SAT", "0 3 * * sat",
    "0-59 0-23 1-31 1-12 0-6",  # full ranges, both ends inclusive
    "5-5 * * * *",          # a range of one value does not run backwards
    "*/1 * * * *", "0-59/59 * * * *", "5/15 * * * *", "? ? ? ? ?",
    "0,30 3 * * 1,3,5",
])
def test_valid_expressions_have_no_error(cron: str) -> None:
    assert cron_error(cron) is None


@pytest.mark.parametrize(("cron", "message"), [
    ("", "expected 5 fields (minute hour day-of-month month day-of-week), found 0"),
    ("0 3 * *", "expected 5 fields (minute hour day-of-month month day-of-week), found 4"),
    ("0 0 3 * * *", "expected 5 fields (minute hour day-of-month month day-of-week), found 6"),
    # one past each bound, low and high, as a single value
    ("60 3 * * *", "minute field '60': 60 is out of range 0-59"),
    ("0 24 * * *", "hour field '24': 24 is out of range 0-23"),
    ("0 3 0 * *", "day of month field '0': 0 is out of range 1-31"),
    ("0 3 32 * *", "day of month field '32': 32 is out of range 1-31"),
    ("0 3 * 0 *", "month field '0': 0 is out of range 1-12"),
    ("0 3 * 13 *", "month field '13': 13 is out of range 1-12"),
    ("0 3 * * 7", "day of week field '7': 7 is out of range 0-6"),
    # ... and as the end of a range
    ("0-60 3 * * *", "minute field '0-60': 60 is out of range 0-59"),
    ("0 3 1-32 * *", "day of month field '1-32': 32 is out of range 1-31"),
    ("0 3 * 1-0 *", "month field '1-0': 0 is out of range 1-12"),
    ("0 3 * * 1-7", "day of week field '1-7': 7 is out of range 0-6"),
    ("5-1 3 * * *", "minute field '5-1': range 5-1 runs backwards"),
    ("0 3 * dec-jan *", "month field 'dec-jan': range 12-1 runs backwards"),
    # steps
    ("*/0 3 * * *", "minute field '*/0': step '0' must be a positive number"),
    ("*/x 3 * * *", "minute field '*/x': step 'x' must be a positive number"),
    ("*/ 3 * * *", "minute field '*/': step '' must be a positive number"),
    ("*/-1 3 * * *", "minute field '*/-1': step '-1' must be a positive number"),
    ("1-5/0 3 * * *", "minute field '1-5/0': step '0' must be a positive number"),
    # lists: every item is checked
    ("0,,5 3 * * *", "minute field '0,,5': empty list item"),
    ("0, 3 * * *", "minute field '0,': empty list item"),
    ("0,5,60 3 * * *", "minute field '0,5,60': 60 is out of range 0-59"),
    # names only where the field has them, and only real names
    ("x 3 * * *", "minute field 'x': 'x' is not a number"),
    ("1-x 3 * * *", "minute field '1-x': 'x' is not a number"),
    ("jan 3 * * *", "minute field 'jan': 'jan' is not a number"),
    ("0 3 * mon *", "month field 'mon': 'mon' is not a number or a name"),
    ("0 3 * jan-foo *", "month field 'jan-foo': 'foo' is not a number or a name"),
    ("0 3 * * jan", "day of week field 'jan': 'jan' is not a number or a name"),
    ("0 3 * * mon-", "day of week field 'mon-': '' is not a number or a name"),
])
def test_invalid_expressions_say_which_field_and_why(cron: str, message: str) -> None:
    assert cron_error(cron) == message


NAMED = [("0 3 * {} *", "month", number, name, 1) for number, name in enumerate(MONTHS, start=1)] + [
    ("0 3 * * {}", "day of week", number, name, 0) for number, name in enumerate(DAYS)]


@pytest.mark.parametrize(("template", "field", "number", "name", "first"), NAMED)
def test_each_name_is_its_number(template: str, field: str, number: int, name: str, first: int) -> None:
    assert cron_error(template.format(f"{number}-{name}")) is None
    assert cron_error(template.format(f"{name.title()}-{number}")) is None
    if number > first:
        text = f"{name}-{number - 1}"
        backwards = f"range {number}-{number - 1} runs backwards"
        assert cron_error(template.format(text)) == f"{field} field '{text}': {backwards}"


@pytest.mark.parametrize("digit", ["²", "٣", "３"])
def test_non_ascii_digits_are_not_numbers(digit: str) -> None:
    """Go's strconv.Atoi reads ASCII digits only; ``"²".isdigit()`` is true in Python but int("²") raises."""
    assert cron_error(f"{digit} 3 * * *") == f"minute field '{digit}': '{digit}' is not a number"
    assert cron_error(f"*/{digit} 3 * * *") == f"minute field '*/{digit}': step '{digit}' must be a positive number"


def test_a_bad_cron_is_one_finding_with_the_field_and_reason() -> None:
    text = VALID + "  schedule:\n    cron: '0 3 * * 7'\n"
    [d] = validate_text(text, "t.yaml").diagnostics
    assert (d.rule, d.path, d.line) == ("semantic/cron", "spec.schedule.cron", 25)
    assert d.message == "Invalid value: \"0 3 * * 7\": day of week field '7': 7 is out of range 0-6"
    assert d.hint == 'e.g. "0 3 * * *" runs daily at 03:00'
