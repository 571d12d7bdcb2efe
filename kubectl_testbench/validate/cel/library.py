"""The Kubernetes CEL libraries celpy lacks, as the API server declares them.

Sources (kubernetes/kubernetes, staging/src/k8s.io/apiserver/pkg/cel/library): lists.go (isSorted, sum,
min, max, indexOf, lastIndexOf), regex.go (find, findAll), urls.go (url, isURL and the URL getters),
quantity.go (quantity, isQuantity, comparisons, arithmetic), format.go (format.<name>(), format.named,
<Format>.validate); cel-go's ext.Strings (charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace,
split, substring, trim, join, reverse) and its optional types (``.?field``, ``[?index]``, optional.of/none,
hasValue, value, orValue, or); and the core semantics where celpy differs from cel-go (heterogeneous
equality, cross-type numeric ordering, division by zero, list bounds, conversions, ``&&``/``||`` over errors,
``timestamp(int)``). Errors are returned as celpy ``CELEvalError`` values with the messages cel-go gives,
never raised Python exceptions, so a failing call reads like the API server's.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from celpy import celtypes as ct
from celpy.evaluation import CELEvalError

from kubectl_testbench import k8snames
from kubectl_testbench.k8snames import mask_trailing_dash

_INT64 = 2**63


def _err(message: str) -> CELEvalError:
    return CELEvalError(message)


def _as_list(value: Any) -> list[Any] | None:
    return list(value) if isinstance(value, list) else None


# --- optionals (cel-go optional types, enabled in Kubernetes since 1.29) -------------------------------------


class Optional:
    """A CEL ``optional_type`` value: ``optional.of(x)`` or ``optional.none()``."""

    __slots__ = ("present", "value")

    def __init__(self, value: Any = None, present: bool = False) -> None:
        self.value, self.present = value, present

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Optional) and (self.present, self.value) == (other.present, other.value)

    def __hash__(self) -> int:
        return hash((self.present, repr(self.value)))

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.present else "optional.none()"


NONE = Optional()


def optional_of(value: Any) -> Optional:
    return Optional(value, True)


def optional_none() -> Optional:
    return NONE


def optional_of_non_zero_value(value: Any) -> Optional:
    """optional.of(value) unless value is its type's zero (0, 0.0, false, '', b'', [], {}, null)."""
    zero = value is None or (not value if isinstance(value, (int, float, str, bytes, list, dict)) else False)
    return NONE if zero else Optional(value, True)


def has_value(opt: Any) -> Any:
    return ct.BoolType(opt.present) if isinstance(opt, Optional) else _err("no such overload: hasValue")


def value(opt: Any) -> Any:
    if not isinstance(opt, Optional):
        return _err("no such overload: value")
    return opt.value if opt.present else _err("optional.none() dereference")


def or_value(opt: Any, default: Any) -> Any:
    if not isinstance(opt, Optional):
        return _err("no such overload: orValue")
    return opt.value if opt.present else default


def or_(opt: Any, other: Any) -> Any:
    if not isinstance(opt, Optional) or not isinstance(other, Optional):
        return _err("no such overload: or")
    return opt if opt.present else other


def _unwrap(target: Any) -> tuple[bool, Any]:
    """An optional receiver's value; (False, None) for optional.none(), which every selection propagates."""
    if isinstance(target, Optional):
        return target.present, target.value
    return True, target


def opt_select(target: Any, field: Any) -> Any:
    """``target.?field``: the field when present, optional.none() otherwise; chains through optionals."""
    present, target = _unwrap(target)
    if not present:
        return NONE
    if isinstance(target, dict):
        key = ct.StringType(field)
        return Optional(target[key], True) if key in target else NONE
    return _err(f"no such overload: optional field selection on {type(target).__name__}")


def opt_index(target: Any, key: Any) -> Any:
    """``target[?key]``: the element when present, optional.none() otherwise."""
    present, target = _unwrap(target)
    if not present:
        return NONE
    if isinstance(target, list):
        return Optional(target[int(key)], True) if isinstance(key, int) and 0 <= key < len(target) else NONE
    if isinstance(target, dict):
        return Optional(target[key], True) if key in target else NONE
    return _err(f"no such overload: optional index on {type(target).__name__}")


# --- lists.go ------------------------------------------------------------------------------------------------


