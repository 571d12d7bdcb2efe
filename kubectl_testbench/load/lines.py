"""Where each line of a text starts, by the line-break rule of whoever counted the lines.

One index serves every place that turns offsets into lines or lines into offsets; what differs between them is
only which characters end a line, so that is the index's one parameter, one named rule per reader:

- :data:`EDITOR_BREAK`: CRLF, CR or LF. What editors and the LSP count (the LSP spec names exactly these
  three), and so what a fix's ``line:column`` and the migration's line edits use.
- :data:`YAML_BREAK`: libyaml's marks also end a line at NEL, U+2028 and U+2029 (YAML 1.1's line breaks).
- :data:`JSON_BREAK`: LF only, as the JSON reader counts (JSON's whitespace has CR, which only ends a line
  before an LF).
- :data:`SPLITLINES_BREAK`: ``str.splitlines``' breaks (form feed, vertical tab, file/group/record separators
  too): the lines :func:`kubectl_testbench.load.split.split_documents` counts, so a document's ``start_line``
  maps back to its offset.

Indentation is measured here too (:func:`indent_width`), because it is read off the same lines.
"""

from __future__ import annotations

import bisect
import re

# Each rule is a pattern's source, compiled (and then cached by ``re``) when a text is first indexed by it:
# compiling all four at import cost every cold start 0.4 ms, and a valid file indexes by none of them.
EDITOR_BREAK = r"\r\n|\r|\n"
YAML_BREAK = r"\r\n|\r|\n|\x85|\u2028|\u2029"
JSON_BREAK = r"\n"
SPLITLINES_BREAK = r"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]"


class LineIndex:
    """The lines of one text by one line-break rule: where each starts and where its content ends.

    A text always has at least one line; a text that ends with a line break has an empty last line after it
    (where an editor puts the cursor on the next line)."""

    def __init__(self, text: str, breaks: str = EDITOR_BREAK) -> None:
        self.text = text
        self.starts = [0]
        """The offset where each line starts."""
        self.ends: list[int] = []
        """The offset where each line's content ends (its line break, or the end of the text)."""
        for match in re.finditer(breaks, text):
            self.ends.append(match.start())
            self.starts.append(match.end())
        self.ends.append(len(text))

    def __len__(self) -> int:
        return len(self.starts)

    def line_of(self, offset: int) -> int:
        """The 0-based line holding ``offset`` (an offset inside a CRLF belongs to the line it ends)."""
        return max(0, bisect.bisect_right(self.starts, offset) - 1)

    def position(self, offset: int) -> tuple[int, int]:
        """``offset`` as a 1-based line and a 1-based code-point column."""
        line = max(0, bisect.bisect_right(self.starts, offset) - 1)  # line_of, inlined: once per JSON node
        return line + 1, offset - self.starts[line] + 1

    def start(self, line: int) -> int:
        """The offset where 0-based ``line`` starts; the end of the text for a line past the last one."""
        return self.starts[line] if line < len(self.starts) else len(self.text)

    def content(self, line: int) -> str:
        """The text of 0-based ``line`` without its line break."""
        return self.text[self.starts[line]:self.ends[line]]

    def offset_of(self, line: int, column: int) -> int:
        """The offset of 0-based ``line`` and 0-based code-point ``column``, clamped to the line's content."""
        if line >= len(self.starts):
            return len(self.text)
        line = max(line, 0)
        return self.starts[line] + max(0, min(column, self.ends[line] - self.starts[line]))

    def with_breaks(self) -> list[str]:
        """Each line with its line break, as ``str.splitlines(keepends=True)`` gives them under this rule: no
        empty line after a final line break, none at all for an empty text."""
        text, starts = self.text, self.starts
        lines = [text[starts[i]:starts[i + 1]] for i in range(len(starts) - 1)]
        if starts[-1] < len(text):
            lines.append(text[starts[-1]:])
        return lines


def indent_width(line: str, *, tabs: bool = False) -> int:
    """How many characters of indentation ``line`` starts with.

    By default only spaces count: YAML indents with spaces, and a tab ends the indentation (libyaml's columns,
    which the syntax hints and the migration compare with, count the same way). With ``tabs=True`` a tab
    counts too, as one character (not expanded to a tab stop): for text where tabs may stand as indentation
    (the editor's view of a half-typed line, tab-indented lines that a fix re-indents)."""
    return len(line) - len(line.lstrip(" \t" if tabs else " "))
