"""Plain-scalar resolution as Kubernetes reads YAML (sigs.k8s.io/yaml on go-yaml v2, i.e. YAML 1.1).

``enabled: yes`` is ``true`` for the API server, ``1:20`` is the string "1:20" (go-yaml has no
sexagesimal numbers) and ``0755`` is 493. We read values exactly so, and report where a YAML 1.2 tool
(or a human) would read the same text differently.
"""

from __future__ import annotations

import math
import re
from typing import Any

from kubectl_testbench.rules.yaml import YAML_LEGACY_OCTAL, YAML_NON_FINITE, YAML_SEXAGESIMAL, YAML_YAML11_BOOLEAN

_BOOL_NULL: dict[str, Any] = {}
for _words, _value in (
    (("y", "Y", "yes", "Yes", "YES", "on", "On", "ON"), True),
    (("true", "True", "TRUE"), True),
    (("n", "N", "no", "No", "NO", "off", "Off", "OFF"), False),
    (("false", "False", "FALSE"), False),
    (("", "~", "null", "Null", "NULL"), None),
    ((".nan", ".NaN", ".NAN"), math.nan),
    ((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    (("-.inf", "-.Inf", "-.INF"), -math.inf),
):
    for _w in _words:
        _BOOL_NULL[_w] = _value

YAML11_ONLY_BOOLS = frozenset(("y", "Y", "yes", "Yes", "YES", "on", "On", "ON",
                               "n", "N", "no", "No", "NO", "off", "Off", "OFF"))
_GO_INT = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_GO_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_SEXAGESIMAL = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
_LEGACY_OCTAL = re.compile(r"[-+]?0[0-7_]+")
_INT64 = 2**63


class Note:
    """Why a scalar deserves a remark: how Kubernetes reads it differs from a YAML 1.2 reading."""

    YAML11_BOOL = YAML_YAML11_BOOLEAN.id
    SEXAGESIMAL = YAML_SEXAGESIMAL.id
    OCTAL = YAML_LEGACY_OCTAL.id
    NON_FINITE = YAML_NON_FINITE.id


def resolve_plain(text: str) -> tuple[Any, str | None]:
    """The value of an untagged plain scalar, and a :class:`Note` kind when its reading is surprising."""
    if text in _BOOL_NULL:
        value = _BOOL_NULL[text]
        if text in YAML11_ONLY_BOOLS:
            return value, Note.YAML11_BOOL
        if isinstance(value, float):
            return value, Note.NON_FINITE
        return value, None
    if text[0] in _NUMBER_START:
        return _resolve_number(text)
    return text, None


def _resolve_number(text: str) -> tuple[Any, str | None]:
    kind, value = _number(text)
    if kind == "int":
        plain = text.replace("_", "")
        note = Note.OCTAL if _LEGACY_OCTAL.fullmatch(text) and len(plain.lstrip("+-")) > 1 else None
        return value, note
    if kind == "float":
        return _normalise(value), None
    if _SEXAGESIMAL.fullmatch(text):
        return text, Note.SEXAGESIMAL
    return text, None


def _number(text: str) -> tuple[str, Any]:
    """go-yaml's reading of a scalar that starts like a number: ("int", int), ("float", float) or ("str", text).

    Integers are strconv.ParseInt (int64), then ParseUint (uint64, which takes no sign: "+18446744073709551615"
    is a float and "+0xFFFFFFFFFFFFFFFF" a string), then a float; a float that overflows stays a string.
    """
    if text[0] == ".":
        # go-yaml hands the text itself to strconv.ParseFloat: "._5" stays a string, ".5_0" is 0.5
        if _GO_FLOAT.fullmatch(text.replace("_", "")) and _underscores_ok(text):
            return "float", float(text)  # its underscores are between digits, as Python wants them too
        return "str", text
    plain = text.replace("_", "")
    if len(plain) <= _MAX_INT_TEXT and _GO_INT.fullmatch(plain):
        value = _go_parse_int(plain)
        if -_INT64 <= value < _INT64 or (plain[0].isdigit() and value < 2 * _INT64):
            return "int", value
    if _GO_FLOAT.fullmatch(plain):
        number = float(plain)
        if not math.isinf(number):  # Go's ParseFloat fails on overflow, so the text stays a string
            return "float", number
    return "str", text


_MAX_INT_TEXT = 67
"""The longest text a 64-bit integer can have (``-0b`` and 64 binary digits): longer ones are no int64 or
uint64 for Go, and Python's int() refuses texts over 4,300 digits."""


def _underscores_ok(text: str) -> bool:
    """strconv's rule for underscores in a number: each one between two digits."""
    return all(text[i - 1].isdigit() and text[i + 1:i + 2].isdigit() for i, c in enumerate(text) if c == "_")


def _go_parse_int(plain: str) -> int:
    """strconv.ParseInt with base 0, whose one difference from Python's is the legacy octal ``017``."""
    if _LEGACY_OCTAL.fullmatch(plain):
        return int(plain.replace("0", "0o", 1), 0)
    return int(plain, 0)


def _normalise(value: float) -> float | int:
    """JSON has one number type: the API server stores integral floats (``1.0``) as integers."""
    if value.is_integer() and abs(value) < 1e21:
        return int(value)
    return value


def _binary(text: str) -> str:
    """``!!binary``: go-yaml decodes the base64 (line breaks ignored) into a string; invalid UTF-8 becomes
    U+FFFD byte by byte when the value is written as JSON."""
    import base64
    import binascii

    try:
        data = base64.b64decode(text.replace("\n", "").replace("\r", ""), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("!!binary value contains invalid base64 data") from None
    value = data.decode(errors="surrogateescape")
    return _ESCAPED.sub("\ufffd", value)


_ESCAPED = re.compile("[\udc80-\udcff]")


def resolve_tagged(tag: str, text: str) -> Any:
    """The value of a scalar with an explicit core tag (``!!str 10``). Raises ValueError if it cannot be.

    go-yaml reads the text as if it were plain and refuses a tag that disagrees with that reading
    (``!!null x``, ``!!int 1.5``, ``!!int 18446744073709551616``); only ``!!float`` also takes an int64.
    """
    short = tag.removeprefix("tag:yaml.org,2002:")
    if short in ("str", "timestamp"):
        return text
    if short == "binary":
        return _binary(text)
    if short not in ("null", "bool", "int", "float"):
        raise ValueError(f"unsupported tag !!{short}")
    if text in _BOOL_NULL:
        kind, value = _WORD_KIND[type(_BOOL_NULL[text])], _BOOL_NULL[text]
    elif text[:1] in _NUMBER_START:
        kind, value = _number(text)
    else:
        kind, value = "str", text
    if kind == "int" and short == "float" and -_INT64 <= value < _INT64:
        kind, value = "float", float(value)
    if kind != short:
        raise ValueError(f"cannot read {text!r} as {_TAG_NOUN[short]}")
    return _normalise(value) if kind == "float" else value


_NUMBER_START = frozenset("0123456789+-.")
_WORD_KIND = {bool: "bool", type(None): "null", float: "float"}
_TAG_NOUN = {"null": "null", "bool": "a boolean", "int": "an integer", "float": "a number"}
