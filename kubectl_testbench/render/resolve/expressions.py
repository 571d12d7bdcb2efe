"""Testkube's expression language, the part a resolved TestWorkflow can contain, evaluated as Testkube does.

Follows kubeshop/testkube ``pkg/expressions``: ``tokenize.go`` (tokens and their order of precedence),
``parse.go`` (``CompileTemplate``: a ``{{`` opens an expression that ends where tokenizing meets an unknown
character followed by ``}}``; operator priorities), ``math.go`` (``||``/``&&`` return an operand, ``==`` compares
string forms, ``+`` concatenates when either side is a string), ``convert.go`` (``toString``, ``toBool``:
``""``, ``"false"``, ``"0"`` and ``"off"`` are false) and ``accessor.go`` (``a.b.c`` is looked up whole, then as
property ``c`` of ``a.b``).

Supported: literals (JSON values, single-quoted strings, ``null``), variables, property access, ``! - * / % **
+ == != <> < <= > >= && || ?:`` and parentheses. Function calls, spreads and wildcards are refused with a
clear error instead of being guessed; so is any variable the caller does not provide.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kubectl_testbench.gofmt import format_v, scalar_v

Value = Any
"""None (Testkube's none), bool, int, float, str, list or dict."""
Lookup = Callable[[str], Value]
"""Returns a variable's value; raises :class:`UnknownVariable` for a name it does not provide."""


class ExpressionError(ValueError):
    """An expression Testkube would reject, or one this evaluator does not support."""


class UnknownVariable(ExpressionError):
    """A variable the caller does not provide (Testkube: "unknown variable")."""

    def __init__(self, name: str, hint: str = "") -> None:
        super().__init__(f"{name}: unknown variable" + (f" ({hint})" if hint else ""))
        self.name = name


_MATH = re.compile(r"!=|<>|==|>=|<=|&&|\*\*|\|\||[+\-*/><=%]")
_NONE = re.compile(r"null(?:[^a-zA-Z\d_.]|$)")
_JSON = re.compile(r'["{\[\d]|(?:true|false)(?:[^a-zA-Z\d_.]|$)')
_ACCESSOR = re.compile(r"[a-zA-Z\d_]+(?:\s*\.\s*(?:[a-zA-Z\d_]+|\*))*")
_PROPERTY = re.compile(r"\.\s*([a-zA-Z\d_]+|\*)")
_SPACE = re.compile(r"\s+")
_SINGLE_QUOTED = re.compile(r"'(?:\\'|[^'])*'")
_END = re.compile(r"\s*}}")
_PRIORITY = {"&&": 0, "||": 0, "=": 1, "==": 1, "!=": 1, "<>": 1, ">": 1, ">=": 1, "<": 1, "<=": 1,
             "+": 2, "-": 2, "*": 3, "/": 3, "%": 3, "**": 4}
_ANY = -1
"""The priority an expression starts at: every operator, and a ternary, may follow."""
_OPERAND = max(_PRIORITY.values()) + 1
"""The priority of ``!``'s operand: no operator binds looser than it."""
_DECODER = json.JSONDecoder(parse_int=float, strict=False)
"""Go decodes JSON numbers into ``interface{}`` as float64 (``{{ 5 }}`` is a float printed as ``5``); raw
newlines and tabs inside strings are accepted, as tokenize.go escapes them before decoding."""


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    """``,`` ``(`` ``)`` ``:`` ``?`` ``!`` ``...`` or ``math``, ``value``, ``accessor``, ``property``."""
    value: Value = None


class _Unknown(Exception):
    """Tokenizing stopped at a character that starts no token (as Go's "unknown character" error)."""

    def __init__(self, index: int) -> None:
        self.index = index


def _next_token(text: str, i: int) -> tuple[Token | None, int]:
    """One token from ``text[i:]`` (None at the end), in the order tokenize.go tries them."""
    while i < len(text):
        rest = text[i:]
        ch = text[i]
        if ch in ",():":
            return Token(ch), i + 1
        match = _MATH.match(rest)
        if match:
            return Token("math", match.group()), i + len(match.group())
        if ch in "?!":
            return Token(ch), i + 1
        match = _SPACE.match(rest)
        if match:
            i += len(match.group())
            continue
        if _NONE.match(rest):
            return Token("value"), i + 4
        if rest.startswith("..."):
            return Token("..."), i + 3
        match = _SINGLE_QUOTED.match(rest)
        if match:
            return Token("value", _single_quoted(match.group())), i + len(match.group())
        if _JSON.match(rest):
            try:
                value, end = _DECODER.raw_decode(text, i)
            except ValueError as err:
                raise ExpressionError(f"invalid JSON value at index {i}: {err}") from None
            return Token("value", value), end
        match = _ACCESSOR.match(rest)
        if match:
            return Token("accessor", re.sub(r"\s+", "", match.group())), i + len(match.group())
        match = _PROPERTY.match(rest)
        if match:
            return Token("property", match.group(1)), i + len(match.group())
        raise _Unknown(i)
    return None, i


def _single_quoted(raw: str) -> str:
    """A ``'…'`` literal as tokenize.go reads it: ``\\'`` is a quote, other escapes are JSON's."""
    inner, out, i = raw[1:-1], [], 0
    while i < len(inner):
        if inner[i] == "\\":
            out.append("'" if inner[i + 1:i + 2] == "'" else inner[i:i + 2])
            i += 2
            continue
        out.append('\\"' if inner[i] == '"' else inner[i])  # raw control characters are fine: strict=False
        i += 1
    try:
        value: str = _DECODER.decode('"' + "".join(out) + '"')
    except ValueError as err:
        raise ExpressionError(f"invalid string literal {raw}: {err}") from None
    return value


def _tokenize(text: str, start: int) -> tuple[list[Token], int, bool]:
    """Tokens from ``start`` to the first unknown character; (tokens, index, stopped_at_unknown)."""
    tokens: list[Token] = []
    i = start
    while True:
        try:
            token, i = _next_token(text, i)
        except _Unknown as stop:
            return tokens, stop.index, True
        if token is None:
            return tokens, i, False
        tokens.append(token)


# --- syntax tree ---------------------------------------------------------------------------------------------

Node = tuple[Any, ...]
"""("value", v) | ("var", name) | ("prop", node, name) | ("not", node) | ("op", op, left, right) |
("if", cond, then, else) | ("call", name)."""


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def expression(self, priority: int) -> Node:
        node = self.segment()
        while (token := self.peek()) is not None:
            if token.kind == "?":
                if priority >= 0:
                    return node
                self.i += 1
                then = self.expression(0)
                if self.peek() is None or self.peek().kind != ":":  # type: ignore[union-attr]
                    raise ExpressionError("expected ':' of a ternary expression")
                self.i += 1
                node = ("if", node, then, self.expression(0))
            elif token.kind == "math":
                op = str(token.value)
                if priority >= _PRIORITY[op]:
                    return node
                self.i += 1
                node = ("op", op, node, self.expression(_PRIORITY[op]))
            elif token.kind == "property":
                self.i += 1
                node = ("prop", node, token.value)
            else:
                return node
        return node

    def segment(self) -> Node:
        token = self.peek()
        if token is None:
            raise ExpressionError("premature end of expression")
        self.i += 1
        if token.kind == "(":
            node = self.expression(_ANY)
            if self.peek() is None or self.peek().kind != ")":  # type: ignore[union-attr]
                raise ExpressionError("expected ')'")
            self.i += 1
            return node
        if token.kind == "value":
            return ("value", token.value)
        if token.kind == "!":
            return ("not", self.expression(_OPERAND))
        if token.kind == "math" and token.value == "-":
            return ("op", "-", ("value", 0), self.expression(_ANY))
        if token.kind == "accessor":
            if self.peek() is not None and self.peek().kind == "(":  # type: ignore[union-attr]
                raise ExpressionError(f"function {token.value}() is not supported by render --resolve")
            if "*" in str(token.value):
                raise ExpressionError(f"wildcard access {token.value} is not supported by render --resolve")
            return ("var", token.value)
        raise ExpressionError(f"unexpected {token.kind!r} in expression")


def parse(tokens: list[Token]) -> Node:
    """The syntax tree of one expression (``compile_template`` reads an empty ``{{ }}`` as none itself)."""
    parser = _Parser(tokens)
    node = parser.expression(_ANY)
    if parser.i < len(tokens):
        raise ExpressionError(f"unexpected {tokens[parser.i].kind!r} after the end of the expression")
    return node


# --- values, as convert.go converts them -------------------------------------------------------------------------

def to_string(value: Value) -> str:
    """convert.go ``toString``."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    scalar = scalar_v(value)
    if scalar is not None:
        return scalar
    if isinstance(value, list):
        return ",".join(to_string(item) for item in value)
    return _go_json(value)


_HTML_SAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _go_json(value: Value) -> str:
    """encoding/json ``Marshal`` (convert.go prints a map so): keys sorted, no spaces, numbers as Go writes a
    float64 (``1``, not ``1.0``), ``<``, ``>``, ``&`` escaped for HTML."""
    if isinstance(value, float):
        return _json_float(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{_go_json(str(k))}:{_go_json(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_go_json(v) for v in value) + "]"
    text = json.dumps(value, ensure_ascii=False)
    return "".join(_HTML_SAFE.get(ch, ch) for ch in text)


def _json_float(value: float) -> str:
    """encoding/json's float64: fixed notation, the exponent form below 1e-6 and from 1e21 (``1e-7``, ``1e+21``)."""
    from decimal import Decimal

    if value == 0 or 1e-6 <= abs(value) < 10**21:
        return f"{Decimal(repr(value)).normalize():f}"
    mantissa, _, exponent = format_v(value).partition("e")
    return f"{mantissa}e{int(exponent):+d}"  # Go drops the leading zero of a negative two-digit exponent


def to_bool(value: Value) -> bool:
    """convert.go ``toBool``: JavaScript-like truthiness with "false", "0" and "off" false."""
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    if isinstance(value, (list, dict)):
        return len(value) > 0
    return to_string(value) not in ("", "false", "0", "off")


def to_float(value: Value) -> float:
    """convert.go ``toFloat``."""
    if isinstance(value, float):
        return value
    if value is None:
        return 0.0
    text = to_string(value)
    try:
        if "_" in text:  # Go's ParseFloat takes no digit separators
            raise ValueError
        return float(text)
    except ValueError:
        raise ExpressionError(f"error while converting value to number: {text}") from None


def _math(op: str, left: Value, right: Value) -> Value:
    if op in ("=", "=="):
        return to_string(left) == to_string(right)
    if op in ("!=", "<>"):
        return to_string(left) != to_string(right)
    if op in (">", "<", ">=", "<="):
        a, b = to_float(left), to_float(right)
        return {">": a > b, "<": a < b, ">=": a >= b, "<=": a <= b}[op]
    if op == "+":
        if isinstance(left, str) or isinstance(right, str):
            return to_string(left) + to_string(right)
        return to_float(left) + to_float(right)
    a, b = to_float(left), to_float(right)
    if op in ("/", "%") and b == 0:
        raise ExpressionError("cannot divide by zero" if op == "/" else "cannot modulo by zero")
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        return a / b
    if op == "%":
        return math.fmod(a, b)
    return float(a**b)


def evaluate(node: Node, lookup: Lookup) -> Value:
    """The value of a syntax tree; variables come from ``lookup``."""
    kind = node[0]
    if kind == "value":
        return node[1]
    if kind == "var":
        return lookup(node[1])
    if kind == "prop":
        base = evaluate(node[1], lookup)
        if isinstance(base, dict) and node[2] in base:
            return base[node[2]]
        raise ExpressionError(f"property {node[2]!r} does not exist")
    if kind == "not":
        return not to_bool(evaluate(node[1], lookup))
    if kind == "if":
        return evaluate(node[2] if to_bool(evaluate(node[1], lookup)) else node[3], lookup)
    op, left_node, right_node = node[1], node[2], node[3]
    left = evaluate(left_node, lookup)
    if op == "&&":
        return evaluate(right_node, lookup) if to_bool(left) else left
    if op == "||":
        return left if to_bool(left) else evaluate(right_node, lookup)
    return _math(op, left, evaluate(right_node, lookup))


def compile_template(text: str) -> list[str | Node]:
    """``text`` as literal parts and expression trees, split exactly where Testkube's ``CompileTemplate``
    splits it."""
    parts: list[str | Node] = []
    offset = 0
    while (index := text.find("{{", offset)) != -1:
        if index > offset:
            parts.append(text[offset:index])
        tokens, stop, at_unknown = _tokenize(text, index + 2)
        if not at_unknown:
            raise ExpressionError("template error: expression not closed")
        end = _END.match(text, stop)
        if end is None:
            raise ExpressionError(f"tokenizer error: unknown character at index {stop}")
        offset = end.end()
        if tokens:
            parts.append(parse(tokens))
    if offset < len(text):
        parts.append(text[offset:])
    return parts


def render(text: str, lookup: Lookup) -> str:
    """A string field as Testkube resolves it: literal text kept, each ``{{ … }}`` replaced by its value's
    string form."""
    if "{{" not in text:
        return text
    return "".join(part if isinstance(part, str) else to_string(evaluate(part, lookup))
                   for part in compile_template(text))


def evaluate_template(text: str, lookup: Lookup) -> Value:
    """A template's typed value: one expression alone keeps its type (a config value ``{{ 5 }}`` is a number);
    anything else is the rendered string."""
    parts = compile_template(text)
    if len(parts) == 1 and not isinstance(parts[0], str):
        return evaluate(parts[0], lookup)
    return "".join(part if isinstance(part, str) else to_string(evaluate(part, lookup)) for part in parts)
