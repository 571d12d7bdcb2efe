"""A small, deterministic YAML emitter for JSON-like data, in kubectl's style.

Why not a YAML library: we emit only JSON-like data, want kubectl's layout (sequences flush with their
key, ``|`` blocks for multi-line text) and want every string to read back as the same string under YAML
1.1 (Kubernetes, PyYAML) and YAML 1.2 (ruamel, yq) alike. Quoting is decided conservatively: a string
is written plain only when no resolver of either version could read it as anything but that string.

The stream is printed into CI logs (``render | tee``, ``render --check`` diffs), so no line of it may be a
workflow command: a string holding ``##[`` is double-quoted with the ``[`` written ``\\x5b`` (the same string to
every YAML reader), and one with a line starting with ``::`` is not written as a literal block.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from kubectl_testbench.safe_text import has_log_command

# Plain scalars we write: start with a letter, digit, '/' or '_' ... and contain nothing that YAML
# treats specially in block context. Anything else is double-quoted.
_PLAIN = re.compile(r"[A-Za-z0-9_/(][A-Za-z0-9_./@+=%$~()!?'-]*(?:[ :,][A-Za-z0-9_./@+=%$~()!?'-]+)*")
# Strings some YAML 1.1 or 1.2 resolver reads as bool, null, number, timestamp or merge key.
_SPECIAL = re.compile(
    r"""
    (?: y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
      | null|Null|NULL|~|<<|=
      | [-+]?(?:0b[0-1_]+|0o?[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*(?::[0-5]?[0-9])*)
      | [-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?(?::[0-5]?[0-9])*)(?:[eE][-+]?[0-9]+)?
      | [-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)
      | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*
    )""",
    re.VERBOSE,
)
# Characters YAML cannot carry raw (outside the printable set, or line breaks other than \n).
_UNSAFE_CHARS = re.compile("[^\t\n\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\x85\u2028\u2029\ufeff]")
_ESCAPES = {"\0": "\\0", "\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f",
            "\r": "\\r", "\x1b": "\\e", '"': '\\"', "\\": "\\\\", "\x85": "\\N", "\u2028": "\\L",
            "\u2029": "\\P", "\xa0": "\\_"}
_BLANK_LINE_WITH_TRAILING_SPACE = re.compile(r"^[^\S\n]*[ \t]$", re.MULTILINE)
"""A line of only whitespace (``not line.strip()``) that ends in a space or tab: a literal block cannot keep it
exactly."""
_DQ_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\ufeff\ufffe\uffff]|(?<=##)\\[')
"""What a double-quoted scalar escapes: what YAML cannot carry raw, and the ``[`` of a ``##[`` workflow command."""


def dump(data: Any) -> str:
    """One YAML document (without the ``---`` marker), ending in a newline."""
    lines: list[str] = []
    _node(data, 0, lines, "")
    return "\n".join(lines) + "\n"


def dump_all(documents: Iterable[Any]) -> str:
    """A ``---``-separated stream, as ``kubectl get -o yaml`` of several objects would read."""
    return "---\n".join(dump(d) for d in documents)


def scalar(value: Any) -> str:
    """A scalar in its flow form, quoted when needed."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)
        if "e" in text:
            mantissa, exponent = text.split("e")
            # YAML 1.1 readers (PyYAML) need a dot in the mantissa and a signed exponent
            mantissa = mantissa if "." in mantissa else mantissa + ".0"
            return f"{mantissa}e{exponent if exponent[0] in '+-' else '+' + exponent}"
        return text[:-2] if text.endswith(".0") else text
    if isinstance(value, str):
        return _string(value)
    raise TypeError(f"cannot write {type(value).__name__} as YAML")


def _string(value: str) -> str:
    if _PLAIN.fullmatch(value) and not _SPECIAL.fullmatch(value):
        return value
    return _double_quoted(value)


def _double_quoted(value: str) -> str:
    if not _DQ_NEEDS_ESCAPE.search(value):
        return f'"{value}"'
    return '"' + _DQ_NEEDS_ESCAPE.sub(_escape_char, value) + '"'


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group(0)
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _block_literal(value: str) -> str | None:
    """``|`` header for a multi-line string a literal block can carry exactly, else None."""
    if "\n" not in value or value[0] in " \t\n" or _UNSAFE_CHARS.search(value) or "\r" in value:  # \t: libyaml
        # refuses a tab where it looks for the indentation of the first line
        return None
    body = value.rstrip("\n")
    trailing = len(value) - len(body)
    if trailing > 1 or _BLANK_LINE_WITH_TRAILING_SPACE.search(body):
        return None
    if has_log_command(body):
        return None  # a line of its own starting with "::", or holding "##[", is a workflow command in a CI log
    return "|" if trailing == 1 else "|-"


def _node(value: Any, indent: int, lines: list[str], prefix: str) -> None:
    """Append ``value`` at ``indent``; ``prefix`` is the text before it on its first line (key or dash)."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            lines.append(f"{pad}{prefix}{{}}")
            return
        first = True
        for key, item in value.items():
            key_text = _string(str(key))
            lead = f"{pad}{prefix}" if first else " " * (indent + len(prefix))
            child_indent = indent + len(prefix)
            first = False
            _mapping_entry(key_text, item, child_indent, lead, lines)
        return
    if isinstance(value, list):
        if not value:
            lines.append(f"{pad}{prefix}[]")
            return
        first = True
        for item in value:
            lead_indent = indent + len(prefix) if not first else indent
            first_prefix = prefix if first else ""
            first = False
            if isinstance(item, (dict, list)) and item:
                _node(item, lead_indent, lines, first_prefix + "- ")
            else:
                text = _inline(item, lead_indent + 2 + len(first_prefix))
                lines.append(" " * lead_indent + first_prefix + "- " + text)
        return
    lines.append(f"{pad}{prefix}{_inline(value, indent + len(prefix))}")


def _mapping_entry(key_text: str, item: Any, indent: int, lead: str, lines: list[str]) -> None:
    if isinstance(item, dict) and item:
        lines.append(f"{lead}{key_text}:")
        _node(item, indent + 2, lines, "")
    elif isinstance(item, list) and item:
        lines.append(f"{lead}{key_text}:")
        _node(item, indent, lines, "")
    else:
        lines.append(f"{lead}{key_text}: {_inline(item, indent + 2)}")


def _inline(value: Any, indent: int) -> str:
    """A scalar or empty collection, with multi-line strings as an indented literal block."""
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    if isinstance(value, str):
        header = _block_literal(value)
        if header is not None:
            pad = " " * max(indent, 2)
            body = value[:-1] if header == "|" else value
            return header + "".join(f"\n{pad}{line}" if line else "\n" for line in body.split("\n"))
    return scalar(value)
