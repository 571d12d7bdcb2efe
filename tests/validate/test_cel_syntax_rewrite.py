"""The Kubernetes-era CEL syntax celpy's grammar lacks (optional selection and index, ``optional.*`` and
``format.*`` namespaces, ``list.min()``), rewritten into library calls: every construct, the places it must
not be rewritten (string literals of every quoting style, list literals, other receivers), and nesting."""

from __future__ import annotations

import pytest

from kubectl_testbench.validate.cel.syntax import rewrite

REWRITES = [
    # optional field selection, with blanks after the '?'
    ("self.?a.orValue(1)", 'self.optSelect("a").orValue(1)'),
    ("self.? a", 'self.optSelect("a")'),
    ("self.?a_1.?b", 'self.optSelect("a_1").optSelect("b")'),
    # optional index: brackets matched, string literals inside skipped, every receiver that can be indexed
    ("x[?0]", "x.optIndex(0)"),
    ("x[?y[0]]", "x.optIndex(y[0])"),
    ("x[?'a]']", "x.optIndex('a]')"),
    ("x['[?'][?1]", "x['[?'].optIndex(1)"),
    ("x[?0] + y[?1]", "x.optIndex(0) + y.optIndex(1)"),
    ("x [?0]", "x .optIndex(0)"),
    ("a_[?0]", "a_.optIndex(0)"),
    ("f()[?0]", "f().optIndex(0)"),
    ("a[0][?1]", "a[0].optIndex(1)"),
    ("{1: 2}[?1]", "{1: 2}.optIndex(1)"),
    ("'ab'[?0]", "'ab'.optIndex(0)"),
    ('"ab"[?0]', '"ab".optIndex(0)'),
    ("x.?y[?0].min()", 'x.optSelect("y").optIndex(0).listMin()'),
    # namespaced functions
    ("optional.of(1)", "optionalOf(1)"),
    ("optional.none()", "optionalNone()"),
    ("optional.ofNonZeroValue(0)", "optionalOfNonZeroValue(0)"),
    ("optional.other(1)", "optional_other(1)"),
    ("format.named('x')", "formatNamed('x')"),
    ("format.dns1123Label()", "format_dns1123Label()"),
    ("format.x ()", "format_x()"),
    # list.min(), which celpy would read as its own macro
    ("[1].min()", "[1].listMin()"),
    ("[1].min( )", "[1].listMin()"),
    # only code outside string literals changes
    ("'''a'b.?c''' + x.?d", "'''a'b.?c''' + x.optSelect(\"d\")"),
    ('"""a"b.?c""" + x.?d', '"""a"b.?c""" + x.optSelect("d")'),
    ("b'.?x' + y.?z", "b'.?x' + y.optSelect(\"z\")"),
    ("r'\\\\' + x.?d", "r'\\\\' + x.optSelect(\"d\")"),
    ("'a\\'b.?c' + x.?d", "'a\\'b.?c' + x.optSelect(\"d\")"),
    ('"a\\"b.?c" + x.?d', '"a\\"b.?c" + x.optSelect("d")'),
]

UNCHANGED = [
    "self.a > 1",
    "'[?' + x",
    "'.min()'",
    "'optional.of(1)' + \"format.named('x')\"",
    "'x.?y'",
    "[?1]",  # an optional list element: celpy has no such thing, and it is no index
    "f([?1])",
    "x[?0",  # unclosed: left for the parser to report
    "self.format.x()",  # a field named format, not the namespace
    "xformat.x()",
    "self.optional.of(1)",
    "[1].min(2)",
]


@pytest.mark.parametrize(("source", "expected"), REWRITES, ids=[s for s, _ in REWRITES])
def test_kubernetes_syntax_becomes_a_library_call(source: str, expected: str) -> None:
    assert rewrite(source) == expected


@pytest.mark.parametrize("source", UNCHANGED)
def test_what_is_not_kubernetes_only_syntax_is_left_alone(source: str) -> None:
    assert rewrite(source) == source


@pytest.mark.parametrize(("rule", "value", "passed"), [
    ("self.?a.orValue(0) == 2", {"a": 2}, True),
    ("self.?a.orValue(0) == 2", {}, False),
    ("self.l[?1].orValue('none') == 'y'", {"l": ["x", "y"]}, True),
    ("self.l[?2].hasValue()", {"l": ["x", "y"]}, False),
    ("self.l.min() == 'x'", {"l": ["y", "x"]}, True),
    ("'.?a' + self.?b.orValue('') == '.?a'", {}, True),
])
def test_rewritten_rules_evaluate_as_the_api_server_would(rule: str, value: dict[str, object], passed: bool) -> None:
    from kubectl_testbench.validate.cel.evaluate import compiled

    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"},
                                               "l": {"type": "array", "items": {"type": "string"}}}}
    outcome = compiled({"rule": rule})._run(value, schema)
    assert (outcome.passed, outcome.error) == (passed, "")


@pytest.mark.parametrize(("source", "expected"), [
    ("[?1] + x[?0]", "[?1] + x.optIndex(0)"),  # a list literal first, then an index
    ("f([?1], x[?0])", "f([?1], x.optIndex(0))"),
    ("x[?0 + y[?1]", "x[?0 + y[?1]"),  # unclosed: nothing is rewritten, the parser reports the source
])
def test_each_optional_index_is_judged_on_its_own(source: str, expected: str) -> None:
    assert rewrite(source) == expected
