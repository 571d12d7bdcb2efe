"""The Kubernetes CEL libraries at their edges: each bound of an index or count (and one past it), every
error a user reads (cel-go's wording), every quantity suffix, every format, and the overloads a library
function refuses. Sources as in test_cel_library.py (k8s.io/apiserver/pkg/cel/library, cel-go ext.Strings,
cel-go optional types; Go's net/url for the URL errors)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.validate.test_cel_library import _value


def error_of(expr: str) -> str:
    from celpy.evaluation import CELEvalError

    with pytest.raises(CELEvalError) as caught:
        _value(expr)
    return str(caught.value.args[0])


VALUES: list[tuple[str, Any]] = [
    # optionals
    ("optional.none().hasValue()", False),
    ("optional.of(2).orValue(3)", 2),
    ("optional.of(1).or(optional.of(2)).value()", 1),
    ("optional.ofNonZeroValue(0).hasValue()", False),
    ("optional.ofNonZeroValue(0u).hasValue()", False),
    ("optional.ofNonZeroValue(0.0).hasValue()", False),
    ("optional.ofNonZeroValue('').hasValue()", False),
    ("optional.ofNonZeroValue(b'').hasValue()", False),
    ("optional.ofNonZeroValue(false).hasValue()", False),
    ("optional.ofNonZeroValue([]).hasValue()", False),
    ("optional.ofNonZeroValue({}).hasValue()", False),
    ("optional.ofNonZeroValue(null).hasValue()", False),
    ("optional.ofNonZeroValue(1).value()", 1),
    ("optional.ofNonZeroValue(true).value()", True),
    ("optional.ofNonZeroValue('a').value()", "a"),
    ("optional.ofNonZeroValue([0]).value() == [0]", True),
    ("{'a': {'b': 1}}.?a.?b.value()", 1),
    ("{'a': {'b': 1}}.?x.?b.hasValue()", False),
    ("optional.none().?b.hasValue()", False),
    ("optional.of({'b': 2}).?b.value()", 2),
    ("[1, 2][?0].value()", 1),
    ("[1, 2][?1].value()", 2),
    ("[1, 2][?2].hasValue()", False),
    ("[1, 2][?-1].hasValue()", False),
    ("optional.none()[?0].hasValue()", False),
    ("optional.of([5])[?0].value()", 5),
    ("{1: 'x'}[?1].value()", "x"),
    # lists
    ("[3, 1].isSorted()", False),
    ("[1, 1].isSorted()", True),
    ("[1, 2].sum()", 3),
    ("[1u, 2u].sum() == 3u", True),
    ("[duration('1s'), duration('2s')].sum() == duration('3s')", True),
    ("[].sum()", 0),
    ("[1, 2, 1].lastIndexOf(2)", 1),
    ("[1, 2, 3].lastIndexOf(1)", 0),
    ("'ababab'.lastIndexOf('ab', 2)", 2),
    ("'ababab'.lastIndexOf('b', 0)", -1),
    # Go's FindAllString: an empty match right after the previous match is skipped
    ("'baaab'.findAll('a*')", ["", "aaa", ""]),
    ("'xbc'.findAll('x*')", ["x", "", ""]),
    ("'ab'.findAll('b*')", ["", "b"]),
    ("'abc'.findAll('')", ["", "", "", ""]),
    ("'a.b.c'.split('.', 0)", []),
    ("'a.b.c'.split('.', 1)", ["a.b.c"]),
    ("'a.b.c'.split('.', 2)", ["a", "b.c"]),
    ("'a.b.c'.split('.', -1)", ["a", "b", "c"]),
    # equality of the library's types (cel-go's heterogeneous equality: another type is simply unequal)
    ("optional.of(1) == optional.of(1)", True),
    ("optional.of(1) == optional.of(2)", False),
    ("optional.of(1) == optional.none()", False),
    ("optional.none() == optional.none()", True),
    ("optional.of(1) == 1", False),
    ("url('https://a/b') == url('https://a/b')", True),
    ("url('https://a/b') == url('https://a/c')", False),
    ("url('https://a/b') == 'https://a/b'", False),
    ("quantity('1') == quantity('1000m')", True),
    ("quantity('1') == quantity('2')", False),
    ("quantity('1') == 1", False),
    # net/url: the brackets of an IPv6 host are not part of the hostname; the port follows them
    ("url('https://[::1]:80/x').getHostname()", "::1"),
    ("url('https://[::1]:80/x').getPort()", "80"),
    ("url('https://[::1]/x').getHostname()", "::1"),
    ("url('https://[::1]/x').getPort()", ""),
    ("url('https://h:8080/x').getHostname()", "h"),
    ("url('https://h:8080/x').getPort()", "8080"),
    ("url('https://h/x').getPort()", ""),
    ("[1.5, 2.5].sum() == 4.0", True),
    ("[2, 1, 3].min()", 1),
    ("[2, 3, 1].max()", 3),
    ("[1, 2, 1].indexOf(1)", 0),
    ("[1, 2, 1].lastIndexOf(1)", 2),
    ("[1, 2].lastIndexOf(3)", -1),
    ("[1, 2].indexOf(3)", -1),
    # strings: offsets from 0 to the length are valid
    ("'abcabc'.indexOf('c', 3)", 5),
    ("'abcabc'.indexOf('c', 0)", 2),
    ("'abcabc'.indexOf('c', 6)", -1),
    ("'abcabc'.indexOf('')", 0),
    ("'abcabc'.lastIndexOf('c', 4)", 2),
    ("'abcabc'.lastIndexOf('c', 2)", 2),
    ("'abcabc'.lastIndexOf('c', 1)", -1),
    ("'abcabc'.lastIndexOf('c', 0)", -1),
    ("'abcabc'.lastIndexOf('c', 6)", 5),
    ("'abcabc'.lastIndexOf('bc', 4)", 4),
    ("'abcabc'.lastIndexOf('')", 6),
    ("'ÀbC'.lowerAscii()", "Àbc"),
    ("'àbc'.upperAscii()", "àBC"),
    ("'abc'.charAt(0)", "a"),
    ("'abc'.charAt(2)", "c"),
    ("'abc'.charAt(3)", ""),
    ("'a,b,c'.split(',', 2)", ["a", "b,c"]),
    ("'a,b,c'.split(',', 0)", []),
    ("'a,b,c'.split(',', 1)", ["a,b,c"]),
    ("'a,b,c'.split(',', -1)", ["a", "b", "c"]),
    ("'abc'.split('')", ["a", "b", "c"]),
    ("'abc'.split('', 1)", ["abc"]),
    ("'abc'.split('', 2)", ["a", "bc"]),
    ("'abc'.split('', 3)", ["a", "b", "c"]),
    ("'abc'.split('', 5)", ["a", "b", "c"]),
    ("'a a a'.replace('a', 'b', 2)", "b b a"),
    ("'a a a'.replace('a', 'b', 0)", "a a a"),
    ("'a a a'.replace('a', 'b', -1)", "b b b"),
    ("'abc'.substring(1, 1)", ""),
    ("'abc'.substring(3)", ""),
    ("'abc'.substring(0, 3)", "abc"),
    ("'abc'.reverse()", "cba"),
    ("['a', 'b'].join()", "ab"),
    ("['a', 'b'].join('-')", "a-b"),
    # regex
    ("'a1b22'.findAll('[0-9]+', 0)", []),
    ("'a1b22'.findAll('[0-9]+', 1)", ["1"]),
    ("'a1b22'.findAll('[0-9]+', 2)", ["1", "22"]),
    ("'a1b22'.findAll('[0-9]+', 3)", ["1", "22"]),
    ("'a1b22'.findAll('[0-9]*')", ["", "1", "22"]),
    ("'abc'.find('b|c')", "b"),
    # urls
    ("url('HTTP://x/').getScheme()", "http"),
    ("url('http://u@host:8/').getHost()", "host:8"),
    ("url('http://u@host:8/').getHostname()", "host"),
    ("url('http://[::1]/').getPort()", ""),
    ("url('http://[::1]:9/').getPort()", "9"),
    ("url('http://host:/').getPort()", ""),
    ("url('http://x/a b?q=1#f').getQuery()", {"q": ["1#f"]}),  # a request URI has no fragment
    ("url('/p?a=1&a=2&b').getQuery()", {"a": ["1", "2"], "b": [""]}),
    ("isURL('http://[::1/')", False),
    ("isURL('http:')", True),
    ("isURL('mailto:x@y')", False),
    ("isURL('1http://x/')", False),
    ("isURL('http://a:1:2/')", False),
    ("isURL('http://[::1]:2/')", True),
    ("isURL('x+y.z-w://h/')", True),
    # quantities: every suffix
    ("quantity('1Ki').asInteger()", 2**10),
    ("quantity('1Mi').asInteger()", 2**20),
    ("quantity('1Gi').asInteger()", 2**30),
    ("quantity('1Ti').asInteger()", 2**40),
    ("quantity('1Pi').asInteger()", 2**50),
    ("quantity('1Ei').asInteger()", 2**60),
    ("quantity('7Ei').asInteger()", 7 * 2**60),
    ("quantity('8Ei').isInteger()", False),
    ("quantity('1k').asInteger()", 10**3),
    ("quantity('1M').asInteger()", 10**6),
    ("quantity('1G').asInteger()", 10**9),
    ("quantity('1T').asInteger()", 10**12),
    ("quantity('1P').asInteger()", 10**15),
    ("quantity('1E').asInteger()", 10**18),
    ("quantity('1000m').asInteger()", 1),
    ("quantity('1m').isInteger()", False),
    ("quantity('1000000u').asInteger()", 1),
    ("quantity('1000000000n').asInteger()", 1),
    ("quantity('1e3').asInteger()", 1000),
    ("quantity('1E3').asInteger()", 1000),
    ("quantity('1e+3').asInteger()", 1000),
    ("quantity('1500e-3').isInteger()", False),
    ("quantity('1u').asApproximateFloat() == 0.000001", True),
    ("quantity('1n').asApproximateFloat() == 0.000000001", True),
    ("quantity('-5').sign()", -1),
    ("quantity('0').sign()", 0),
    ("quantity('5').sign()", 1),
    ("quantity('.5').asApproximateFloat() == 0.5", True),
    ("quantity('5.').asInteger()", 5),
    ("quantity('+5').asInteger()", 5),
    ("quantity('9223372036854775807').asInteger()", 2**63 - 1),
    ("quantity('9223372036854775807').isInteger()", True),
    ("quantity('9223372036854775808').isInteger()", False),
    ("quantity('-9223372036854775808').asInteger()", -(2**63)),
    ("quantity('-9223372036854775808').isInteger()", True),
    ("quantity('-9223372036854775809').isInteger()", False),
    ("quantity('1').add(quantity('2')) == quantity('3')", True),
    ("quantity('1').isLessThan(quantity('1'))", False),
    ("quantity('1').isLessThan(quantity('2'))", True),
    ("quantity('2').isGreaterThan(quantity('2'))", False),
    ("quantity('1') == quantity('1000m')", True),
    ("isQuantity(1)", False),
    ("isQuantity('')", False),
    ("isQuantity('1.2.3')", False),
    # formats
    (f"format.dns1035Label().validate('{'a' * 63}').hasValue()", False),
    ("format.dns1035LabelPrefix().validate('abc-').hasValue()", False),
    ("format.dns1123LabelPrefix().validate('Abc-').hasValue()", True),
    ("format.dns1123SubdomainPrefix().validate('a.b-').hasValue()", False),
    ("format.labelValue().validate('a b').hasValue()", True),
    ("format.labelValue().validate('a-b').hasValue()", False),
    ("format.uuid().validate('123E4567-E89B-12D3-A456-426614174000').hasValue()", False),
    ("format.byte().validate('aGVsbA==').hasValue()", False),
    ("format.byte().validate('aGVsbG8h').hasValue()", False),
    ("format.byte().validate('').hasValue()", False),
    ("format.date().validate('20210101').hasValue()", True),
    ("format.date().validate('2021-02-30').hasValue()", True),
    ("format.datetime().validate('2021-01-01T00:00:00+01:00').hasValue()", False),
    ("format.named('byte').value() == format.byte()", True),
    ("format.byte() == format.uuid()", False),
    ("format.qualifiedName().validate('-x').hasValue()", True),
]

ERRORS: list[tuple[str, str]] = [
    ("optional.none().value()", "optional.none() dereference"),
    ("optional.of(1).or(2)", "no such overload: or"),
    ("'str'.?b", "no such overload: optional field selection on StringType"),
    ("'ab'[?0]", "no such overload: optional index on StringType"),
    ("[1, 'a'].isSorted()", "no such overload: isSorted"),
    # a receiver or argument of the wrong type reaches the function at run time: cel-go's dispatch error
    ("(1).isSorted()", "no such overload: isSorted"),
    ("'ab'.isSorted()", "no such overload: isSorted"),
    ("(1).sum()", "no such overload: sum"),
    ("['a', 'b'].sum()", "no such overload: sum"),  # lists.go: sum() of int, uint, double, duration only
    ("[[1]].sum()", "no such overload: sum"),
    ("[true].sum()", "no such overload: sum"),
    ("(1).min()", "no such overload: min"),
    ("(1).indexOf(1)", "no such overload: indexOf"),
    ("'abc'.indexOf(1)", "no such overload: indexOf"),
    ("(1).lastIndexOf(1)", "no such overload: lastIndexOf"),
    ("'abc'.lastIndexOf(1)", "no such overload: lastIndexOf"),
    ("'abc'.find(1)", "no such overload: find"),
    ("(1).find('a')", "no such overload: find"),
    ("'abc'.findAll(1)", "no such overload: findAll"),
    ("(1).findAll('a')", "no such overload: findAll"),
    ("(1).orValue(2)", "no such overload: orValue"),
    ("(1).value()", "no such overload: value"),
    ("(1).hasValue()", "no such overload: hasValue"),
    ("[].max()", "max called on empty list"),
    ("[].min()", "min called on empty list"),
    ("[1, 'a'].min()", "no such overload: min"),
    ("[1, 'a'].max()", "no such overload: max"),
    ("'abcabc'.indexOf('c', 7)", "index out of range: 7"),
    ("'abcabc'.indexOf('c', -1)", "index out of range: -1"),
    ("'abcabc'.lastIndexOf('c', 7)", "index out of range: 7"),
    ("'abcabc'.lastIndexOf('c', -1)", "index out of range: -1"),
    ("'abc'.charAt(4)", "index out of range: 4"),
    ("'abc'.charAt(-1)", "index out of range: -1"),
    ("'abc'.substring(4)", "index out of range: 4"),
    ("'abc'.substring(-1)", "index out of range: -1"),
    ("'abc'.substring(2, 1)", "index out of range: 1"),
    ("'abc'.substring(0, 4)", "index out of range: 4"),
    ("['a', 1].join()", "no such overload: join"),
    ("'abc'.find('(')", "error parsing regexp: missing closing ): `(`"),
    ("'abc'.findAll('(')", "error parsing regexp: missing closing ): `(`"),
    ("url('')", 'URL parse error during conversion from string: parse "": empty url'),
    ("url('http://a\\tb/')",
     'URL parse error during conversion from string: parse "http://a\\tb/": net/url: invalid control character in URL'),
    ("url('mailto:x@y')", 'URL parse error during conversion from string: parse "mailto:x@y": invalid URI for request'),
    ("url(':x')", 'URL parse error during conversion from string: parse ":x": invalid URI for request'),
    ("url('http://example.com:ab/')",
     'URL parse error during conversion from string: parse "http://example.com:ab/": invalid port ":ab" after host'),
    ("url('http://a:1:2/')",
     'URL parse error during conversion from string: parse "http://a:1:2/": invalid port ":2" after host'),
    ("url('http://[::1/')",
     "URL parse error during conversion from string: parse \"http://[::1/\": missing ']' in host"),
    ("isURL(1)", "no such overload: isURL"),
    ("url(1)", "no such overload: url"),
    ("'x'.getHost()", "no such overload: getHost"),
    ("quantity('9223372036854775808').asInteger()", "cannot convert value to integer"),
    ("quantity('1m').asInteger()", "cannot convert value to integer"),
    ("quantity('1').add('x')", "no such overload: add/sub"),
    ("quantity('1').add(1.5)", "no such overload: add/sub"),
    ("quantity('1').sub(true)", "no such overload: add/sub"),
    ("quantity('1').compareTo(1)", "no such overload: compareTo"),
    ("quantity('1').isGreaterThan(1)", "no such overload: isGreaterThan"),
    ("quantity('1').isLessThan(1)", "no such overload: isLessThan"),
    ("quantity(1)", "no such overload: quantity"),
    ("quantity('1.2.3')",
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    ("format.dns1123Label().validate(1)", "no such overload: validate"),
    ("'x'.validate('x')", "no such overload: validate"),
]

FORMAT_PROBLEMS: list[tuple[str, str]] = [
    ("format.dns1035Label().validate('1abc')",
     "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
     "character, and end with an alphanumeric character"),
    (f"format.dns1035Label().validate('{'a' * 64}')", "must be no more than 63 characters"),
    ("format.uri().validate('../x')", "invalid URI for request"),
    ("format.uuid().validate('123e4567-e89b-12d3-a456-42661417400')", "does not match the UUID format"),
    ("format.byte().validate('aGVsbG8')", "invalid base64"),
    ("format.date().validate('2021-1-01')", "invalid date"),
    ("format.datetime().validate('2021-01-01')", "invalid datetime"),
    ("format.named('uuid').value().validate('x')", "does not match the UUID format"),
]


def _plain(value: Any) -> Any:
    return [str(v) if isinstance(v, str) else v for v in value] if isinstance(value, list) else value


@pytest.mark.parametrize(("expr", "expected"), VALUES, ids=[e for e, _ in VALUES])
def test_library_value(expr: str, expected: Any) -> None:
    from celpy import celtypes

    got = _value(expr)
    assert _plain(got) == expected
    if isinstance(expected, bool):
        assert isinstance(got, celtypes.BoolType)
    elif isinstance(expected, int):
        assert isinstance(got, celtypes.IntType) and not isinstance(got, celtypes.BoolType)


@pytest.mark.parametrize(("expr", "message"), ERRORS, ids=[e for e, _ in ERRORS])
def test_library_error(expr: str, message: str) -> None:
    assert error_of(expr) == message


@pytest.mark.parametrize(("expr", "problem"), FORMAT_PROBLEMS, ids=[e for e, _ in FORMAT_PROBLEMS])
def test_format_validate_lists_the_problem(expr: str, problem: str) -> None:
    assert _value(f"{expr}.value()") == [problem]


def test_equal_library_values_hash_alike_and_optionals_say_what_they_hold() -> None:
    """Equal values must hash alike to be found in maps and sets (celpy keeps map keys in dicts)."""
    from kubectl_testbench.validate.cel.library import URL, Format, Optional, Quantity

    values = [_value("optional.of('a')"), _value("optional.none()"), _value("url('https://a/b?q=1')"),
              _value("quantity('1')"), _value("format.dns1123Label()")]
    again = [_value("optional.of('a')"), _value("optional.none()"), _value("url('https://a/b?q=1')"),
             _value("quantity('1000m')"), _value("format.dns1123Label()")]
    assert [type(v) for v in values] == [Optional, Optional, URL, Quantity, Format]
    for one, other in zip(values, again, strict=True):
        assert hash(one) == hash(other)
    assert len(set(values) | set(again)) == 5
    assert len({_value("optional.of('a')"), _value("optional.of('b')"), _value("optional.none()")}) == 3
    assert len({_value("url('https://a/b')"), _value("url('https://a/c')"), _value("quantity('2')"),
                _value("quantity('3')"), _value("format.dns1123Label()"), _value("format.uri()")}) == 6
    assert Optional().present is False
    assert (repr(values[0]), repr(values[1])) == ("optional.of(StringType('a'))", "optional.none()")
