"""Scalars as sigs.k8s.io/yaml (go-yaml v2) reads them: explicit core tags, signed hex/octal/binary, the 64-bit bounds.

Every row is what Kubernetes' decoder makes of ``v: <text>``; tests/oracle/test_scalars_oracle.py checks the same
rows against the real decoder (YAMLToJSON), so the table cannot drift from it.
"""

from __future__ import annotations

import math

import pytest

from kubectl_testbench.load.builder import build
from kubectl_testbench.load.scalars import resolve_plain, resolve_tagged

INT64 = 2**63
UINT64 = 2**64

# (plain text, value, note)
PLAIN: list[tuple[str, object, str | None]] = [
    ("-0x1F", -31, None),
    ("+0x1F", 31, None),
    ("-0o17", -15, None),
    ("+0o17", 15, None),
    ("-017", -15, "yaml/legacy-octal"),
    ("-0b101", -5, None),
    ("0b1_0", 2, None),
    ("0_17", 15, "yaml/legacy-octal"),
    ("00", 0, "yaml/legacy-octal"),
    ("01", 1, "yaml/legacy-octal"),
    ("0100", 64, "yaml/legacy-octal"),
    ("-0100", -64, "yaml/legacy-octal"),
    ("0_", 0, None),  # one digit once the underscore is gone: no octal reading to remark on
    ("0_1", 1, "yaml/legacy-octal"),
    ("0", 0, None),
    ("-0", 0, None),
    ("08", 8, None),
    # int64, then uint64 (no sign allowed), then a float, then a string
    ("9223372036854775807", INT64 - 1, None),
    ("9223372036854775808", INT64, None),
    ("+9223372036854775807", INT64 - 1, None),
    ("+9223372036854775808", INT64, None),  # a float for Go, exactly 2**63
    ("-9223372036854775808", -INT64, None),
    ("-9223372036854775809", -INT64, None),  # a float for Go: rounds to -2**63
    ("18446744073709551615", UINT64 - 1, None),
    ("+18446744073709551615", UINT64, None),  # ParseUint takes no sign: a float, rounded
    ("18446744073709551617", UINT64, None),  # past uint64: a float, rounded
    ("-18446744073709551616", -UINT64, None),
    ("0x7FFFFFFFFFFFFFFF", INT64 - 1, None),
    ("0x8000000000000000", INT64, None),
    ("0xFFFFFFFFFFFFFFFF", UINT64 - 1, None),
    ("0x10000000000000000", "0x10000000000000000", None),  # no hex floats in YAML: a string
    ("+0xFFFFFFFFFFFFFFFF", "+0xFFFFFFFFFFFFFFFF", None),
    ("+0x8000000000000000", "+0x8000000000000000", None),
    ("-0x8000000000000000", -INT64, None),
    ("-0x8000000000000001", "-0x8000000000000001", None),
    ("1e20", 10**20, None),
    ("1e21", 1e21, None),  # from 1e21 on, JSON numbers keep their exponent
    ("-1e400", "-1e400", None),
    (".5_0", 0.5, None),
    ("._5", "._5", None),
    (".5_", ".5_", None),
    (".5_e3", ".5_e3", None),  # an underscore must sit between two digits
    (".5_5", 0.55, None),
    (".5_5e3", 550, None),
    ("1_.5", 1.5, None),  # not after a '.': go-yaml drops the underscores first
    ("0o", "0o", None),
    ("0x", "0x", None),
    ("0b", "0b", None),
    ("+", "+", None),
    ("-1:20", "-1:20", "yaml/sexagesimal"),
    ("1:20.5", "1:20.5", "yaml/sexagesimal"),
    ("190:20:30", "190:20:30", "yaml/sexagesimal"),
    ("_1", "_1", None),
    ("Y", True, "yaml/yaml11-boolean"),
    ("OFF", False, "yaml/yaml11-boolean"),
    ("TRUE", True, None),
    ("NULL", None, None),
]

# (tag, text, value); value None with ok False means Kubernetes refuses the document
TAGGED: list[tuple[str, str, object]] = [
    ("null", "", None),
    ("null", "~", None),
    ("null", "null", None),
    ("null", "Null", None),
    ("bool", "yes", True),
    ("bool", "y", True),
    ("bool", "on", True),
    ("bool", "True", True),
    ("bool", "off", False),
    ("bool", "FALSE", False),
    ("int", "-0x1F", -31),
    ("int", "+0x1F", 31),
    ("int", "-0o17", -15),
    ("int", "017", 15),
    ("int", "1_000", 1000),
    ("int", "0b1_0", 2),
    ("int", "1_", 1),
    ("int", "9223372036854775808", INT64),
    ("int", "18446744073709551615", UINT64 - 1),
    ("int", "-0x8000000000000000", -INT64),
    ("float", "1", 1),
    ("float", "0x10", 16),
    ("float", "-0x10", -16),
    ("float", "0o17", 15),
    ("float", "017", 15),
    ("float", "00", 0),
    ("float", "1_000", 1000),
    ("float", "1e3", 1000),
    ("float", ".5", 0.5),
    ("float", "9223372036854775807", INT64),  # the int64 becomes a float64: rounds up to 2**63
    ("float", "-9223372036854775808", -INT64),
    ("float", "18446744073709551616", UINT64),
    ("float", "1e-400", 0),
    ("str", "5", "5"),
    ("timestamp", "2001-01-01", "2001-01-01"),  # sigs.k8s.io/yaml writes a timestamp back as its text
    ("str", "yes", "yes"),
]

