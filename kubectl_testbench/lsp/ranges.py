"""How far a finding reaches: the engine gives where a node starts, the editor wants a range to underline.

The range is the token that starts there, on its line: a quoted scalar to its closing quote, a flow
collection to its closing bracket, a plain scalar or key up to ``: ``, `` #`` or (inside a flow collection)
the next ``,``/``}``/``]``. A finding without a token of its own (a column past the content, a whole-file
finding) underlines the line's content.
"""

from __future__ import annotations

from kubectl_testbench.load.lines import LineIndex


def token_span(text: str, lines: LineIndex, offset: int, whole_line: bool = False) -> tuple[int, int]:
    """``(start, end)`` offsets of the token at ``offset`` (or of the line's content), never beyond its LSP
    line."""
    line = lines.line_of(offset)
    line_start, line_end = lines.starts[line], lines.ends[line]
    offset = min(max(offset, line_start), line_end)
    end = offset if whole_line else _token_end(text, offset, line_start, line_end)
    if end > offset:
        return offset, end
    content = text[line_start:line_end]
    stripped = content.strip()
    if not stripped:
        return offset, offset
    first = line_start + content.index(stripped[0])
    return first, first + len(stripped)


def _token_end(text: str, start: int, line_start: int, line_end: int) -> int:
    if start >= line_end:
        return start
    char = text[start]
    if char == '"':
        index = start + 1
        while index < line_end:
            if text[index] == "\\":
                index += 2
                continue
            if text[index] == '"':
                return index + 1
            index += 1
        return line_end
    if char == "'":
        index = start + 1
        while index < line_end:
            if text[index] == "'":
                if index + 1 < line_end and text[index + 1] == "'":
                    index += 2
                    continue
                return index + 1
            index += 1
        return line_end
    if char in "{[":
        return _flow_end(text, start, line_end)
    in_flow = _inside_flow(text[line_start:start])
    index = start
    while index < line_end:
        c = text[index]
        if c == ":" and (index + 1 >= line_end or text[index + 1] in " \t"):
            break
        if c == "#" and index > start and text[index - 1] in " \t":
            break
        if in_flow and c in ",]}":
            break
        index += 1
    return start + len(text[start:index].rstrip(" \t"))


def _flow_end(text: str, start: int, line_end: int) -> int:
    closed = _brackets(text, start, line_end)[1]
    return closed if closed is not None else len(text[:line_end].rstrip())


def _inside_flow(before: str) -> bool:
    """Whether an unclosed ``{`` or ``[`` (outside quotes) precedes the token on its line."""
    return _brackets(before, 0, len(before))[0] > 0


def _brackets(text: str, start: int, end: int) -> tuple[int, int | None]:
    """``(depth, closed)`` of the flow brackets in ``text[start:end]`` outside quotes: how many are still open
    at ``end``, and the offset just past the bracket that first closes them all (None when none does)."""
    depth = 0
    closed: int | None = None
    quote: str | None = None
    index = start
    while index < end:
        c = text[index]
        if quote is not None:
            if c == "\\" and quote == '"':
                index += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth = max(0, depth - 1)
            if depth == 0 and closed is None:
                closed = index + 1
        index += 1
    return depth, closed
