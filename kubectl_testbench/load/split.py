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
        start, bad = i + 1, False
    yield Chunk("".join(lines[start:]), start, bad)
