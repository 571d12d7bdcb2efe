"""Proof that edits did what their fixes say and nothing else: read both texts as Kubernetes does, compare.

Every document of the old text is read with the loader validation uses (YAML 1.1 as Kubernetes reads it; a
JSON stream with the JSON reader, as kubectl reads it),
each fix's meaning is applied to it (this value becomes that string, this key is renamed, this entry is
gone), and the result must equal the new text's document exactly, types included: ``true`` is not ``1``,
``"0.8"`` is not ``0.8``. A fix whose edit would change anything else fails.
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kubectl_testbench.load.builder import build
from kubectl_testbench.load.jsonread import read_stream
from kubectl_testbench.load.limits import Limits
from kubectl_testbench.load.lines import SPLITLINES_BREAK, LineIndex
from kubectl_testbench.load.positions import plain
from kubectl_testbench.load.split import split_documents
from kubectl_testbench.sniff import looks_like_json
from kubectl_testbench.validate.diagnostics import Fix, FixKind

_UNCHECKED_DATA = (FixKind.REINDENT,)
"""Fixes of documents that did not parse before: there is no old meaning to compare, only that it now parses."""


@dataclass(slots=True)
class Document:
    start: int
    data: Any
    readable: bool


def documents(text: str, limits: Limits) -> list[Document]:
    """Each document's start offset and its data as the API server would receive it (None when unreadable)."""
    if looks_like_json(text):
        # (an unreadable document's data is None: both readers drop what they read before the error)
        return [Document(doc.start, plain(doc.data), doc.error is None) for doc in read_stream(text, limits)]
    lines = LineIndex(text, SPLITLINES_BREAK)  # the lines split_documents counts
    out = []
    for chunk in split_documents(text):
        built = build(chunk.text, limits=limits)
        out.append(Document(lines.start(chunk.start_line), plain(built.data), built.error is None))
    return out


def canonical(value: Any) -> Any:
    """A comparable form that keeps JSON types apart (Python says ``True == 1`` and ``1 == 1.0``)."""
    if isinstance(value, dict):
        return (dict, tuple(sorted((k, canonical(v)) for k, v in value.items())))
    if isinstance(value, list):
        return (list, tuple(canonical(v) for v in value))
    return (type(value), value)


def meaning(data: Any, fix: Fix) -> Any:
    """``data`` as it must read after ``fix`` (raises LookupError/TypeError when the path is not there)."""
    if fix.kind in (FixKind.SPLIT_SEPARATOR, FixKind.REINDENT):
        return data
    data = copy.deepcopy(data)
    *parents, last = fix.path
    holder = data
    for seg in parents:
        holder = holder[seg]
    if fix.kind is FixKind.INSERT:
        holder[last] = fix.value
        return data
    if isinstance(holder, dict) and last not in holder:
        raise LookupError
    if fix.kind in (FixKind.QUOTE, FixKind.REPLACE):
        holder[last] = fix.value
    elif fix.kind is FixKind.RENAME_KEY:
        holder[fix.value] = holder.pop(last)
    elif fix.kind is FixKind.DELETE:
        del holder[last]
    return data


def failing(old_text: str, new_text: str, fixes: Sequence[Fix], limits: Limits) -> list[int]:
    """Indexes of the old text's documents whose new reading is not exactly what their fixes promise."""
    old, new = documents(old_text, limits), documents(new_text, limits)
    if len(old) != len(new):
        return list(range(len(old)))
    starts = [d.start for d in old]
    expected: list[Any] = [d.data for d in old]
    touched: set[int] = set()
    unchecked: set[int] = set()
    bad: set[int] = set()
    for fix in fixes:
        index = max(0, bisect.bisect_right(starts, fix.edits[0].start) - 1) if fix.edits else 0
        touched.add(index)
        if fix.kind in _UNCHECKED_DATA:
            unchecked.add(index)
            continue
        try:
            expected[index] = meaning(expected[index], fix)
        except (LookupError, TypeError, IndexError):
            bad.add(index)
    for i, (before, after) in enumerate(zip(old, new, strict=True)):
        if i in unchecked:
            ok = after.readable
        elif i in touched:
            ok = before.readable and after.readable and canonical(expected[i]) == canonical(after.data)
        else:
            ok = before.readable == after.readable and canonical(before.data) == canonical(after.data)
        if not ok:
            bad.add(i)
    return sorted(bad)
