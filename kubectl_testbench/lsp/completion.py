"""Completion: field names the schema allows at the cursor's path (not yet written there), enum values,
booleans, metric names with the reference data each needs, and the Experiment's apiVersion and kind."""

from __future__ import annotations

import json
from typing import Any

from lsprotocol import types as lsp

from kubectl_testbench.lsp import fields
from kubectl_testbench.lsp.context import KEY, Cursor, Readings, cursor_at
from kubectl_testbench.lsp.text import TextIndex
from kubectl_testbench.model.constants import API_VERSION, KIND


def complete(index: TextIndex, offset: int, readings: Readings | None = None) -> list[lsp.CompletionItem]:
    """The completions at ``offset`` (``readings``: what earlier requests read of the document)."""
    cursor = cursor_at(index.text, offset, index.lines, readings)
    if cursor is None or cursor.kind not in (None, KIND):
        return []
    if cursor.role == KEY:
        return _keys(cursor, index, offset)
    return _values(cursor, index, offset)


def _keys(cursor: Cursor, index: TextIndex, offset: int) -> list[lsp.CompletionItem]:
    from kubectl_testbench.crd.explain import type_label

    node = fields.object_node(fields.node_at(cursor.path))
    props: dict[str, Any] = (node or {}).get("properties") or {}
    required = set((node or {}).get("required") or ())
    if cursor.path == ():
        required |= {"apiVersion", "kind", "metadata", "spec"}
        props = {k: v for k, v in props.items() if k != "status"}  # the API server discards it
    followed_by_colon = index.text[cursor.end:].lstrip(" \t")[:1] == ":"
    items = []
    for name in sorted(props):
        if name in cursor.siblings:
            continue
        child = props[name]
        label = type_label(child)
        nested = label.startswith(("[]", "Object", "map["))
        if cursor.json:
            text = json.dumps(name) + ("" if followed_by_colon else ": ")
        else:
            text = _yaml_key(name, cursor.quote) + ("" if followed_by_colon else (":" if nested else ": "))
        items.append(lsp.CompletionItem(
            label=name,
            kind=lsp.CompletionItemKind.Property,
            detail=f"<{label}>" + (" required" if name in required else ""),
            documentation=_doc(child.get("description")),
            sort_text=("0" if name in required else "1") + name,
            filter_text=cursor.quote + name if cursor.quote else name,
            text_edit=_edit(index, cursor, offset, text),
        ))
    return items


def _values(cursor: Cursor, index: TextIndex, offset: int) -> list[lsp.CompletionItem]:
    node = fields.node_at(cursor.path)
    if cursor.path == ("apiVersion",):
        choices: list[tuple[Any, str, str | None]] = [(API_VERSION, "the Experiment API", None)]
    elif cursor.path == ("kind",):
        choices = [(KIND, "the Experiment kind", None)]
    elif fields.is_metric_name(cursor.path):
        choices = _metrics()
    elif node is not None and "enum" in node:
        choices = [(value, "allowed value", None) for value in node["enum"]]
    elif node is not None and node.get("type") == "boolean":
        choices = [(True, "boolean", None), (False, "boolean", None)]
    else:
        return []
    needs_space = not cursor.json and index.text[cursor.start - 1:cursor.start] == ":"
    items = []
    for rank, (value, detail, doc) in enumerate(choices):
        shown = value if isinstance(value, str) else json.dumps(value)
        if cursor.json and isinstance(value, str):
            text = json.dumps(value)
        elif cursor.quote and isinstance(value, str):
            text = cursor.quote + value + cursor.quote
        else:
            text = shown
        items.append(lsp.CompletionItem(
            label=shown,
            kind=lsp.CompletionItemKind.EnumMember,
            detail=detail,
            documentation=_doc(doc),
            sort_text=f"{rank:04d}",
            filter_text=cursor.quote + shown if cursor.quote else shown,
            text_edit=_edit(index, cursor, offset, (" " if needs_space else "") + text),
        ))
    return items


def _metrics() -> list[tuple[Any, str, str | None]]:
    """Metrics that score, with what each needs (the generated metric table)."""
    from kubectl_testbench.lsp.hover import metric_markdown
    from kubectl_testbench.validate.metrics import NEEDS

    out: list[tuple[Any, str, str | None]] = []
    for name in sorted(NEEDS):
        needs = ", ".join(f"reference.{n}" for n in NEEDS[name]) or "input only"
        out.append((name, f"needs {needs}", metric_markdown(name)))
    return out


def _yaml_key(name: str, quote: str) -> str:
    return f"{quote}{name}{quote}" if quote else name


def _doc(text: str | None) -> lsp.MarkupContent | None:
    if not text:
        return None
    return lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text)


def _edit(index: TextIndex, cursor: Cursor, offset: int, text: str) -> lsp.TextEdit:
    """Replace the token under the cursor (LSP wants the range to hold the cursor)."""
    a, b = index.position(min(cursor.start, offset)), index.position(max(cursor.end, offset))
    return lsp.TextEdit(range=lsp.Range(lsp.Position(a.line, a.character), lsp.Position(b.line, b.character)),
                        new_text=text)
