"""The Kubernetes CEL libraries, checked against the examples of their documentation.

Sources: the Go doc comments of k8s.io/apiserver/pkg/cel/library (kubernetes/kubernetes,
staging/src/k8s.io/apiserver/pkg/cel/library/{lists,regex,urls,quantity,format}.go), which
https://kubernetes.io/docs/reference/using-api/cel/ ("Kubernetes list/regex/URL/quantity/format
library") reproduces, and cel-go's ext.Strings and optional types that Kubernetes enables. Each example
below is one line of those comments: the expression and what the comment says it returns.
"""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_testbench.validate.cel.evaluate import compiled

ERROR = object()

EXAMPLES: list[tuple[str, Any]] = [
    # lists.go
    ("[1, 2, 3].isSorted()", True),
    ("['a', 'b', 'b', 'c'].isSorted()", True),
    ("[2.0, 1.0].isSorted()", False),
    ("[1].isSorted()", True),
    ("[].isSorted()", True),
    ("[1, 3].sum()", 4),
    ("[1.0, 3.0].sum()", 4.0),
    ("[].sum()", 0),
    ("[1, 3].min()", 1),
    ("[1, 3].max()", 3),
    ("[].min()", ERROR),
    ("[1].min()", 1),
    ("[1, 2, 2, 3].indexOf(2)", 1),
    ("['a', 'b', 'b', 'c'].lastIndexOf('b')", 2),
    ("[1.0].indexOf(1.1)", -1),
    ("[].indexOf('string')", -1),
    # regex.go (the comment's '[0-9]*' finds the empty match at 0 in Go's regexp too; '[0-9]+' is meant)
    ("'abc 123'.find('[0-9]+')", "123"),
    ("'abc 123'.find('xyz')", ""),
    ("'123 abc 456'.findAll('[0-9]+')", ["123", "456"]),
    ("'123 abc 456'.findAll('[0-9]+', 1)", ["123"]),
    ("'123 abc 456'.findAll('xyz')", []),
    # urls.go
    ("isURL('https://user:pass@example.com:80/path?query=val#fragment')", True),
    ("isURL('/absolute-path')", True),
    ("isURL('https://a:b:c/')", False),
    ("isURL('../relative-path')", False),
    ("url('https://a:b:c/')", ERROR),
    ("url('../relative-path')", ERROR),
    ("url('/path').getScheme()", ""),
    ("url('https://example.com/').getScheme()", "https"),
    ("url('https://example.com:80/').getHost()", "example.com:80"),
    ("url('https://example.com/').getHost()", "example.com"),
    ("url('https://[::1]:80/').getHost()", "[::1]:80"),
    ("url('https://[::1]/').getHost()", "[::1]"),
    ("url('/path').getHost()", ""),
    ("url('https://example.com:80/').getHostname()", "example.com"),
    ("url('https://127.0.0.1:80/').getHostname()", "127.0.0.1"),
    ("url('https://[::1]:80/').getHostname()", "::1"),
    ("url('/path').getHostname()", ""),
    ("url('https://example.com:80/').getPort()", "80"),
    ("url('https://example.com/').getPort()", ""),
    ("url('/path').getPort()", ""),
    ("url('https://example.com/path').getEscapedPath()", "/path"),
    ("url('https://example.com/path with spaces/').getEscapedPath()", "/path%20with%20spaces/"),
    ("url('https://example.com').getEscapedPath()", ""),
    ("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()", {"k1": ["a"], "k2": ["b", "c"]}),
    ("url('https://example.com/path?key with spaces=value with spaces').getQuery()",
     {"key with spaces": ["value with spaces"]}),
    ("url('https://example.com/path?').getQuery()", {}),
    ("url('https://example.com/path').getQuery()", {}),
    # quantity.go
    ("isQuantity('1.3G')", True),
    ("isQuantity('1.3Gi')", True),
    ("isQuantity('1,3G')", False),
    ("isQuantity('10000k')", True),
    ("isQuantity('200K')", False),
    ("isQuantity('Three')", False),
    ("isQuantity('Mi')", False),
    ("quantity('200K')", ERROR),
    ("quantity('Three')", ERROR),
    ("quantity('Mi')", ERROR),
    ("quantity(\"50000000G\").isInteger()", True),
    ("quantity(\"50k\").isInteger()", True),
    ("quantity(\"9999999999999999999999999999999999999G\").asInteger()", ERROR),
    ("quantity(\"9999999999999999999999999999999999999G\").isInteger()", False),
    ("quantity(\"50k\").asInteger() == 50000", True),
    ("quantity(\"50k\").sub(20000).asApproximateFloat() == 30000.0", True),
    ("quantity(\"50k\").add(\"20k\") == quantity(\"70k\")", True),
    ("quantity(\"50k\").add(20) == quantity(\"50020\")", True),
    ("quantity(\"50k\").sub(\"20k\") == quantity(\"30k\")", True),
    ("quantity(\"50k\").sub(20000) == quantity(\"30k\")", True),
    ("quantity(\"50k\").add(20).sub(quantity(\"100k\")).sub(-50000) == quantity(\"20\")", True),
    ("quantity(\"200M\").compareTo(quantity(\"0.2G\"))", 0),
    ("quantity(\"50M\").compareTo(quantity(\"50Mi\"))", -1),
    ("quantity(\"50Mi\").compareTo(quantity(\"50M\"))", 1),
    ("quantity(\"150Mi\").isGreaterThan(quantity(\"100Mi\"))", True),
    ("quantity(\"50Mi\").isGreaterThan(quantity(\"100Mi\"))", False),
    ("quantity(\"50M\").isLessThan(quantity(\"100M\"))", True),
    ("quantity(\"100M\").isLessThan(quantity(\"50M\"))", False),
    # format.go: validate returns optional.none() for a valid string
    ("format.dns1123Label().validate('my-label-name').hasValue()", False),
    ("format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()", False),
    ("format.dns1035Label().validate('my-label-name').hasValue()", False),
    ("format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue()", False),
    ("format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()", False),
    ("format.dns1035LabelPrefix().validate('my-label-prefix-').hasValue()", False),
    ("format.uri().validate('http://example.com').hasValue()", False),
    ("format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()", False),
    ("format.byte().validate('aGVsbG8=').hasValue()", False),
    ("format.date().validate('2021-01-01').hasValue()", False),
    ("format.datetime().validate('2021-01-01T00:00:00Z').hasValue()", False),
    ("format.dns1123Label().validate('Not_A_Label').hasValue()", True),
    ("format.named('dns1123Label').hasValue()", True),
    ("format.named('noSuchFormat').hasValue()", False),
    # cel-go ext.Strings
    ("'TacoCat'.lowerAscii()", "tacocat"),
    ("'TacoCat'.upperAscii()", "TACOCAT"),
    ("' \\ttrim\\n '.trim()", "trim"),
    ("'hello mellow'.split(' ')", ["hello", "mellow"]),
    ("['hello', 'mellow'].join(' ')", "hello mellow"),
    ("'hello hello'.replace('he', 'we')", "wello wello"),
    ("'hello mellow'.indexOf('ello')", 1),
    ("'hello mellow'.lastIndexOf('ello')", 7),
    ("'hello'.charAt(4)", "o"),
    ("'tacocat'.substring(4)", "cat"),
    ("'tacocat'.substring(0, 4)", "taco"),
    # optional types (cel-go; Kubernetes 1.29+)
    ("optional.of(1).value()", 1),
    ("optional.none().orValue('default')", "default"),
    ("optional.of('x').hasValue()", True),
    ("{'k': 'v'}[?'k'].orValue('none')", "v"),
    ("{'k': 'v'}[?'missing'].orValue('none')", "none"),
    ("[1, 2][?5].hasValue()", False),
    ("optional.none().or(optional.of(2)).value()", 2),
]


