"""Editor text as LSP counts it: lines, positions in the client's code units, incremental edits.

LSP lines end at CRLF, CR or LF only (``str.splitlines`` also breaks at form feeds, NEL, U+2028 and U+2029,
which editors do not), and a position's ``character`` counts UTF-16 code units unless client and server
agreed on UTF-8 or UTF-32 at ``initialize``. The engine reports 1-based lines and code-point columns, and
counts lines as the reader it used does: libyaml also breaks YAML lines at NEL, U+2028 and U+2029, the JSON
reader breaks at LF only. Everything is converted through character offsets, so each side keeps its own
rules and a finding after an emoji or a U+2028 lands where the editor shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kubectl_testbench.load.lines import JSON_BREAK, YAML_BREAK, LineIndex
from kubectl_testbench.lsp.context import Readings

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def units(text: str, encoding: str) -> int:
    """How many code units of ``encoding`` the client counts for ``text`` (lone surrogates count as one
    UTF-16 unit and three UTF-8 bytes, as a client that holds them would count them)."""
    if encoding == UTF32:
        return len(text)
    if text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def chars_for_units(text: str, count: int, encoding: str) -> int:
    """How many characters of ``text`` span ``count`` code units; a count inside a character stops before
    it, a count past the end stops at the end (LSP: "defaults back to the line length")."""
    if encoding == UTF32 or text.isascii():
        return max(0, min(count, len(text)))
    used = 0
    for index, char in enumerate(text):
        width = units(char, encoding)
        if used + width > count:
            return index
        used += width
    return len(text)


@dataclass(slots=True)
class Position:
    """An LSP position: 0-based line, ``character`` in the negotiated code units."""

    line: int
    character: int


class TextIndex:
    """Conversions between character offsets and LSP positions for one version of a text."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.encoding = encoding
        self.lines = LineIndex(text)  # LSP lines: CRLF, CR or LF

    def position(self, offset: int) -> Position:
        offset = max(0, min(offset, len(self.text)))
        line = self.lines.line_of(offset)
        start = self.lines.starts[line]
        offset = min(offset, self.lines.ends[line])  # never inside a CRLF
        return Position(line, units(self.text[start:offset], self.encoding))

    def offset(self, position: Position) -> int:
        if position.line < 0:
            return 0
        if position.line >= len(self.lines):
            return len(self.text)
        content = self.lines.content(position.line)
        return self.lines.starts[position.line] + chars_for_units(content, position.character, self.encoding)


def engine_lines(text: str) -> LineIndex:
    """The lines the engine counted when it read ``text``: the JSON reader's for a JSON stream, libyaml's
    otherwise."""
    from kubectl_testbench.sniff import looks_like_json

    return LineIndex(text, JSON_BREAK if looks_like_json(text) else YAML_BREAK)


@dataclass(slots=True)
class Document:
    """One open document: the client's text and version, and the file it stands for (when it is a file)."""

    uri: str
    text: str
    version: int = 0
    language_id: str = ""
    path: str | None = None
    """The local file path of a ``file:`` URI; None for unsaved buffers and other schemes."""
    _index: TextIndex | None = field(default=None, repr=False)
    readings: Readings = field(default_factory=Readings, repr=False)
    """What hover and completion have read of the text, kept for the next request (see lsp.context)."""

    def index(self, encoding: str) -> TextIndex:
        if self._index is None or self._index.encoding != encoding or self._index.text is not self.text:
            self._index = TextIndex(self.text, encoding)
        return self._index

    def apply(self, start: Position | None, end: Position | None, new_text: str, encoding: str) -> None:
        """One ``contentChanges`` entry: the whole text (no range) or the text between two positions."""
        if start is None or end is None:
            self.text = new_text
            first: int | None = None
        else:
            index = self.index(encoding)
            a, b = sorted((index.offset(start), index.offset(end)))
            first = index.lines.line_of(a)
            self.text = self.text[:a] + new_text + self.text[b:]
        self._index = None
        self.readings.edited(self.text, first)
