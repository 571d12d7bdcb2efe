"""Testkube expressions at their edges: each operator at its boundary, each conversion (convert.go), the
tokens tokenize.go knows, and every error message verbatim (what ``render --resolve`` prints after the field)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from kubectl_testbench.gofmt import format_v
from kubectl_testbench.render.resolve.expressions import (
    ExpressionError,
    UnknownVariable,
    evaluate_template,
    render,
)

VARIABLES: dict[str, Any] = {"X": "x-value", "tags": {"team": "qa"}, "tags.team": "qa", "n": 2.0, "s": "2", "empty": ""}


def lookup(name: str) -> Any:
    if name in VARIABLES:
        return VARIABLES[name]
    raise UnknownVariable(name)


@pytest.mark.parametrize(("template", "expected"), [
    ("{{ 2 > 2 }}|{{ 3 > 2 }}|{{ 2 < 2 }}|{{ 1 < 2 }}", "false|true|false|true"),
    ("{{ 2 >= 2 }}|{{ 1 >= 2 }}|{{ 2 <= 2 }}|{{ 3 <= 2 }}", "true|false|true|false"),
    ("{{ 1 != 1 }}|{{ 1 != 2 }}|{{ 1 <> 1 }}|{{ 'a' <> 'b' }}|{{ '1' == 1 }}", "false|true|false|true|true"),
    ("{{ 'a' + 1 }}|{{ 1 + 'a' }}|{{ s + 1 }}|{{ n + 1 }}|{{ null + 1 }}", "a1|1a|21|3|1"),
    ("{{ 7 - 2 }}|{{ 7 * 2 }}|{{ 7 % 3 }}|{{ -7 % 3 }}|{{ 2 ** 3 }}|{{ 7 / 2 }}", "5|14|1|-1|8|3.5"),
    ("{{ !null }}|{{ ![] }}|{{ ![1] }}|{{ !{} }}|{{ !{\"a\": 1} }}", "true|true|false|true|false"),
    ("{{ !'' }}|{{ !'false' }}|{{ !'0' }}|{{ !'off' }}|{{ !'FALSE' }}|{{ !'no' }}", "true|true|true|true|false|false"),
    ("{{ null > -1 }}|{{ null < 1 }}", "true|true"),
    ("{{ true ? 1 == 1 : 2 }}|{{ true ? 1 : 2 == 2 }}|{{ false ? 1 : 2 == 2 }}", "true|1|true"),
    ("{{ X }}|{{ tags . team }}|{{ (tags).team }}|{{ empty || X }}|{{ X && n }}", "x-value|qa|qa|x-value|2"),
    ("{{ (tags).team + 'x' }}|{{ }}|{{ (tags).team == 'qa' }}", "qax||true"),
    ("{{ null}}|{{ !X }}|{{ ! empty }}", "|false|true"),
    ("{{ 'a\\nb' }}|{{ 'say \"hi\"' }}|{{ '\\u00e9' }}|{{ 'it\\'s' }}", "a\nb|say \"hi\"|é|it's"),
    ("{{ 'tab\there' }}|{{ 'cr\rhere' }}", "tab\there|cr\rhere"),
    ('{{ {"b": 1, "a": "é"} }}|{{ [1, "x", null, true] }}', '{"a":"é","b":1}|1,x,,true'),
    ('{{ {"n": [1.5, 1e21, 1e-7, 0.000001, -0, 100], "s": "<a&b>", "t": true, "z": null} }}',
     '{"n":[1.5,1e+21,1e-7,0.000001,-0,100],"s":"\\u003ca\\u0026b\\u003e","t":true,"z":null}'),
    ('{{ [{"a": 1e20}, {"b": 1e-100}, {"c": -2.5e-7}, {"d": 1e100}] }}',
     '{"a":100000000000000000000},{"b":1e-100},{"c":-2.5e-7},{"d":1e+100}'),
    ("{{ 0 * -1 }}|{{ 1e308 * 10 }}|{{ -1e308 * 10 }}", "-0|+Inf|-Inf"),
])
def test_operators_and_conversions(template: str, expected: str) -> None:
    assert render(template, lookup) == expected


@pytest.mark.parametrize(("template", "message"), [
    ("{{ ...1 }}", "unexpected '...' in expression"),
    ("{{ ...}}", "unexpected '...' in expression"),
    ("{{ ) }}", "unexpected ')' in expression"),
    ("{{ * 2 }}", "unexpected 'math' in expression"),
    ("{{ 1 2 }}", "unexpected 'value' after the end of the expression"),
    ("{{ 1 + }}", "premature end of expression"),
    ("{{ true ? 1 }}", "expected ':' of a ternary expression"),
    ("{{ (1 }}", "expected ')'"),
    ("{{ 1 % 0 }}", "cannot modulo by zero"),
    ("{{ 1 / 0 }}", "cannot divide by zero"),
    ("{{ '1_0' * 1 }}", "error while converting value to number: 1_0"),
    ("{{ 'a' > 1 }}", "error while converting value to number: a"),
    ("{{ (tags).nope }}", "property 'nope' does not exist"),
    ("{{ (X).nope }}", "property 'nope' does not exist"),
    ("{{ 1", "template error: expression not closed"),
    ("{{ nope }}", "nope: unknown variable"),
])
def test_errors_are_exact(template: str, message: str) -> None:
    with pytest.raises(ExpressionError) as err:
        render(template, lookup)
    assert str(err.value) == message


@pytest.mark.parametrize(("template", "prefix"), [
    ("{{ '\\x' }}", "invalid string literal '\\x': Invalid \\escape"),
    ("{{ [1, }}", "invalid JSON value at index 3: "),
])
def test_malformed_literals_say_which(template: str, prefix: str) -> None:
    with pytest.raises(ExpressionError) as err:
        render(template, lookup)
    assert str(err.value).startswith(prefix)


def test_an_unknown_variable_names_itself_and_its_hint() -> None:
    assert str(UnknownVariable("a.b")) == "a.b: unknown variable"
    assert str(UnknownVariable("a.b", "why")) == "a.b: unknown variable (why)"
    assert UnknownVariable("a.b").name == "a.b"


def test_every_operand_sees_the_variables() -> None:
    """Variables inside every kind of node: property, not, ternary, && / ||, operators, a lone expression."""
    assert evaluate_template("{{ (tags).team }}", lookup) == "qa"
    assert evaluate_template("{{ !X }}", lookup) is False
    assert evaluate_template("{{ n ? X : s }}", lookup) == "x-value"
    assert evaluate_template("{{ empty ? X : s }}", lookup) == "2"
    assert evaluate_template("{{ n && X }}", lookup) == "x-value"
    assert evaluate_template("{{ empty || s }}", lookup) == "2"
    assert evaluate_template("{{ n * n }}", lookup) == 4.0
    assert evaluate_template("{{ n }}", lookup) == 2.0
    assert evaluate_template("a{{ X }}", lookup) == "ax-value"


@pytest.mark.parametrize(("number", "go"), [
    (math.nan, "NaN"), (math.inf, "+Inf"), (-math.inf, "-Inf"), (-0.0, "-0"), (0.5, "0.5"), (-1.0, "-1"),
    (1.5e-7, "1.5e-07"), (-1.5e20, "-1.5e+20"), (1e21, "1e+21"), (123456789.0, "1.23456789e+08"),
    (0.00012, "0.00012"), (-2e6, "-2e+06"), (1e100, "1e+100"),
])
def test_more_floats_print_as_gos_percent_v(number: float, go: str) -> None:
    assert format_v(number) == go


@pytest.mark.parametrize(("template", "expected"), [
    ("{{ -2 + 3 }}", "-5"), ("{{ 2 * -3 + 1 }}", "-8"), ("{{ 1 - 2 + 3 }}", "2"), ("{{ (-2) + 3 }}", "1"),
])
def test_a_leading_minus_negates_everything_after_it_as_testkube_parses_it(template: str, expected: str) -> None:
    """Testkube's getNextSegment (pkg/expressions/parse.go) reads ``-`` as ``0 - <the rest at priority -1>``, so
    ``-2 + 3`` is ``-(2 + 3)``: surprising, but what the cluster computes, so what --resolve must show."""
    assert render(template, lookup) == expected
