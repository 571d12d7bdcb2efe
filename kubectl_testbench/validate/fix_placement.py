"""Fix descriptors resolved against the source: each becomes byte-range replacements inside its own node.

A rule says *what* to change (``Fix(kind, path, value)``); this module finds *where*, from the node's exact
span, and writes the replacement text so that nothing outside the node changes: quoting keeps the text as
written, renames keep the key's quoting style, a deleted entry takes exactly its own lines (or its own
``, `` in a flow mapping), an inserted entry follows the mapping's indentation and line breaks. A fix that
cannot be placed that safely (a node written through an alias, carrying an anchor, spread over several
lines) is dropped: the finding is still reported, without a fix.
"""

from __future__ import annotations

import codecs
import dataclasses
import json
import re
from collections.abc import Callable, Sequence

from kubectl_testbench.load.lines import LineIndex
from kubectl_testbench.load.scalars import YAML11_ONLY_BOOLS, resolve_plain
from kubectl_testbench.validate.diagnostics import Diagnostic, Edit, Fix, FixKind
from kubectl_testbench.validate.fix_choices import NUMBER_TEXT
from kubectl_testbench.validate.spans import (
    Node,
    find,
    has_anchor,
    key_name,
    line_break,
    line_end,
    line_start,
    span_tree,
)

Raw = tuple[int, int, str]
"""An edit before it is placed in the file: (start, end, text), offsets into the document's text."""
Placed = tuple[Fix, list[Raw]] | str
"""A fix with its edits, or why it cannot be placed safely."""

NOT_WRITTEN = "the node is not written once at this path (it comes from an alias or a merge key, or the key repeats)"
ANCHORED = "the node carries an anchor: aliases elsewhere would change with it"
MULTILINE = "the value spans several lines or is a block scalar"

_NULL_WORDS = ("", "~", "null", "Null", "NULL")
_SAFE_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")


def resolve(diagnostics: Sequence[Diagnostic], doc_text: str, doc_offset: int, lines: LineIndex,
            read: Callable[[str], Node | None] | None = None) -> list[Diagnostic]:
    """The diagnostics of one document with their fixes placed in the file, or marked ``blocked`` with the reason.

    ``doc_text`` is the document's text and ``doc_offset`` where it starts in the file; ``lines`` indexes
    the whole file. ``read`` builds the document's span tree from ``doc_text`` (default: libyaml's reading
    of one YAML document; JSON values bring their own reader).
    """
    tree: Node | None = None
    parsed = False
    out: list[Diagnostic] = []
    seen: set[tuple[Raw, ...]] = set()
    for d in diagnostics:
        fix = d.fix
        if fix is None or fix.blocked:
            out.append(d)
            continue
        if fix.edits:
            placed: Placed = fix, [(e.start, e.end, e.text) for e in fix.edits]
        else:
            if not parsed:
                tree, parsed = (read or span_tree)(doc_text), True
            placed = _place(fix, tree, doc_text)
        if isinstance(placed, str):
            out.append(dataclasses.replace(d, fix=dataclasses.replace(fix, blocked=placed)))
            continue
        located, raws = placed
        key = tuple(raws)
        if key in seen:  # one node, one offered fix: SARIF consumers apply every replacement they get
            out.append(dataclasses.replace(d, fix=None))
            continue
        seen.add(key)
        edits = tuple(_edit(doc_offset + s, doc_offset + e, text, lines) for s, e, text in raws)
        out.append(dataclasses.replace(d, fix=dataclasses.replace(located, edits=edits)))
    return out


def _edit(start: int, end: int, text: str, lines: LineIndex) -> Edit:
    sl, sc = lines.position(start)
    el, ec = lines.position(end)
    return Edit(start, end, text, sl, sc, el, ec)


def _place(fix: Fix, tree: Node | None, text: str) -> Placed:
    handler = _HANDLERS.get(fix.kind)
    if handler is None:
        return f"no placement for {fix.kind} fixes"
    if tree is None:
        return "the document could not be read again to place the fix"
    return handler(fix, tree, text)


def _single_line(node: Node, text: str) -> bool:
    return node.kind == "scalar" and "\n" not in text[node.start:node.end] and "\r" not in text[node.start:node.end]


def _scalar_problem(node: Node, text: str) -> str:
    if node.kind == "alias":
        return NOT_WRITTEN
    if node.anchor is not None:
        return ANCHORED
    if node.tag is not None:
        return f"the value has an explicit tag ({node.tag})"
    if not _single_line(node, text) or node.style in ("|", ">"):
        return MULTILINE
    return ""


def _scalar_at(fix: Fix, tree: Node, text: str) -> Node | str:
    """The single-line scalar written at the fix's path, or why the fix cannot edit it."""
    found = find(tree, fix.path)
    if found is None:
        return NOT_WRITTEN
    return _scalar_problem(found[2], text) or found[2]


