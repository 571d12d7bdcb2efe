"""Split a YAML stream into documents the way kubectl's YAMLReader does: on ``---`` lines.

Splitting on text (not in the parser) means one broken document does not hide the others, documents
can be validated independently, and the behaviour matches ``kubectl apply -f`` exactly.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Chunk:
    """The text of one document and the 0-based line where it starts in the file."""

    text: str
    start_line: int
    bad_separator: bool = False
    """The line that opened this chunk was ``---`` followed by content, which kubectl rejects."""


def split_documents(text: str) -> Iterator[Chunk]:
    """Yield the documents of a stream; separators are lines that start with ``---``.

    As in kubectl, only a comment may follow ``---`` on its line; anything else marks the chunk
    ``bad_separator`` (kubectl fails with "invalid Yaml document separator").
    """
    if "---" not in text:  # fast path: one document
        yield Chunk(text, 0)
        return
    lines = text.splitlines(keepends=True)
    start = 0
    bad = False
    for i, line in enumerate(lines):
        if not line.startswith("---"):
            continue
        rest = line[3:].strip()
        if rest and not rest.startswith("#"):
            yield Chunk("".join(lines[start:i]), start, bad)
            start, bad = i, True
            continue
        yield Chunk("".join(lines[start:i]), start, bad)
        keep = start == i and _opens_with_end(lines, i + 1)
        start, bad = (i if keep else i + 1), False
    yield Chunk("".join(lines[start:]), start, bad)


def _opens_with_end(lines: list[str], first: int) -> bool:
    """Does the document from line ``first`` start (after blanks and comments) with a ``...`` end marker?

    YAMLReader writes a separator that meets an empty buffer into the next document, so Kubernetes parses
    "---\n...\n" (an empty document) where a bare "..." is a syntax error. Keeping that separator only where
    the document opens with its end changes no other chunk: a leading ``---`` is otherwise the same document.
    """
    for index in range(first, len(lines)):  # no slice: a copy of the rest per separator is quadratic
        line = lines[index]
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return line.startswith("...") and (len(line) == 3 or line[3] in " \t\r\n#")
    return False
