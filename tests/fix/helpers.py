"""Shared pieces of the fix tests: running ``fix`` on bytes, and where a node sits, read independently of it.

Node positions come from PyYAML's pure-Python composer, not from the span reader ``fix`` uses, so the
diff-based assertions check ``fix`` against a second reading of the file.
"""

from __future__ import annotations

import bisect
import json
import re
from pathlib import Path
from typing import Any

import yaml

from kubectl_testbench.fix.apply import FileFix, FixOptions, fix_source
from kubectl_testbench.load.sources import Source
from kubectl_testbench.validate.diagnostics import FixKind

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"


def fix_file(path: Path, options: FixOptions | None = None) -> FileFix:
    return fix_source(Source(str(path)), options or FixOptions())


def fixed_bytes(path: Path, options: FixOptions | None = None) -> bytes:
    """What ``fix`` would write (the input unchanged when nothing applies)."""
    outcome = fix_file(path, options)
    return outcome.data if outcome.data is not None else path.read_bytes()


def crlf(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def bom(data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data


def _documents(text: str) -> list[tuple[int, Any]]:
    """(first line, composed node) of each document, split on ``---`` lines the way kubectl splits."""
    out = []
    lines = text.splitlines(keepends=True)
    start = 0
    for i, line in enumerate([*lines, "---\n"]):
        if line.startswith("---"):
            chunk = "".join(lines[start:i])
            try:
                node = yaml.compose(chunk)
            except yaml.YAMLError:
                node = None
            if node is not None:
                out.append((start, node))
            rest = line[3:].strip()
            start = i if rest and not rest.startswith("#") else i + 1
    return out


def _end_line(node: Any) -> int:
    mark = node.end_mark
    return int(mark.line - 1 if mark.column == 0 and mark.line > node.start_mark.line else mark.line)


def node_lines(text: str, path: tuple[Any, ...], whole_parent: bool = False) -> set[int]:
    """0-based lines of the entry at ``path`` (key through value) in every document that has it."""
    if text.lstrip()[:1] == "{":
        return _json_node_lines(text, path, whole_parent)
    found: set[int] = set()
    for offset, root in _documents(text):
        node: Any = root
        key: Any = None
        parent: Any = None
        for seg in path:
            parent = node
            if isinstance(node, yaml.MappingNode) and isinstance(seg, str):
                pairs = [(k, v) for k, v in node.value if k.value == seg]
                if not pairs:
                    node = None
                    break
                key, node = pairs[0]
            elif isinstance(node, yaml.SequenceNode) and isinstance(seg, int) and seg < len(node.value):
                key, node = None, node.value[seg]
            else:
                node = None
                break
        if whole_parent and parent is not None:
            found.update(range(offset + parent.start_mark.line, offset + _end_line(parent) + 2))
        elif node is not None:
            first = (key or node).start_mark.line
            found.update(range(offset + first, offset + _end_line(node) + 1))
    return found


def _json_node_lines(text: str, path: tuple[Any, ...], whole_parent: bool) -> set[int]:
    """:func:`node_lines` for a JSON stream: where each value starts from the JSON reader's marks, where it
    ends from the standard library's decoder (not from the span reader ``fix`` uses)."""
    from kubectl_testbench.load.jsonread import read_stream

    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    decoder = json.JSONDecoder()

    def last_line(mark: tuple[int, int]) -> int:
        _, end = decoder.raw_decode(text, starts[mark[0] - 1] + mark[1] - 1)
        return bisect.bisect_right(starts, end - 1) - 1

    found: set[int] = set()
    for doc in read_stream(text):
        node: Any = doc.data
        value_mark = getattr(node, "mark", None)
        key_mark = parent_mark = None
        complete = True
        for seg in path:
            parent_mark = value_mark
            if isinstance(node, dict) and isinstance(seg, str) and seg in node:
                key_mark, value_mark, node = node.key_marks.get(seg), node.value_marks.get(seg), node[seg]
            elif isinstance(node, list) and isinstance(seg, int) and seg < len(node):
                key_mark, value_mark, node = None, node.item_marks[seg], node[seg]
            else:
                complete = False
                break
        if whole_parent and parent_mark is not None:
            found.update(range(parent_mark[0] - 1, last_line(parent_mark) + 1))
        elif complete and value_mark is not None:
            found.update(range((key_mark or value_mark)[0] - 1, last_line(value_mark) + 1))
    return found


def allowed_lines(before: str, outcome: FileFix) -> set[int]:
    """Lines of the original text that the applied fixes may change: their nodes, read independently."""
    renames: list[tuple[tuple[Any, ...], tuple[Any, ...]]] = []
    lines: set[int] = set()
    for d in outcome.applied:
        fix = d.fix
        assert fix is not None
        path = tuple(fix.path)
        for new, old in renames:  # a path found after a rename is written under the old key
            if path[: len(new)] == new:
                path = old + path[len(new):]
        if fix.kind is FixKind.RENAME_KEY:
            renames.append(((*path[:-1], fix.value), path))
        if fix.kind is FixKind.SPLIT_SEPARATOR:
            lines.update(i for i, line in enumerate(before.splitlines()) if re.match(r"---[ \t]+\S", line))
        elif fix.kind is FixKind.REINDENT:
            lines.update(i for i, line in enumerate(before.splitlines())
                         if "\t" in line[: len(line) - len(line.lstrip())])
        elif fix.kind is FixKind.INSERT:
            lines |= node_lines(before, path, whole_parent=True)
        else:
            lines |= node_lines(before, path)
    return lines
