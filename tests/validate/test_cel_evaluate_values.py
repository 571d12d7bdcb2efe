"""How a value reaches a CEL rule (to_cel): strings of a typed format as their CEL type, a missing map key, a rule
that does not parse. Each case is judged by cel-go too: ``FORMAT_CASES`` and ``MISSING_KEY`` run through the oracle
in tests/oracle/test_cel_oracle.py."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from kubectl_testbench.validate.cel.evaluate import _syntax_error, evaluate_rule

FORMATS: dict[str, Any] = {"type": "object", "properties": {
    "d": {"type": "string", "format": "duration"}, "t": {"type": "string", "format": "date-time"},
    "day": {"type": "string", "format": "date"}, "b": {"type": "string", "format": "byte"},
    "s": {"type": "string"}}}
VALUE = {"d": "1m30s", "t": "2020-06-01T12:00:00Z", "day": "2020-06-01", "b": base64.b64encode(b"hi").decode(),
         "s": "1m30s"}
FORMAT_CASES: list[tuple[str, dict[str, Any], bool]] = [
    ("self.d == duration('90s')", VALUE, True),
    ("self.d > duration('1m')", VALUE, True),
    ("self.d == duration('0s')", {**VALUE, "d": "0"}, True),
    ("self.t < timestamp('2021-01-01T00:00:00Z')", VALUE, True),
    ("self.t.getHours() == 12", VALUE, True),
    ("self.day == timestamp('2020-06-01T00:00:00Z')", VALUE, True),
    ("self.b == b'hi'", VALUE, True),
    ("self.b.size() == 2", VALUE, True),
    ("self.s == '1m30s'", VALUE, True),  # no format: a plain string
]
MISSING_KEY = ("self.m['x'] == 'a'", {"m": {"y": "a"}})
MAP_SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "m": {"type": "object", "additionalProperties": {"type": "string"}}}}


@pytest.mark.parametrize(("rule", "value", "passed"), FORMAT_CASES)
def test_a_string_of_a_typed_format_is_that_type_in_cel(rule: str, value: dict[str, Any], passed: bool) -> None:
    outcome = evaluate_rule({"rule": rule}, value, FORMATS)
    assert (outcome.passed, outcome.error) == (passed, "")


def test_a_missing_map_key_reads_as_cel_go_words_it() -> None:
    rule, value = MISSING_KEY
    outcome = evaluate_rule({"rule": rule}, value, MAP_SCHEMA)
    assert not outcome.passed and outcome.error == "no such key: x evaluating rule: self.m['x'] == 'a'"


class _Located(Exception):
    def __init__(self, line: object, column: object) -> None:
        super().__init__("Unexpected token Token('RPAR', ')') at line 1, column 7.\n\nExpected one of: ...")
        self.line, self.column = line, column


def test_a_rule_that_does_not_parse_is_placed_as_cel_go_places_it() -> None:
    assert _syntax_error(_Located(1, 7)) == ("compilation failed: ERROR: <input>:1:7: Syntax error: the rule does "
                                             "not parse here")
    assert _syntax_error(_Located(None, 7)) == "Unexpected token Token('RPAR', ')') at line 1, column 7."
    assert _syntax_error(_Located(1, None)) == "Unexpected token Token('RPAR', ')') at line 1, column 7."
