"""CEL rules and values aimed at where celpy and cel-go part: types, operators, libraries, formats, messages.

The CRD we ship has one rule (the dataset's exactly-one-source rule), but rules come from our models, so the
kinds of rule we could add are generated too: over lists, maps, quantities, regexes, optionals, strings,
numbers of every kind, durations and timestamps (string formats Kubernetes types), with ``reason``,
``fieldPath`` and ``messageExpression``. Every generated case is a (schema, value) pair the Go oracle's
``evaluateCEL`` (the API server's CEL validator) and our ``run_cel`` both judge.
"""

from __future__ import annotations

import random
from typing import Any

SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "s": {"type": "string"}, "i": {"type": "integer"}, "n": {"type": "number"}, "b": {"type": "boolean"},
    "l": {"type": "array", "items": {"type": "string"}}, "li": {"type": "array", "items": {"type": "integer"}},
    "ln": {"type": "array", "items": {"type": "number"}},
    "m": {"type": "object", "additionalProperties": {"type": "string"}},
    "o": {"type": "object", "properties": {"a": {"type": "string"}, "c": {"type": "integer"}}},
    "d": {"type": "string", "format": "duration"}, "t": {"type": "string", "format": "date-time"},
    "q": {"x-kubernetes-int-or-string": True}, "qs": {"type": "string"},
    "u": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
}}

KNOWN_GAPS = [
    # the fidelity gaps issue 29 named, and the probes that found the others
    "[1,2].isSorted() == 1", "self.m.exists(k, k)", "duration(1) == duration('1s')", "int('x') == 1",
    "self.s", "self.i + 1", "self.b == 1", "self.i == 1.0", "self.i < 1.5", "self.n == 1", "self.s == 1",
    "self.s + 1 == 'a'", "self.i + self.n > 0", "self.l.all(x, x)", "self.l.exists_one(x, 1)",
    "self.l.filter(x, x).size() > 0", "self.l.map(x, x).size() > 0", "self.nope == 1", "self.o.nope == 1",
    "self.u.nope == 1", "self.m.nope == 'a'", "self.q == 1", "self.q == 'a'", "self.d > duration('1s')",
    "self.t > timestamp('2020-01-01T00:00:00Z')", "duration('x') > self.d", "timestamp('x') < self.t",
    "timestamp(1) < self.t", "uint('x') == 1u", "double('x') == 1.0", "self.s.matches('[')",
    "self.s.matches(self.s)", "foo(1)", "self.s.foo()", "size(self.l) == 'a'", "self.l.size() == 1u",
    "has(self.s)", "has(self.m.k)", "self.li.isSorted() == 1", "[1, 'a'].size() == 2", "{'a': 1}.a == 1",
    "self.l[0] == 1", "self.m['k'] == 1", "!self.s", "self.b && 1", "self.b ? 1 : 'a'", "1 == 1 ? true : 1",
    "self.i in self.l", "'a' in self.m", "null == self.s", "self.s == null", "self.l == []", "self.l == [1]",
    "self.i / 0 == 1", "self.i % 0 == 1", "1 / 0 == 1", "1.0 / 0.0 > 1.0", "dyn(self.s) == 1",
    "self.s.startsWith(1)", "self.s.size() > 1 && self.l.all(x, x.size() > 'a')", "dyn(true) == 1",
    "dyn(1) == 1.0", "dyn(1u) == 1", "[1, 2] == [1, 2.0]", "self.x +", "self.ln.sum() == 4.0",
]

_STRINGS = ["", "a", "abc", "A-1", "x.y", "é", "1", "10", "1Gi", "500m", "a b", "-1"]
_DURATIONS = ["1s", "90m", "1h30m", "0", "-2s", "1.5h", "250ms"]
_TIMES = ["2020-01-01T00:00:00Z", "2030-06-01T12:30:00+02:00", "1999-12-31T23:59:59.5Z"]
_PATTERNS = ["^a", "[a-z]+$", "\\\\d", "(", "[", "a{2,}", "^$", ".*"]
_QUANTITIES = ["1", "500m", "1Gi", "1.5", "2k", "x", "0"]