def run(expr: str) -> Any:
    """The value of ``expr`` evaluated as our validator evaluates rules, or ERROR."""
    from celpy.evaluation import CELEvalError

    try:
        return _value(expr)
    except CELEvalError:
        return ERROR


def _value(expr: str) -> Any:
    from celpy import celtypes

    from kubectl_testbench.validate.cel.cost import Meter, metered_runner
    from kubectl_testbench.validate.cel.environment import environment
    from kubectl_testbench.validate.cel.library import functions
    from kubectl_testbench.validate.cel.syntax import rewrite

    env = environment()
    meter = Meter()
    meter.start_call()
    program = metered_runner(env, env.compile(rewrite(expr)), functions(), lambda: meter)
    value = program.evaluate({})
    if isinstance(value, (celtypes.MapType, dict)):
        return {str(k): [str(i) for i in v] for k, v in value.items()}
    if isinstance(value, list):
        return [str(v) if isinstance(v, str) else v for v in value]
    return value


@pytest.mark.parametrize(("expr", "expected"), EXAMPLES, ids=[e for e, _ in EXAMPLES])
def test_kubernetes_cel_library_documentation_example(expr: str, expected: Any) -> None:
    from celpy import celtypes

    got = run(expr)
    if expected is ERROR:
        assert got is ERROR
        return
    assert got is not ERROR and got == expected
    if isinstance(expected, bool):
        assert isinstance(got, celtypes.BoolType)
    elif isinstance(expected, int):
        assert isinstance(got, celtypes.IntType)


def test_optional_field_selection_on_self() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    rule = compiled({"rule": "self.?b.orValue(0) < self.a && !self.?b.hasValue()"})
    assert rule._run({"a": 3}, schema).passed
    assert not rule._run({"a": 3, "b": 1}, schema).passed


def test_the_example_rules_of_the_kubernetes_documentation() -> None:
    """Rules from the "Validation rules" table of https://kubernetes.io/docs/reference/using-api/cel/."""
    schema = {"type": "object", "properties": {
        "minReplicas": {"type": "integer"}, "replicas": {"type": "integer"}, "maxReplicas": {"type": "integer"},
        "health": {"type": "string"}, "stateCounts": {"type": "object", "additionalProperties": {"type": "integer"}},
        "widgets": {"type": "array", "items": {"type": "object", "properties": {
            "key": {"type": "string"}, "foo": {"type": "integer"}}}}}}
    value = {"minReplicas": 1, "replicas": 2, "maxReplicas": 3, "health": "ok now",
             "stateCounts": {"Available": 1}, "widgets": [{"key": "x", "foo": 5}]}
    for rule in ("self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
                 "'Available' in self.stateCounts", "self.health.startsWith('ok')",
                 "self.widgets.exists(w, w.key == 'x' && w.foo < 10)"):
        assert compiled({"rule": rule})._run(value, schema).passed, rule