def is_sorted(items: Any) -> Any:
    items = _as_list(items)
    if items is None:
        return _err("no such overload: isSorted")
    try:
        return ct.BoolType(all(not items[i] > items[i + 1] for i in range(len(items) - 1)))
    except TypeError:
        return _err("no such overload: isSorted")


_SUMMABLE = (ct.IntType, ct.UintType, ct.DoubleType, ct.DurationType)
"""lists.go declares sum() for lists of int, uint, double and duration only."""


def sum_(items: Any) -> Any:
    items = _as_list(items)
    if items is None or (items and type(items[0]) not in _SUMMABLE):
        return _err("no such overload: sum")
    if not items:
        return ct.IntType(0)
    total = items[0]
    for item in items[1:]:
        total = total + item
    return total


def _extreme(items: Any, name: str, pick: Any) -> Any:
    items = _as_list(items)
    if items is None:
        return _err(f"no such overload: {name}")
    if not items:
        return _err(f"{name} called on empty list")
    try:
        return pick(items)
    except TypeError:
        return _err(f"no such overload: {name}")


def min_(items: Any) -> Any:
    return _extreme(items, "min", min)


def max_(items: Any) -> Any:
    return _extreme(items, "max", max)


def index_of(target: Any, item: Any, offset: Any = None) -> Any:
    """lists.go indexOf on lists; ext.Strings indexOf(substr[, offset]) on strings."""
    if isinstance(target, list):
        return ct.IntType(next((i for i, v in enumerate(target) if v == item), -1))
    if isinstance(target, str) and isinstance(item, str):
        start = int(offset) if offset is not None else 0
        if start < 0 or start > len(target):
            return _err(f"index out of range: {start}")
        return ct.IntType(target.find(item, start))
    return _err("no such overload: indexOf")


def last_index_of(target: Any, item: Any, offset: Any = None) -> Any:
    if isinstance(target, list):
        return ct.IntType(next((i for i in range(len(target) - 1, -1, -1) if target[i] == item), -1))
    if isinstance(target, str) and isinstance(item, str):
        end = int(offset) if offset is not None else len(target)
        if end < 0 or end > len(target):
            return _err(f"index out of range: {end}")
        return ct.IntType(target.rfind(item, 0, end + len(item)))
    return _err("no such overload: lastIndexOf")


# --- cel-go ext.Strings --------------------------------------------------------------------------------------


def _string_op(name: str, fn: Any) -> Any:
    def call(s: Any, *args: Any) -> Any:
        if not isinstance(s, str):
            return _err(f"no such overload: {name}")
        try:
            return fn(s, *args)
        except (TypeError, ValueError, IndexError) as err:
            return _err(str(err) or f"no such overload: {name}")

    return call


def _lower_ascii(s: str) -> Any:
    return ct.StringType("".join(c.lower() if c.isascii() else c for c in s))


def _upper_ascii(s: str) -> Any:
    return ct.StringType("".join(c.upper() if c.isascii() else c for c in s))


def _char_at(s: str, i: Any) -> Any:
    if not 0 <= int(i) <= len(s):
        raise IndexError(f"index out of range: {i}")
    return ct.StringType(s[int(i)] if int(i) < len(s) else "")


def _replace(s: str, old: str, new: str, n: Any = -1) -> Any:
    return ct.StringType(s.replace(old, new, int(n)) if int(n) >= 0 else s.replace(old, new))


def _split(s: str, sep: str, n: Any = -1) -> Any:
    count = int(n)
    if count == 0:
        return ct.ListType([])
    parts = (list(s) if sep == "" else s.split(sep)) if count < 0 else (
        list(s[: count - 1]) + ([s[count - 1:]] if len(s) >= count else []) if sep == "" else s.split(sep, count - 1))
    return ct.ListType([ct.StringType(p) for p in parts])


def _substring(s: str, start: Any, end: Any = None) -> Any:
    begin, stop = int(start), len(s) if end is None else int(end)
    if begin < 0 or begin > len(s) or stop > len(s) or stop < begin:
        raise IndexError(f"index out of range: {begin if begin < 0 or begin > len(s) else stop}")
    return ct.StringType(s[begin:stop])


def _trim(s: str) -> Any:
    return ct.StringType(s.strip())


def _reverse(s: str) -> Any:
    return ct.StringType(s[::-1])