def value(r: random.Random) -> dict[str, Any]:
    """A value of SCHEMA, with each field present or absent at random."""
    full: dict[str, Any] = {
        "s": r.choice(_STRINGS), "i": r.randint(-3, 3), "n": r.choice([0.0, 1.5, -2.25, 1e6, 0.5]),
        "b": r.random() < 0.5, "l": [r.choice(_STRINGS) for _ in range(r.randint(0, 3))],
        "li": [r.randint(-2, 5) for _ in range(r.randint(0, 4))],
        "ln": [r.choice([1.5, 2.5, 0.0, -1.0]) for _ in range(r.randint(0, 3))],
        "m": {r.choice(["k", "a", "z"]): r.choice(_STRINGS) for _ in range(r.randint(0, 2))},
        "o": {k: v for k, v in (("a", r.choice(_STRINGS)), ("c", r.randint(0, 9))) if r.random() < 0.7},
        "d": r.choice(_DURATIONS), "t": r.choice(_TIMES), "q": r.choice([1, 80, "http", "8080"]),
        "qs": r.choice(_QUANTITIES), "u": {"z": 1},
    }
    return {k: v for k, v in full.items() if r.random() < 0.85}


def _lit(r: random.Random) -> str:
    return r.choice(["1", "0", "-1", "1u", "1.0", "0.5", "'a'", "''", "true", "false", "null", "[]", "['a']",
                     "[1]", "{}", "{'k': 'a'}", "duration('1s')", "timestamp('2020-01-01T00:00:00Z')", "b'a'"])


def _field(r: random.Random) -> str:
    return r.choice(["self.s", "self.i", "self.n", "self.b", "self.l", "self.li", "self.ln", "self.m", "self.o",
                     "self.o.a", "self.o.c", "self.d", "self.t", "self.q", "self.qs", "self.m['k']", "self.l[0]",
                     "self.li[1]"])


_TEMPLATES: list[tuple[str, dict[str, list[str]]]] = [
    # lists
    ("self.li.isSorted() {cmp}", {"cmp": ["", "== true", "== 1"]}),
    ("self.li.{f} {op} {lit}", {"f": ["sum()", "min()", "max()"], "op": [">", "==", "<="]}),
    ("self.ln.sum() {op} {x}", {"op": [">", "==", "<"], "x": ["1", "4.0", "0.0"]}),
    ("self.l.{m}(x, {p})", {"m": ["all", "exists", "exists_one"],
                            "p": ["x.size() > 1", "x", "x == 1", "x.startsWith('a')"]}),
    ("self.l.{m}(x, {p}).size() {op} {x}", {"m": ["filter", "map"], "p": ["x.size() > 0", "x", "true"],
                                             "op": [">", "=="], "x": ["0", "1", "1u"]}),
    ("self.l.indexOf({a}) {op} 0", {"a": ["'a'", "1", "self.s"], "op": [">=", "=="]}),
    ("{a} in self.{f}", {"a": ["self.s", "1", "'a'"], "f": ["l", "li", "m"]}),
    ("self.l + {a} == self.l", {"a": ["['x']", "[1]", "[]"]}),
    # maps and objects
    ("has(self.{f})", {"f": ["m.k", "o.a", "o.c", "s", "u.z"]}),
    ("self.m.{m}(k, {p})", {"m": ["all", "exists"], "p": ["k.size() == 1", "k", "self.m[k] == 'a'"]}),
    ("self.{f} == {lit}", {"f": ["m.k", "o.a", "o.c", "o.nope", "nope", "u.z"]}),
    ("size(self.{f}) {op} {x}", {"f": ["m", "l", "s", "o"], "op": [">", "=="], "x": ["0", "1", "1u"]}),
    # quantities
    ("quantity(self.qs).{m}(quantity('{q}'))", {"m": ["isGreaterThan", "isLessThan"], "q": _QUANTITIES}),
    ("isQuantity(self.qs) && quantity(self.qs).{m}", {"m": ["isInteger()", "asInteger() > 0", "sign() == 1"]}),
    # regex and strings
    ("self.s.matches('{pat}')", {"pat": _PATTERNS}),
    ("self.s.{m}('{pat}') {cmp}", {"m": ["find", "findAll"], "pat": _PATTERNS, "cmp": ["== ''", "== []"]}),
    ("self.s.{m} == self.s", {"m": ["lowerAscii()", "upperAscii()", "trim()", "reverse()"]}),
    ("self.s.{m}({a})", {"m": ["startsWith", "endsWith", "contains"], "a": ["'a'", "1", "self.s"]}),
    ("self.s.split('{sep}').size() {op} 1", {"sep": [".", "", "-"], "op": [">", "=="]}),
    # optionals
    ("self.?{f}.hasValue()", {"f": ["s", "o", "nope"]}),
    ("self.o.?a.orValue({a}) == {b}", {"a": ["''", "1"], "b": ["'z'", "''", "1"]}),
    # numbers and conversions
    ("{field} {op} {lit}", {"op": ["==", "!=", "<", ">=", "+ 1 ==", "* 2 >"]}),
    ("{lit} {op} {lit2} {tail}", {"op": ["==", "<", "/", "%", "+"], "tail": ["", "== 1", "> 0"]}),
    ("int({a}) > 0", {"a": ["'1'", "'x'", "1.5", "self.s", "self.n"]}),
    ("{f}({a}) != null", {"f": ["duration", "timestamp"], "a": ["'1s'", "'x'", "1", "self.s", "0"]}),
    # durations and timestamps
    ("self.d {op} duration('{d}')", {"op": [">", "<", "=="], "d": _DURATIONS}),
    ("self.t {op} timestamp('{t}')", {"op": [">", "<"], "t": _TIMES}),
    ("self.t + self.d > self.t", {}),
    # logic and structure
    ("{field} {op} {field2}", {"op": ["&&", "||"]}),
    ("{field} ? {lit} : {lit2}", {}),
    ("!{field}", {}),
]


