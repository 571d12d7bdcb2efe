"""The likely cause of a YAML syntax error, in plain words, from libyaml's problem and context and the lines.

libyaml says what its parser expected (``did not find expected '-' indicator while parsing a block
collection``) and where the construct began (the context mark). People make a handful of mistakes: a line
indented one space off, a list item without its ``-``, a quote that is never closed, a ``key:value`` without
a space, a value with ``: `` or a leading ``@``/``*``/``{`` left unquoted. Each rule below recognises one of them
from the message and the source lines around the two marks and says what to write; an unknown case gets the
line to look at. The message keeps libyaml's wording (other tools print the same); this is the hint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kubectl_testbench.load.lines import indent_width
from kubectl_testbench.load.positions import Mark
from kubectl_testbench.words import plural

_KEY_LINE = re.compile(r"^(\s*)(?:-\s+)?([^\s#'\"\-?:][^:#]*?|'[^']*'|\"[^\"]*\"):(?:\s|$)")
_NO_SPACE_AFTER_COLON = re.compile(r"^\s*(?:-\s+)?([A-Za-z_][\w.-]*):([^\s/:].*)$")
_BLOCK_SCALAR = re.compile(r":\s*[|>][-+0-9]*\s*(?:#.*)?$")


@dataclass(frozen=True)
class Source:
    """The lines of one document and where it starts in its file (marks are file lines, 1-based)."""

    lines: list[str]
    start_line: int

    def line(self, number: int) -> str:
        index = number - 1 - self.start_line
        return self.lines[index] if 0 <= index < len(self.lines) else ""

    def char_at(self, mark: Mark) -> str:
        """The character at a (line, column) mark, or "" past the end."""
        return self.line(mark[0])[mark[1] - 1: mark[1]]

    def above(self, number: int) -> tuple[int, str]:
        """The nearest line above ``number`` with content (not blank, not a comment), or (0, "")."""
        for n in range(number - 1, self.start_line, -1):
            text = self.line(n)
            if text.strip() and not text.lstrip().startswith("#"):
                return n, text
        return 0, ""

    def key_indents(self, first: int, last: int) -> list[int]:
        """The indentations of the keys on lines ``first``..``last`` (a list item's key counts after ``- ``)."""
        found: set[int] = set()
        for n in range(first, last + 1):
            text = self.line(n)
            match = _KEY_LINE.match(text)
            if match:
                found.add(_content_column(text) if text.lstrip().startswith("-") else len(match.group(1)))
        return sorted(found)


def syntax_hint(text: str, message: str, mark: Mark, context: Mark | None, start_line: int) -> str:
    """A hint for a ``yaml/syntax`` finding at ``mark`` (file line, column; 1-based) whose construct began at
    ``context``; ``text`` is the document, starting at 0-based file line ``start_line``."""
    src = Source(text.splitlines(), start_line)
    line_no, col = mark
    line = src.line(line_no)
    if "\t" in line[: indent_width(line) + 1] or line.startswith("\t"):
        return "YAML does not allow tabs for indentation: use spaces"
    if "control characters" in message:
        return "remove the control character, or write it as an escape (\\x07) inside double quotes"
    if text.lstrip().startswith("%") and "document start" in message:
        return "kubectl splits files on '---' lines, which cuts a %YAML directive off its document: remove it"
    for rule in (_unclosed_quote, _escape, _flow, _token_start, _anchor, _sequence_on_key_line, _mapping_value,
                 _missing_dash, _expected_key, _simple_key):
        hint = rule(src, message, line_no, col, context)
        if hint:
            return hint
    return f"check the indentation and the quoting of line {line_no} and the line above it"


def _content_column(text: str) -> int:
    """Where a list item's content starts: after ``-`` and the spaces that follow it (0-based)."""
    dash = text.index("-")
    rest = text[dash + 1:]
    return dash + 1 + indent_width(rest)


def _spaces(n: int) -> str:
    return plural(n, "space")


def _key_of(text: str) -> str:
    match = _KEY_LINE.match(text)
    return match.group(2).strip() if match else text.strip()


def _has_value(text: str) -> bool:
    """``key: value`` with a value on the same line (not a block scalar, not a comment)."""
    match = _KEY_LINE.match(text)
    if not match:
        return False
    rest = text[match.end():].strip()
    return bool(rest) and not rest.startswith("#") and not _BLOCK_SCALAR.search(text)


def _requote(value: str) -> str:
    """``value`` in the quotes that need no escaping inside it."""
    if "'" not in value:
        return f"'{value}'"
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --- one rule per mistake -------------------------------------------------------------------------------------


RUNAWAY_SCAN_LIMIT = 4 * 1024 * 1024
"""Characters of a document the runaway-quote check scans again (libyaml's C scanner: well under a second)."""


def runaway_quote(text: str, mark: Mark, start_line: int) -> tuple[Mark, str] | None:
    """A quote left open on its line runs to the next quote, lines later, where the error is then reported
    (``name: "weather-agent`` ... ``endpoint: "http://x"``): where that quote opened, and the hint, or None.

    The scanner reads the document up to the error; the last quoted scalar before the error that spans lines and
    ends just before it is the runaway one, when one of its inner lines reads like a ``key: value`` entry."""
    import yaml

    from kubectl_testbench.load.libyaml import tokens

    if len(text) > RUNAWAY_SCAN_LIMIT:
        return None
    quoted = None
    try:
        for token in tokens(text):
            start = (token.start_mark.line + 1 + start_line, token.start_mark.column + 1)
            if start >= mark:
                break
            if isinstance(token, yaml.ScalarToken) and token.style in ('"', "'"):
                quoted = token
    except yaml.YAMLError:
        pass
    if quoted is None or quoted.start_mark.line == quoted.end_mark.line:
        return None
    end = (quoted.end_mark.line + 1 + start_line, quoted.end_mark.column + 1)
    if end[0] != mark[0]:
        return None
    inner = text[quoted.start_mark.index:quoted.end_mark.index].splitlines()[1:]
    if not any(_KEY_LINE.match(line) for line in inner):
        return None
    opened = (quoted.start_mark.line + 1 + start_line, quoted.start_mark.column + 1)
    quote = quoted.style
    first = text[quoted.start_mark.index:].splitlines()[0].rstrip()
    return opened, (f"the {quote} opened here is not closed on its line, so the value runs on to the next {quote}, "
                    f"at line {mark[0]}: close it on line {opened[0]}: {first}{quote}")


def _unclosed_quote(src: Source, message: str, line_no: int, col: int, context: Mark | None) -> str:
    if "while scanning a quoted scalar" not in message or context is None:
        return ""
    opened = src.char_at(context) or '"'
    inner = 'a " inside it is written \\"' if opened == '"' else "a ' inside it is written ''"
    return (f"the {opened} opened at line {context[0]}, column {context[1]} is never closed: end the value with "
            f"{opened} ({inner})")


def _escape(src: Source, message: str, line_no: int, col: int, context: Mark | None) -> str:
    if "unknown escape character" not in message:
        return ""
    return ("a backslash inside double quotes starts an escape (\\n, \\t, \\\\): write \\\\ for a backslash, or "
            "put the value in single quotes, where a backslash is just a backslash")


def _flow(src: Source, message: str, line_no: int, col: int, context: Mark | None) -> str:
    if "flow" not in message:
        return ""
    bracket = src.char_at(context) if context else ""
    if bracket not in ("[", "{") or context is None:
        return "a [ or { opened earlier is not closed, or a value inside it needs quotes"
    closing = "]" if bracket == "[" else "}"
    return (f"the {bracket} opened at line {context[0]}, column {context[1]} is not closed: close it with "
            f"{closing}, or quote the value if the brackets are text")


def _token_start(src: Source, message: str, line_no: int, col: int, context: Mark | None) -> str:
    if "cannot start any token" not in message:
        return ""
    char = src.char_at((line_no, col))
    return f"a value cannot start with {char}: quote the whole value" if char else ""


def _anchor(src: Source, message: str, line_no: int, col: int, context: Mark | None) -> str:
    if "while scanning an alias" in message:
        return "a value starting with * is read as an alias (a reference to an &anchor): quote the whole value"
    if "while scanning an anchor" in message:
        return "a value starting with & is read as an anchor: quote the whole value"
    return ""


def _sequence_on_key_line(src: Source, message: str, line_no: int, col: int, context: Mark | None) -> str:
    if "block sequence entries are not allowed" not in message:
        return ""
    return "a list cannot start on the line of its key: put each '- ' item on its own line, indented under the key"


def _mapping_value(src: Source, message: str, line_no: int, col: int, context: Mark | None) -> str:
    if "mapping values are not allowed" not in message:
        return ""
    line = src.line(line_no)
    if len(line.partition(":")[0]) > 1024:
        return "YAML keys without a '?' indicator are limited to 1024 characters"
    match = _KEY_LINE.match(line)
    if match and match.end() < col:  # a second ': ' on the line: the value holds one
        value = line[match.end():].strip()
        return f"a value containing ': ' must be quoted: write {match.group(2).strip()}: {_requote(value)}"
    prev_no, prev = src.above(line_no)
    glued = _NO_SPACE_AFTER_COLON.match(prev)
    if glued and not _KEY_LINE.match(prev):
        return (f"YAML needs a space after ':': line {prev_no} reads as the text {prev.strip()!r}, not a key; "
                f'write "{glued.group(1)}: {glued.group(2)}"')
    if prev and ":" not in prev:
        return f'line {prev_no} has no \':\' after its key: write "{prev.strip()}:"'
    if prev and _has_value(prev) and indent_width(line) > indent_width(prev):
        key = _key_of(prev)
        where = _content_column(prev) if prev.lstrip().startswith("-") else indent_width(prev)
        return (f"line {line_no} is indented more than line {prev_no}, whose key {key!r} already has a value: "
                f"indent it {_spaces(where)} like {key!r}, or move the value of line {prev_no} below its key")
    return "a value containing ': ' must be quoted"


def _missing_dash(src: Source, message: str, line_no: int, col: int, context: Mark | None) -> str:
    if "expected '-' indicator" not in message or context is None:
        return ""
    start = src.line(context[0])
    dash = context[1] - 1
    line = src.line(line_no)
    here = indent_width(line)
    if not start[dash:].startswith("-"):
        return f"every item of the list that starts at line {context[0]} begins with '- ' at {_spaces(dash)}"
    content = _content_column(start)
    if here == dash:
        return (f"line {line_no} is at the indentation of the list's '-' (line {context[0]}) but has no '-': "
                f"start it with '- ' for a new item, or indent it {_spaces(content)} to belong to the item above")
    return (f"line {line_no} is indented {_spaces(here)}; the item above starts its keys at {_spaces(content)} "
            f"(after the '- ' on line {context[0]}): indent it {_spaces(content)} to belong to that item")


def _expected_key(src: Source, message: str, line_no: int, col: int, context: Mark | None) -> str:
    if "did not find expected key" not in message or context is None:
        return ""
    line = src.line(line_no)
    here = indent_width(line)
    for n in range(context[0], line_no + 1):
        text = src.line(n)
        if re.match(r"^\s*-[^\s-]", text):
            fixed = re.sub(r"^(\s*)-", r"\1- ", text).strip()  # ``^`` matches once: no count needed
            return f'a list item needs a space after \'-\': on line {n}, write "{fixed}"'
    if col > here + 1:  # something follows a complete value on the same line
        before = line[: col - 1].rstrip()
        key = _KEY_LINE.match(line)
        value_start = line[key.end():].lstrip() if key else ""
        if value_start[:1] in ("{", "["):
            return (f"a value starting with {value_start[0]} is a flow {'mapping' if value_start[0] == '{' else 'list'}"
                    f": quote the whole value: {_requote(value_start.rstrip())}")
        if before[-1:] in ("'", '"') and value_start[:1] == before[-1]:
            quote = before[-1]
            value = value_start.rstrip()
            meant = value[1:-1] if value.endswith(quote) else value  # at least 'x' and what follows: 3 characters
            return (f"the value starts with {quote}, so it ends at the next {quote} (column {len(before)}) and the "
                    f"rest of the line is an error: quote the whole value with the other quote: {_requote(meant)}")
        return f"line {line_no} continues after its value at column {col}: quote the whole value"
    mapping = context[1] - 1
    if line.lstrip().startswith("- "):
        items = [n for n in range(context[0], line_no) if src.line(n).lstrip().startswith("- ")]
        if items and indent_width(src.line(items[-1])) != here:
            other = indent_width(src.line(items[-1]))
            return (f"line {line_no} starts a list item at {_spaces(here)}, the items above it (line {items[-1]}) "
                    f"at {_spaces(other)}: align the '-' with theirs")
        return (f"line {line_no} starts a list item where the mapping of line {context[0]} expects a key: put the "
                "list under a key (the key on its own line, the '- ' items indented below it)")
    levels = src.key_indents(src.start_line + 1, line_no - 1) or [mapping]
    if here in levels:  # the indentation is right: the line is not an entry
        return (f"line {line_no} is at the indentation of a key above it ({_spaces(here)}) but is not a 'key: value' "
                "entry: write it as one, or put it in the quoted value it belongs to")
    nearest = min(abs(level - here) for level in levels)
    options = [_sibling(src, line_no, level) for level in levels if abs(level - here) == nearest]
    return (f"line {line_no} is indented {_spaces(here)}, which matches none of the keys above it (at "
            f"{', '.join(str(i) for i in levels)} spaces): indent it like the key it belongs with, "
            + " or ".join(options))


def _sibling(src: Source, line_no: int, level: int) -> str:
    """``2 spaces like 'agentRef' (line 12)``: the nearest key above ``line_no`` at ``level``."""
    for n in range(line_no - 1, src.start_line, -1):
        text = src.line(n)
        match = _KEY_LINE.match(text)
        if match and (_content_column(text) if text.lstrip().startswith("-") else len(match.group(1))) == level:
            return f"{_spaces(level)} like {match.group(2).strip()!r} (line {n})"
    return _spaces(level)


def _simple_key(src: Source, message: str, line_no: int, col: int, context: Mark | None) -> str:
    if "could not find expected ':'" not in message or context is None:
        return ""
    bare_no = context[0]
    bare = src.line(bare_no)
    prev_no, prev = src.above(bare_no)
    if prev and _BLOCK_SCALAR.search(prev) and indent_width(bare) <= indent_width(prev):
        return (f"the text of the block that starts on line {prev_no} must be indented more than its key "
                f"({_key_of(prev)!r}, at {_spaces(indent_width(prev))})")
    if prev and _has_value(prev) and indent_width(bare) == indent_width(prev):
        return (f"line {bare_no} is at the indentation of the keys, so it reads as a key without ':'. To continue "
                f"the value of line {prev_no}, indent it more than {_key_of(prev)!r} or put the whole value in "
                f'quotes; if it is a key, write "{bare.strip()}:"')
    return f'line {bare_no} has no \':\' after its key: write "{bare.strip()}:"'