# (tag, text, message): go-yaml refuses a tag that disagrees with the plain reading of the text
REFUSED: list[tuple[str, str, str]] = [
    ("null", "x", "cannot read 'x' as null"),
    ("null", "5", "cannot read '5' as null"),
    ("null", "yes", "cannot read 'yes' as null"),
    ("null", "1e400", "cannot read '1e400' as null"),
    ("bool", "1", "cannot read '1' as a boolean"),
    ("bool", "xyz", "cannot read 'xyz' as a boolean"),
    ("bool", "", "cannot read '' as a boolean"),
    ("bool", "~", "cannot read '~' as a boolean"),
    ("int", "1.5", "cannot read '1.5' as an integer"),
    ("int", "1e3", "cannot read '1e3' as an integer"),
    ("int", "08", "cannot read '08' as an integer"),
    ("int", "abc", "cannot read 'abc' as an integer"),
    ("int", "", "cannot read '' as an integer"),
    ("int", "_1", "cannot read '_1' as an integer"),
    ("int", "18446744073709551616", "cannot read '18446744073709551616' as an integer"),
    ("int", "-9223372036854775809", "cannot read '-9223372036854775809' as an integer"),
    ("int", "+9223372036854775808", "cannot read '+9223372036854775808' as an integer"),
    ("int", "0x10000000000000000", "cannot read '0x10000000000000000' as an integer"),
    ("int", "-0x8000000000000001", "cannot read '-0x8000000000000001' as an integer"),
    ("float", "9223372036854775808", "cannot read '9223372036854775808' as a number"),  # a uint64 is no float
    ("float", "1e400", "cannot read '1e400' as a number"),
    ("float", "abc", "cannot read 'abc' as a number"),
    ("float", "", "cannot read '' as a number"),
    ("float", "._5", "cannot read '._5' as a number"),
    ("float", "1:20", "cannot read '1:20' as a number"),
]


@pytest.mark.parametrize(("text", "value", "note"), PLAIN, ids=[c[0] for c in PLAIN])
def test_plain_scalar_reads_as_kubernetes_reads_it(text: str, value: object, note: str | None) -> None:
    got, got_note = resolve_plain(text)
    assert (got, type(got), got_note) == (value, type(value), note)


@pytest.mark.parametrize(("tag", "text", "value"), TAGGED, ids=[f"{c[0]}-{c[1]}" for c in TAGGED])
def test_tagged_scalar_reads_as_kubernetes_reads_it(tag: str, text: str, value: object) -> None:
    for spelled in (f"tag:yaml.org,2002:{tag}", tag):
        got = resolve_tagged(spelled, text)
        assert (got, type(got)) == (value, type(value))


@pytest.mark.parametrize(("tag", "text", "message"), REFUSED, ids=[f"{c[0]}-{c[1]}" for c in REFUSED])
def test_tag_that_disagrees_with_the_text_is_refused(tag: str, text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        resolve_tagged(f"tag:yaml.org,2002:{tag}", text)
    assert str(info.value) == message


@pytest.mark.parametrize("text", [".inf", "-.Inf", ".NAN"])
def test_tagged_float_keeps_the_non_finite_values(text: str) -> None:
    got = resolve_tagged("tag:yaml.org,2002:float", text)
    expected = resolve_plain(text)[0]
    assert isinstance(got, float) and (math.isnan(got) if math.isnan(expected) else got == expected)


def test_unknown_core_tag_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"^unsupported tag !!set$"):
        resolve_tagged("tag:yaml.org,2002:set", "x")


def test_refused_tag_is_a_yaml_tag_error_at_the_value() -> None:
    result = build("a: 1\nb: !!null x\n", line_offset=2)
    assert result.error is not None
    assert (result.error.rule, result.error.message, result.error.mark) == ("yaml/tag", "cannot read 'x' as null",
                                                                            (4, 4))


def test_tagged_values_in_a_document() -> None:
    result = build("a: !!null ''\nb: !!bool yes\nc: !!int -0x1F\nd: !!float 0x10\ne: !!int 017\n")
    assert result.error is None and result.remarks == []
    assert result.data == {"a": None, "b": True, "c": -31, "d": 16, "e": 15}


def test_tagged_non_finite_float_is_flagged_like_a_plain_one() -> None:
    # YAMLToJSON fails on both ("json: unsupported value: +Inf"): the tag must not hide it
    result = build("a: !!float .inf\nb: -.inf\n")
    assert [(r.rule, r.message, r.mark, r.text) for r in result.remarks] == [
        ("yaml/non-finite", ".inf cannot be represented in JSON; Kubernetes rejects it", (1, 4), ".inf"),
        ("yaml/non-finite", "-.inf cannot be represented in JSON; Kubernetes rejects it", (2, 4), "-.inf"),
    ]


@pytest.mark.parametrize(("text", "value"), [
    ("aGVsbG8=", "hello"),
    ("aGVs\nbG8=", "hello"),  # a block scalar's line breaks are ignored
    ("aGVs\rbG8=", "hello"),
    ("aGVs\r\nbG8=\n", "hello"),
    ("w6k=", "é"),
    ("/w==", "\ufffd"),  # not UTF-8: JSON gets U+FFFD for each bad byte
    ("aP9p", "h\ufffdi"),
])
def test_binary_is_decoded_base64(text: str, value: str) -> None:
    assert resolve_tagged("tag:yaml.org,2002:binary", text) == value


@pytest.mark.parametrize("text", ["aGVs bG8=", "aGVsbG8", "aGVsbG8=!"])
def test_binary_that_is_not_base64_is_refused_with_go_yamls_message(text: str) -> None:
    with pytest.raises(ValueError) as info:
        resolve_tagged("tag:yaml.org,2002:binary", text)
    assert str(info.value) == "!!binary value contains invalid base64 data"