def join(items: Any, sep: Any = "") -> Any:
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items) or not isinstance(sep, str):
        return _err("no such overload: join")
    return ct.StringType(sep.join(items))


# --- regex.go ------------------------------------------------------------------------------------------------


def _compile(pattern: str) -> re.Pattern[str] | CELEvalError:
    from kubectl_testbench.validate.cel.regexp import regexp_error
    from kubectl_testbench.validate.schema import re2_to_python

    error = regexp_error(pattern)
    return _err(error) if error is not None else re.compile(re2_to_python(pattern))


def find(s: Any, pattern: Any) -> Any:
    if not isinstance(s, str) or not isinstance(pattern, str):
        return _err("no such overload: find")
    compiled = _compile(pattern)
    if isinstance(compiled, CELEvalError):
        return compiled
    match = compiled.search(s)
    return ct.StringType(match.group(0) if match else "")


def find_all(s: Any, pattern: Any, limit: Any = -1) -> Any:
    if not isinstance(s, str) or not isinstance(pattern, str):
        return _err("no such overload: findAll")
    compiled = _compile(pattern)
    if isinstance(compiled, CELEvalError):
        return compiled
    found: list[Any] = []
    previous_end = -1
    for match in compiled.finditer(s):
        if match.start() == match.end() == previous_end:
            continue  # Go skips an empty match right after the previous match
        if 0 <= int(limit) <= len(found):
            break
        found.append(ct.StringType(match.group(0)))
        previous_end = match.end()
    return ct.ListType(found)


# --- urls.go -------------------------------------------------------------------------------------------------

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")


class URL:
    """A URL as url.ParseRequestURI accepts it (an absolute URI or an absolute path)."""

    __slots__ = ("host", "path", "query", "scheme")

    def __init__(self, scheme: str, host: str, path: str, query: str) -> None:
        self.scheme, self.host, self.path, self.query = scheme, host, path, query

    def __eq__(self, other: object) -> bool:
        return isinstance(other, URL) and (self.scheme, self.host, self.path, self.query) == (
            other.scheme, other.host, other.path, other.query)

    def __hash__(self) -> int:
        return hash((self.scheme, self.host, self.path, self.query))


def parse_request_uri(text: str) -> URL | str:
    """The URL, or the reason Go's ``url.ParseRequestURI`` refuses ``text``."""
    if not text:
        return "empty url"
    if any(ord(c) < 0x20 or c == "\x7f" for c in text):
        return "net/url: invalid control character in URL"
    if text.startswith("/"):
        scheme, rest = "", text
    else:
        colon = text.find(":")
        if colon <= 0 or not _SCHEME.fullmatch(text[:colon]):
            return "invalid URI for request"
        scheme, rest = text[:colon].lower(), text[colon + 1:]
        if not rest.startswith("/") and rest:
            return "invalid URI for request"  # opaque URIs (mailto:x) are not request URIs
    try:
        parts = urlsplit("x://" + rest[2:] if rest.startswith("//") else rest, allow_fragments=False)
    except ValueError:  # urlsplit's "Invalid IPv6 URL": an unclosed '[' in the host
        return "missing ']' in host"
    host = ""
    if rest.startswith("//"):
        authority = rest[2:].split("/", 1)[0].split("?", 1)[0]
        host = authority.rsplit("@", 1)[-1]
        port = host.rsplit("]", 1)[-1] if host.startswith("[") else host
        if ":" in port:
            digits = port.rsplit(":", 1)[1]
            if not digits.isdigit() and digits != "":
                return f'invalid port ":{digits}" after host'
            if host.count(":") > 1 and not host.startswith("["):
                return f'invalid port ":{digits}" after host'
    return URL(scheme, host, unquote(parts.path), parts.query)


def url(text: Any) -> Any:
    if not isinstance(text, str):
        return _err("no such overload: url")
    parsed = parse_request_uri(text)
    if isinstance(parsed, str):
        quoted = json.dumps(str(text), ensure_ascii=False)  # Go's url.Error quotes the URL with %q
        return _err(f"URL parse error during conversion from string: parse {quoted}: {parsed}")
    return parsed


def is_url(text: Any) -> Any:
    if not isinstance(text, str):
        return _err("no such overload: isURL")
    return ct.BoolType(isinstance(parse_request_uri(text), URL))


