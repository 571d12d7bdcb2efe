"""Testkube's expression language as render --resolve evaluates it.

The expectations are Testkube's own: kubeshop/testkube ``pkg/expressions/parse_test.go`` (precedence, ternary,
``&&``/``||`` returning an operand, the ``{{"{{"}}`` escape), ``convert.go`` (truthiness, string forms) and
``testworkflowresolver/config_test.go`` (``"some {{ 30 }} value"`` is ``"some 30 value"``). Anything this
evaluator does not support must fail loudly, never be guessed.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.gofmt import format_v
from kubectl_testbench.render.resolve.expressions import (
    ExpressionError,
    UnknownVariable,
    compile_template,
    evaluate_template,
    render,
    to_bool,
)

VARIABLES: dict[str, Any] = {"config.empty": "", "config.url": "http://gw:80", "config.zero": "0",
                             "config.off": "off", "execution.number": 7, "execution.id": "abc",
                             "execution.tags": {"team": "qa"}}


def lookup(name: str) -> Any:
    if name in VARIABLES:
        return VARIABLES[name]
    prefix, _, prop = name.rpartition(".")
    if prefix in VARIABLES and isinstance(VARIABLES[prefix], dict) and prop in VARIABLES[prefix]:
        return VARIABLES[prefix][prop]
    raise UnknownVariable(name)


def value(expression: str) -> Any:
    return evaluate_template("{{" + expression + "}}", lookup)


@pytest.mark.parametrize(("expression", "expected"), [
    ('true ? "value" : "another"', "value"),
    ('5 == 3 && 2 == 4 ? "value" : "another"', "another"),
    ('3 == 3 || 2 == 4 ? "value" : "another"', "value"),
    ('false ? "value" : true ? "xyz" :"another"', "xyz"),
    ("false ? 3 : (true ? 5.78 : 2)", 5.78),
    ("2 + 3", 5.0), ("3 / 5", 0.6), ("3 <> 5", True), ("3 != 5", True), ("3 == 5", False), ("3 = 5", False),
    ("5 - -3 * 2", 11.0), ("1 + 2 * 3", 7.0), ("1 + (2 * 3) + 4", 11.0), ("1 + 2 * 3 * 4 + 5 = 30", True),
    ("5 + 3 / 3 * 3", 8.0), ("true && false || false && true", False), ("true && false || true", True),
    ("1 && 0 && 2", 0.0), ("1 && 0 || 2", 2.0), ("1 || 0 || 2", 1.0), ("10 > 2 && 5 <= 5", True),
    ("1 + 2 * 3 ** 4 * 5 + 6", 817.0), ("72 / 2 ** 4", 4.5), ("!0 && 500", True), ("!5 && 500", False),
    ("-4", -4.0), ('"\nabc\ndef\n"', "\nabc\ndef\n"),
])
def test_testkubes_own_expression_cases(expression: str, expected: Any) -> None:
    """Compared the way parse_test.go reads each result (``BoolValue``, ``FloatValue``, ``StringValue``)."""
    result = value(expression)
    if isinstance(expected, bool):
        assert to_bool(result) is expected
    elif isinstance(expected, float):
        assert result == pytest.approx(expected)
    else:
        assert result == expected


def test_a_chained_comparison_fails_as_in_testkube() -> None:
    with pytest.raises(ExpressionError, match="converting value to number"):
        value("10 > 2 > 3")


@pytest.mark.parametrize(("template", "expected"), [
    ("", ""), ("abc", "abc"), ('abc{{ "xyz" }}{{ 5 }}', "abcxyz5"), ("abc{{ 5 + 45 }}def", "abc50def"),
    ('foo{{"{{bar"}}baz{{"{{"}}', "foo{{barbaz{{"),
    ("some {{ 30 }} value", "some 30 value"),
    ('Hello {{"{{"}} user }}', "Hello {{ user }}"),
    ("{{ }}", ""),
    ('{{ config.empty || "https://api.openai.com/v1" }}', "https://api.openai.com/v1"),
    ('{{ config.url || "https://api.openai.com/v1" }}', "http://gw:80"),
    ('{{ config.zero || "x" }}{{ config.off || "y" }}', "xy"),
    ("{{ execution.number }}/{{execution.id}}", "7/abc"),
    ("{{ execution.tags.team }}", "qa"),
    ("{{ 'it\\'s' }}", "it's"),
    ("{{ 1000000 }} {{ 0.5 }} {{ 1234567 }}", "1e+06 0.5 1.234567e+06"),
    ("{{ true }}/{{ null }}/{{ [1, 2] }}", "true//1,2"),
])
def test_templates_render_as_testkube_renders_them(template: str, expected: str) -> None:
    assert render(template, lookup) == expected


@pytest.mark.parametrize(("template", "error", "message"), [
    ("{{ config.missing }}", UnknownVariable, "config.missing: unknown variable"),
    ("{{ secret('s', 'k') }}", ExpressionError, "function secret() is not supported"),
    ("{{ items.*.name }}", ExpressionError, "wildcard"),
    ("{{ config.url", ExpressionError, "expression not closed"),
    ("{{ config.url ]}}", ExpressionError, "unknown character"),
    ("{{ 1 / 0 }}", ExpressionError, "cannot divide by zero"),
    ("{{ (1 + 2 }}", ExpressionError, "expected ')'"),
])
def test_what_cannot_be_evaluated_is_an_error_never_a_guess(template: str, error: type[Exception],
                                                            message: str) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        render(template, lookup)


def test_an_expression_alone_keeps_its_type_for_config_casting() -> None:
    assert evaluate_template("{{ 5 }}", lookup) == 5.0
    assert evaluate_template("{{ 5 }}x", lookup) == "5x"


def test_text_without_an_opener_is_returned_as_is() -> None:
    assert compile_template("a } b { c") == ["a } b { c"]
    assert render("$(VAR) ${HOME} { }", lookup) == "$(VAR) ${HOME} { }"


@pytest.mark.parametrize(("number", "go"), [(1.0, "1"), (1e6, "1e+06"), (123456.0, "123456"),
                                            (1234567.0, "1.234567e+06"), (1e-5, "1e-05"), (0.0001, "0.0001"),
                                            (-3.25, "-3.25"), (0.0, "0")])
def test_floats_print_as_gos_percent_v(number: float, go: str) -> None:
    assert format_v(number) == go