def _expression(r: random.Random) -> str:
    text, slots = r.choice(_TEMPLATES)
    filled = {name: r.choice(options) for name, options in slots.items()}
    filled.update(lit=_lit(r), lit2=_lit(r), field=_field(r), field2=_field(r))
    return text.format(**filled).strip()


def rule(r: random.Random) -> dict[str, Any]:
    """One rule spec: a generated expression, sometimes with reason, fieldPath and messageExpression."""
    spec: dict[str, Any] = {"rule": _expression(r)}
    if r.random() < 0.3:
        spec["message"] = r.choice(["must hold", "  padded  ", ""])
    if r.random() < 0.25:
        spec["messageExpression"] = r.choice(["'got ' + self.s", "self.s", "1", "'x' + string(self.i)"])
    if r.random() < 0.2:
        spec["reason"] = r.choice(["FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"])
    if r.random() < 0.15:
        spec["fieldPath"] = r.choice([".s", ".o.a", ".m['k']"])
    return spec


def dataset_cases(r: random.Random) -> tuple[dict[str, Any], Any]:
    """The rule we ship on the dataset node, with every combination of present and absent sources."""
    from kubectl_testbench.validate.crdschema import open_api_schema

    node = open_api_schema()["properties"]["spec"]["properties"]["dataset"]
    data: dict[str, Any] = {}
    for source in ("s3", "url", "inline"):
        pick = r.random()
        if pick < 0.4:  # present (a source of the wrong type never reaches CEL: schema errors block it)
            data[source] = {"s3": {"bucket": "b", "key": "k"}, "url": "https://x", "inline": {"scenarios": []}}[source]
    return node, data


def cases(seed: int, count: int) -> list[tuple[dict[str, Any], Any]]:
    r = random.Random(seed)
    out = [({**SCHEMA, "x-kubernetes-validations": [{"rule": text}]}, value(r)) for text in KNOWN_GAPS]
    while len(out) < count:
        if r.random() < 0.1:
            out.append(dataset_cases(r))
        else:
            out.append(({**SCHEMA, "x-kubernetes-validations": [rule(r) for _ in range(r.randint(1, 2))]}, value(r)))
    return out