def _quote(fix: Fix, tree: Node, text: str) -> Placed:
    node = _scalar_at(fix, tree, text)
    if isinstance(node, str):
        return node
    if not node.plain or text[node.start:node.end] != node.value:
        return "the value is not a plain scalar written as it reads"
    quoted = json.dumps(node.value, ensure_ascii=False)
    return dataclasses.replace(fix, value=node.value, title=f"write {quoted} in quotes"), \
        [(node.start, node.end, quoted)]


def _replace(fix: Fix, tree: Node, text: str) -> Placed:
    node = _scalar_at(fix, tree, text)
    if isinstance(node, str):
        return node
    value = fix.value
    if isinstance(value, bool):  # a YAML 1.1 boolean word in a boolean field: write what Kubernetes reads
        if not node.plain or node.value not in YAML11_ONLY_BOOLS or resolve_plain(node.value)[0] is not value:
            return "the value is not a plain YAML 1.1 boolean word"
        new = "true" if value else "false"
    elif isinstance(value, (int, float)) and node.style:  # a number written as a string: unquote it
        if not NUMBER_TEXT.fullmatch(node.value):
            return "the value is not a quoted number"
        number, note = resolve_plain(node.value)
        if note is not None or isinstance(number, bool) or number != value:
            return "unquoted, the text would read as something else"
        new = node.value
    elif isinstance(value, (int, float)):  # a plain number replaced by another (a percentage as a fraction)
        if node.plain and resolve_plain(node.value)[0] == value:
            return "the value already reads as this number"
        new = json.dumps(value)
        number, note = resolve_plain(new)
        if not NUMBER_TEXT.fullmatch(new) or note is not None or isinstance(number, bool) or number != value:
            return "no plain text reads back as this number"
    elif isinstance(value, str):
        new = scalar_text(value, node.style)
    else:
        return "no text for this value"
    return fix, [(node.start, node.end, new)]


def scalar_text(value: str, style: str) -> str:
    """``value`` written in ``style`` (plain stays plain only when it reads back as the same string)."""
    if style == "'":
        return "'" + value.replace("'", "''") + "'"
    if style == "" and _SAFE_PLAIN.fullmatch(value) and resolve_plain(value) == (value, None):
        return value
    return json.dumps(value, ensure_ascii=False)


def _rename(fix: Fix, tree: Node, text: str) -> Placed:
    found = find(tree, fix.path)
    if found is None or found[1] is None or not isinstance(fix.value, str):
        return NOT_WRITTEN
    key, parent = found[1], found[0]
    problem = _scalar_problem(key, text)
    if problem:
        return problem
    if parent is None or any(k.value == fix.value for k, _ in parent.entries):
        return f'"{fix.value}" is already a key of this mapping'
    return fix, [(key.start, key.end, scalar_text(fix.value, key.style))]


def _delete(fix: Fix, tree: Node, text: str) -> Placed:
    found = find(tree, fix.path)
    if found is None:
        return NOT_WRITTEN
    parent, key, _ = found
    if parent is None or key is None or parent.kind != "map":
        return NOT_WRITTEN
    index = next(i for i, (k, _) in enumerate(parent.entries) if k is key)
    span = _entry_span(parent, index, text)
    return span if isinstance(span, str) else (fix, [span])


def _delete_earlier(fix: Fix, tree: Node, text: str) -> Placed:
    """Remove the earlier of a key's two entries: the later is what Kubernetes reads, so nothing changes."""
    found = find(tree, fix.path[:-1])
    if found is None or found[2].kind != "map" or not fix.path or not isinstance(fix.path[-1], str):
        return NOT_WRITTEN
    mapping = found[2]
    indices = [i for i, (k, _) in enumerate(mapping.entries) if key_name(k) == fix.path[-1]]
    if len(indices) != 2:
        return "the key is not written exactly twice in this mapping"
    span = _entry_span(mapping, indices[0], text)
    return span if isinstance(span, str) else (fix, [span])


def _entry_span(parent: Node, index: int, text: str) -> tuple[int, int, str] | str:
    """The edit that removes entry ``index`` of a mapping with its lines, or why it cannot be removed alone."""
    key, value = parent.entries[index]
    if key.anchor is not None or has_anchor(value):
        return "the entry defines an anchor that aliases elsewhere may use"
    if parent.flow:
        span = flow_entry_span(parent, index, text)
        if span is None:
            return "a comment or an explicit key ('?') sits between the flow mapping's entries"
        return (span[0], span[1], "")
    if len(parent.entries) < 2:
        return "it is the only entry: its mapping would become null"
    start = line_start(text, key.start)
    if text[start:key.start].strip(" "):
        return "the key shares its line with a sequence dash or another node"
    end = _through_line(text, value.end)
    if end is None:
        return "another node follows on the entry's last line"
    return (start, end, "")