def _url_getter(name: str, fn: Any) -> Any:
    def call(u: Any) -> Any:
        return fn(u) if isinstance(u, URL) else _err(f"no such overload: {name}")

    return call


def _hostname(u: URL) -> Any:
    host = u.host
    if host.startswith("["):
        return ct.StringType(host[1: host.index("]")] if "]" in host else host[1:])
    return ct.StringType(host.rsplit(":", 1)[0] if ":" in host else host)


def _port(u: URL) -> Any:
    host = u.host.rsplit("]", 1)[-1] if u.host.startswith("[") else u.host
    return ct.StringType(host.rsplit(":", 1)[1] if ":" in host else "")


def _query(u: URL) -> Any:
    pairs = parse_qs(u.query, keep_blank_values=True)
    return ct.MapType({ct.StringType(k): ct.ListType([ct.StringType(v) for v in vs]) for k, vs in pairs.items()})


# --- quantity.go ---------------------------------------------------------------------------------------------

_QUANTITY = re.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?")
_SUFFIX: dict[str, int | Decimal] = {
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60, "n": Decimal("1e-9"),
    "u": Decimal("1e-6"), "m": Decimal("1e-3"), "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15,
    "E": 10**18}


class Quantity:
    """resource.Quantity reduced to what the CEL library observes: its exact value."""

    __slots__ = ("amount",)

    def __init__(self, amount: Decimal) -> None:
        self.amount = amount

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.amount == other.amount

    def __hash__(self) -> int:
        return hash(self.amount)


def parse_quantity(text: str) -> Quantity | None:
    """resource.ParseQuantity: a number and an optional SI, binary SI or exponent suffix."""
    m = _QUANTITY.fullmatch(text)
    if m is None:
        return None
    number, suffix = m.group(1), m.group(2) or ""
    try:
        amount = Decimal(number)
    except InvalidOperation:
        return None
    if suffix in _SUFFIX:
        amount *= _SUFFIX[suffix]
    elif suffix:  # a decimal exponent: e3, E-2 (Ei is the binary suffix above)
        amount = amount.scaleb(int(suffix[1:]))
    return Quantity(amount)


def quantity(text: Any) -> Any:
    if not isinstance(text, str):
        return _err("no such overload: quantity")
    parsed = parse_quantity(text)
    return parsed if parsed is not None else _err("quantities must match the regular expression "
                                                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")


def is_quantity(text: Any) -> Any:
    return ct.BoolType(isinstance(text, str) and parse_quantity(text) is not None)


def _q(name: str, fn: Any) -> Any:
    def call(q: Any, *args: Any) -> Any:
        if not isinstance(q, Quantity):
            return _err(f"no such overload: {name}")
        return fn(q, *args)

    return call


def _operand(other: Any) -> Decimal | None:
    if isinstance(other, Quantity):
        return other.amount
    if isinstance(other, int) and not isinstance(other, (bool, ct.BoolType)):
        return Decimal(int(other))
    if isinstance(other, str):  # quantity("50k").add("20k") in the library's examples
        parsed = parse_quantity(other)
        return parsed.amount if parsed is not None else None
    return None


def _arith(sign: int) -> Any:
    def call(q: Quantity, other: Any) -> Any:
        amount = _operand(other)
        if amount is None:
            return _err("no such overload: add/sub")
        return Quantity(q.amount + sign * amount)

    return call


def _compare(q: Quantity, other: Any) -> int | None:
    if not isinstance(other, Quantity):
        return None
    return (q.amount > other.amount) - (q.amount < other.amount)


def _as_integer(q: Quantity) -> Any:
    amount = q.amount
    if amount != amount.to_integral_value() or not -_INT64 <= amount < _INT64:
        return _err("cannot convert value to integer")
    return ct.IntType(int(amount))


def _is_integer(q: Quantity) -> Any:
    return ct.BoolType(q.amount == q.amount.to_integral_value() and -_INT64 <= q.amount < _INT64)


def _cmp_fn(name: str, result: Any) -> Any:
    def call(q: Quantity, other: Any) -> Any:
        cmp = _compare(q, other)
        return _err(f"no such overload: {name}") if cmp is None else result(cmp)

    return call


# --- format.go -----------------------------------------------------------------------------------------------


class Format:
    """A named string format (format.dns1123Label() ...); ``validate`` returns optional errors."""

    __slots__ = ("check", "name")

    def __init__(self, name: str, check: Any) -> None:
        self.name, self.check = name, check

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Format) and self.name == other.name

    def __hash__(self) -> int:
        return hash(self.name)


