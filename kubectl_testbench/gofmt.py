"""Values written as Go's ``fmt`` writes them, for messages that must read as the API server's.

The API server prints a field error's value with ``%v`` for numbers and booleans and ``%q`` for strings
(apimachinery ``field.Error.ErrorBody``); Testkube's expression engine converts numbers with ``%v``. These are
the one implementation of both, below every package that words such messages.
"""

from __future__ import annotations

import math
import unicodedata

_NAMED = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
          "\\": "\\\\", '"': '\\"'}


def format_v(value: float) -> str:
    """``fmt.Sprintf("%v", float64)`` (strconv's shortest ``'g'``): fixed notation, or ``d.ddde±XX`` when the
    decimal exponent is below -4 or at least 6 (``1e+06``, ``1.234567e+06``, ``1e-05``, ``0.0001``)."""
    from decimal import Decimal

    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value == math.inf else "-Inf"
    if value == 0:
        return "-0" if repr(value).startswith("-") else "0"
    number = Decimal(repr(value)).normalize()
    sign, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)
    decimal_exponent = exponent + len(digits) - 1
    if -4 <= decimal_exponent < 6:
        return f"{number:f}"
    mantissa = str(digits[0]) + ("." + "".join(map(str, digits[1:])) if len(digits) > 1 else "")
    return f"{'-' if sign else ''}{mantissa}e{decimal_exponent:+03d}"


def quote(text: str) -> str:
    """``strconv.Quote``: printable characters kept, the rest escaped (``\\a``, ``\\x7f``, ``\\u2028``)."""
    return '"' + "".join(_quoted(ch) for ch in text) + '"'


def _quoted(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    if ch == " " or unicodedata.category(ch)[0] in "LMNPS":
        return ch
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte kept by surrogateescape: Go writes the byte
        return f"\\x{code - 0xDC00:02x}"
    if 0xD800 <= code <= 0xDFFF:  # any other lone surrogate (a JSON "\\ud800"): Go decodes it as U+FFFD
        return "\ufffd"
    if code < 0x80:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def scalar_v(value: object) -> str | None:
    """``%v`` of a boolean or a number decoded from JSON (``true``, ``3``, ``1e+06``); None for anything else."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_v(value)
    return None


def value_v(value: object) -> str | None:
    """A decoded JSON value as ``ErrorBody`` prints it; None where it omits the value (lists, objects)."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return quote(value)
    return scalar_v(value)