def _through_line(text: str, offset: int) -> int | None:
    """The end of the line a node ends on, line break included, when only a comment follows it there."""
    if offset > 0 and text[offset - 1] in "\r\n":
        return offset  # block scalars end at the start of the next line already
    content_end, end = line_end(text, offset)
    rest = text[offset:content_end].strip()
    if rest and not rest.startswith("#"):
        return None
    return end


def flow_entry_span(parent: Node, index: int, text: str) -> tuple[int, int] | None:
    entries = parent.entries
    key, value = entries[index]
    if len(entries) == 1:
        return key.start, value.end
    if index + 1 < len(entries):
        start, end, gap = key.start, entries[index + 1][0].start, text[value.end:entries[index + 1][0].start]
    else:
        start, end, gap = entries[index - 1][1].end, value.end, text[entries[index - 1][1].end:key.start]
    if gap.count(",") != 1 or gap.replace(",", "").strip():
        return None  # a comment or an explicit key sits between the entries
    return start, end


def _insert(fix: Fix, tree: Node, text: str) -> Placed:
    if not fix.path or not isinstance(fix.path[-1], str):
        return NOT_WRITTEN
    found = find(tree, fix.path[:-1])
    if found is None or found[2].kind != "map":
        return NOT_WRITTEN
    mapping, name = found[2], fix.path[-1]
    flow_value = json.dumps(fix.value, ensure_ascii=False)
    existing = [(k, v) for k, v in mapping.entries if k.value == name]
    if existing:  # ``args:`` or ``args: null`` is the same as absent for the API server: fill the value in
        value = existing[0][1]
        if not value.plain or value.value not in _NULL_WORDS or not _single_line(value, text) or value.anchor:
            return f"{name} is written with a value that is not null"
        if value.start == value.end:
            return fix, [(value.start, value.end, " " + flow_value)]
        return fix, [(value.start, value.end, flow_value)]
    key_style = mapping.entries[0][0].style if mapping.entries else ""  # JSON keeps its quoted keys
    key = scalar_text(name, key_style) if key_style in ("", '"', "'") else name
    entry = f"{key}: {flow_value}"
    if mapping.flow:
        if mapping.entries:
            return fix, [(mapping.entries[-1][1].end, mapping.entries[-1][1].end, ", " + entry)]
        brace = text.find("{", mapping.start)
        return (fix, [(brace + 1, brace + 1, entry)]) if brace >= 0 else NOT_WRITTEN
    columns = {k.start - line_start(text, k.start) for k, _ in mapping.entries}
    if len(columns) != 1:
        return "the mapping's keys are not aligned in one column"
    indent = " " * columns.pop()
    end = _through_line(text, mapping.entries[-1][1].end)
    if end is None:
        return "another node follows on the mapping's last line"
    eol = line_break(text, line_start(text, mapping.entries[-1][1].end))
    if end == len(text) and not text.endswith(("\n", "\r")):
        return fix, [(end, end, eol + indent + entry)]
    return fix, [(end, end, indent + entry + eol)]


_HANDLERS = {
    FixKind.QUOTE: _quote,
    FixKind.REPLACE: _replace,
    FixKind.RENAME_KEY: _rename,
    FixKind.DELETE: _delete,
    FixKind.DELETE_EARLIER: _delete_earlier,
    FixKind.INSERT: _insert,
}

_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"),
         (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def encoding_of(data: bytes) -> tuple[bytes, str]:
    """``(byte-order mark, codec)`` of file bytes, as the loader decodes them (UTF-8 without a mark)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return bom, codec
    return b"", "utf-8"


def with_byte_offsets(diagnostics: list[Diagnostic], text: str, data: bytes) -> list[Diagnostic]:
    """Fill in ``byte_start``/``byte_end`` of every edit: offsets in the file's own bytes and encoding."""
    bom, codec = encoding_of(data)
    offsets = sorted({o for d in diagnostics if d.fix for e in d.fix.edits for o in (e.start, e.end)})
    if not offsets:
        return diagnostics
    byte_at: dict[int, int] = {}
    position, size = 0, len(bom)
    for offset in offsets:
        size += len(text[position:offset].encode(codec))
        byte_at[offset] = size
        position = offset
    out = []
    for d in diagnostics:
        if d.fix and d.fix.edits:
            edits = tuple(dataclasses.replace(e, byte_start=byte_at[e.start], byte_end=byte_at[e.end])
                          for e in d.fix.edits)
            d = dataclasses.replace(d, fix=dataclasses.replace(d.fix, edits=edits))
        out.append(d)
    return out


def apply_edits(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    """``text`` with non-overlapping edits applied (insertions at the same point keep their order)."""
    parts: list[str] = []
    position = 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        parts.append(text[position:start])
        parts.append(new)
        position = end
    parts.append(text[position:])
    return "".join(parts)