def _dns1035(value: str) -> str | None:
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not re.fullmatch(r"[a-z]([-a-z0-9]*[a-z0-9])?", value):
        return ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                "alphabetic character, and end with an alphanumeric character")
    return None


def _strfmt(pattern: str, message: str) -> Any:
    compiled = re.compile(pattern)
    return lambda s: None if compiled.fullmatch(s) else message


FORMATS: dict[str, Any] = {
    "dns1123Label": k8snames.dns1123_label_error,
    "dns1123Subdomain": k8snames.dns1123_subdomain_error,
    "dns1035Label": _dns1035,
    "qualifiedName": k8snames.qualified_name_error,
    "dns1123LabelPrefix": lambda s: k8snames.dns1123_label_error(mask_trailing_dash(s)),
    "dns1123SubdomainPrefix": lambda s: k8snames.dns1123_subdomain_error(mask_trailing_dash(s)),
    "dns1035LabelPrefix": lambda s: _dns1035(mask_trailing_dash(s)),
    "labelValue": k8snames.label_value_error,
    "uri": lambda s: None if isinstance(parse_request_uri(s), URL) else str(parse_request_uri(s)),
    "uuid": _strfmt(r"(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                    "does not match the UUID format"),
    "byte": _strfmt(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?", "invalid base64"),
    "date": lambda s: None if _date(s) else "invalid date",
    "datetime": lambda s: None if _datetime(s) else "invalid datetime",
}


def _date(s: str) -> bool:
    from datetime import date

    try:
        date.fromisoformat(s)
    except ValueError:
        return False
    return len(s) == 10


def _datetime(s: str) -> bool:
    from kubectl_testbench.validate.metadata import is_rfc3339

    return is_rfc3339(s)


def format_named(name: Any) -> Any:
    check = FORMATS.get(str(name))
    return Optional(Format(str(name), check), True) if check is not None else NONE


def validate(fmt: Any, text: Any) -> Any:
    if not isinstance(fmt, Format) or not isinstance(text, str):
        return _err("no such overload: validate")
    problem = fmt.check(text)
    return NONE if problem is None else Optional(ct.ListType([ct.StringType(problem)]), True)


# --- the function table ---------------------------------------------------------------------------------------


# --- core operators where celpy differs from cel-go ------------------------------------------------------------

def _number(value: Any) -> bool:
    """int, uint or double, whichever Python class carries it (``sum()`` returns a plain float)."""
    return isinstance(value, (int, float)) and not isinstance(value, (bool, ct.BoolType))


def cel_equal(left: Any, right: Any) -> bool:
    """cel-go's heterogeneous equality: numbers by value across int, uint and double (NaN equals nothing),
    other values only with their own kind (``true == 1`` is false, where Python's ``True == 1`` is true),
    lists and maps element by element."""
    if _number(left) and _number(right):
        return not _is_nan(left) and not _is_nan(right) and Decimal(str(left)) == Decimal(str(right))
    if isinstance(left, ct.ListType) and isinstance(right, ct.ListType):
        return len(left) == len(right) and all(cel_equal(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, ct.MapType) and isinstance(right, ct.MapType):
        return len(left) == len(right) and all(
            any(cel_equal(k, j) and cel_equal(v, right[j]) for j in right) for k, v in left.items())
    left, right = getattr(left, "cel_type", left), getattr(right, "cel_type", right)
    if _kind(left) != _kind(right):
        return False
    return bool(left == right)


def _kind(value: Any) -> str:
    """The CEL kind of a value, whichever Python class carries it (library functions may return plain ``str``)."""
    for kind, classes in (("bool", (ct.BoolType, bool)), ("string", (str,)), ("bytes", (bytes,)),
                          ("duration", (ct.DurationType,)), ("timestamp", (ct.TimestampType,)),
                          ("list", (ct.ListType, list)), ("map", (ct.MapType, dict))):
        if isinstance(value, classes):
            return kind
    return "null" if value is None else type(value).__name__


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and value != value


def _equal(left: Any, right: Any) -> Any:
    failed = _first_error(left, right)
    return failed if failed is not None else ct.BoolType(cel_equal(left, right))


def _not_equal(left: Any, right: Any) -> Any:
    failed = _first_error(left, right)
    return failed if failed is not None else ct.BoolType(not cel_equal(left, right))


def _first_error(*operands: Any) -> Any:
    """An operand that is an error: operators pass it on, as celpy's own do."""
    return next((o for o in operands if isinstance(o, CELEvalError)), None)


def _dividing(name: str, message: str) -> Any:
    """``/`` and ``%`` on integers: cel-go's "division by zero" and "modulus by zero" (celpy says "modulus or
    divide by zero" for both); doubles divide by zero into infinities, as before."""
    from celpy.evaluation import base_functions

    base = base_functions[name]

    def divide(left: Any, right: Any) -> Any:
        failed = _first_error(left, right)
        if failed is not None:
            return failed
        if isinstance(right, (ct.IntType, ct.UintType)) and type(left) is type(right) and int(right) == 0:
            return _err(message)
        return base(left, right)
    return divide


def _ordering(name: str, test: Any) -> Any:
    """``<`` and friends: any two numbers compare by value (Kubernetes enables cel-go's cross-type numeric
    comparisons); other operands keep celpy's typed comparison and its overload error."""
    def compare(left: Any, right: Any) -> Any:
        failed = _first_error(left, right)
        if failed is not None:
            return failed
        if _number(left) and _number(right) and _numeric_kind(left) != _numeric_kind(right):
            return ct.BoolType(test(Decimal(str(left)), Decimal(str(right))))
        return ct.BoolType(test(left, right))
    compare.__name__ = name
    return compare


def _numeric_kind(value: Any) -> str:
    return "double" if isinstance(value, float) else "uint" if isinstance(value, ct.UintType) else "int"


_CONVERTED = {"int": "int", "uint": "uint", "double": "double", "duration": "google.protobuf.Duration",
              "timestamp": "google.protobuf.Timestamp"}


class _Conversion:
    """A conversion that fails on a string as cel-go's does ("type conversion error from 'string' to 'int'";
    celpy says "integer overflow"). It stands for its type too: ``type(x) == int`` compares with it, so it
    equals (and hashes as) the celpy type it wraps."""

    def __init__(self, name: str) -> None:
        from celpy.evaluation import base_functions

        self.name = name
        self.cel_type = base_functions[name]
        self.convert = _timestamp if name == "timestamp" else self.cel_type

    def __call__(self, value: Any) -> Any:
        if isinstance(value, CELEvalError):
            return value
        if self.name == "duration" and isinstance(value, str) and value.lstrip("+-") == "0":
            return ct.DurationType(0)  # Go's time.ParseDuration reads a bare zero; celpy does not
        try:
            result = self.convert(value)
        except (ValueError, TypeError, OverflowError, ArithmeticError):
            result = _err("")
        if isinstance(result, CELEvalError) and isinstance(value, str):
            return _err(f"type conversion error from 'string' to '{_CONVERTED[self.name]}'")
        return result

    def __eq__(self, other: object) -> bool:
        return other is self or other is self.cel_type or (
            isinstance(other, _Conversion) and other.cel_type is self.cel_type)

    def __hash__(self) -> int:
        return hash(self.cel_type)


def _logical(name: str) -> Any:
    """``&&``/``||`` as cel-go evaluates them: the deciding operand wins over an error on the other side, else
    the first error is the result (celpy reports an overload failure for errors on both sides)."""
    decides = name == "_||_"

    def logic(left: Any, right: Any) -> Any:
        for operand in (left, right):
            if isinstance(operand, (bool, ct.BoolType)) and bool(operand) is decides:
                return ct.BoolType(decides)
        failed = _first_error(left, right)
        if failed is not None:
            return failed
        if not all(isinstance(o, (bool, ct.BoolType)) for o in (left, right)):
            raise TypeError(name)
        return ct.BoolType(not decides)
    logic.__name__ = name
    return logic


def _index(target: Any, key: Any) -> Any:
    """``list[i]`` as cel-go indexes: "index out of bounds: i" for any i outside the list, negative ones
    included (Python would count them from the end); maps and other targets keep celpy's indexing."""
    from celpy.evaluation import base_functions

    failed = _first_error(target, key)
    if failed is not None:
        return failed
    if isinstance(target, (ct.ListType, list)) and _number(key) and not isinstance(key, float):
        if not 0 <= int(key) < len(target):
            return _err(f"index out of bounds: {int(key)}")
        return target[int(key)]
    return base_functions["_[_]"](target, key)


def _timestamp(value: Any) -> Any:
    """``timestamp(int)``: seconds since the epoch (celpy knows only the string form)."""
    if isinstance(value, ct.IntType) and not isinstance(value, ct.BoolType):
        import datetime

        try:
            moment = datetime.datetime.fromtimestamp(int(value), tz=datetime.UTC)
        except (OverflowError, OSError, ValueError):
            return _err("timestamp overflow")
        return ct.TimestampType(moment)
    return ct.TimestampType(value)


def functions() -> dict[str, Any]:
    """Every library function by the name celpy resolves (method calls pass the receiver first)."""
    import operator

    table: dict[str, Any] = {
        # core operators and conversions, as cel-go evaluates them
        "_==_": _equal, "_!=_": _not_equal, "_<_": _ordering("_<_", operator.lt),
        "_<=_": _ordering("_<=_", operator.le), "_>_": _ordering("_>_", operator.gt),
        "_>=_": _ordering("_>=_", operator.ge), "_&&_": _logical("_&&_"), "_||_": _logical("_||_"),
        "_[_]": _index,
        **{name: _Conversion(name) for name in _CONVERTED},
        "_/_": _dividing("_/_", "division by zero"), "_%_": _dividing("_%_", "modulus by zero"),
        # optionals (``optional.x(`` and ``.?`` are rewritten to these names before parsing: cel_syntax)
        "optionalOf": optional_of, "optionalNone": optional_none,
        "optionalOfNonZeroValue": optional_of_non_zero_value, "hasValue": has_value, "value": value,
        "orValue": or_value, "or": or_, "optSelect": opt_select, "optIndex": opt_index,
        # lists
        "isSorted": is_sorted, "sum": sum_, "listMin": min_, "max": max_, "indexOf": index_of,
        "lastIndexOf": last_index_of,
        # strings
        "lowerAscii": _string_op("lowerAscii", _lower_ascii), "upperAscii": _string_op("upperAscii", _upper_ascii),
        "charAt": _string_op("charAt", _char_at), "replace": _string_op("replace", _replace),
        "split": _string_op("split", _split), "substring": _string_op("substring", _substring),
        "trim": _string_op("trim", _trim), "reverse": _string_op("reverse", _reverse), "join": join,
        # regex
        "find": find, "findAll": find_all,
        # urls
        "url": url, "isURL": is_url,
        "getScheme": _url_getter("getScheme", lambda u: ct.StringType(u.scheme)),
        "getHost": _url_getter("getHost", lambda u: ct.StringType(u.host)),
        "getHostname": _url_getter("getHostname", _hostname), "getPort": _url_getter("getPort", _port),
        "getEscapedPath": _url_getter("getEscapedPath", lambda u: ct.StringType(quote(u.path, safe="$&+,/:;=@"))),
        "getQuery": _url_getter("getQuery", _query),
        # quantity
        "quantity": quantity, "isQuantity": is_quantity,
        "sign": _q("sign", lambda q: ct.IntType((q.amount > 0) - (q.amount < 0))),
        "add": _q("add", _arith(1)), "sub": _q("sub", _arith(-1)),
        "isGreaterThan": _q("isGreaterThan", _cmp_fn("isGreaterThan", lambda c: ct.BoolType(c == 1))),
        "isLessThan": _q("isLessThan", _cmp_fn("isLessThan", lambda c: ct.BoolType(c == -1))),
        "compareTo": _q("compareTo", _cmp_fn("compareTo", ct.IntType)),
        "asInteger": _q("asInteger", _as_integer), "isInteger": _q("isInteger", _is_integer),
        "asApproximateFloat": _q("asApproximateFloat", lambda q: ct.DoubleType(float(q.amount))),
        # format
        "formatNamed": format_named, "validate": validate,
    }
    for name, check in FORMATS.items():
        table[f"format_{name}"] = (lambda n, c: lambda: Format(n, c))(name, check)
    return table
