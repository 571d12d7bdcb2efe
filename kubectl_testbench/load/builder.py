"""Build one YAML document from libyaml's event stream, with positions, as Kubernetes would read it.

Why events and not ``yaml.compose``: PyYAML's C composer recurses per nesting level and crashes the
interpreter on deeply nested input (a segfault at depth 100,000, measured). Consuming events lets us stop
at a depth limit, cap alias expansion, report duplicate keys, resolve scalars by Kubernetes' YAML 1.1
rules and record every node's position in one pass, faster than ``yaml.load`` with the C loader.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml import events as ev

from kubectl_testbench.load.libyaml import read_with
from kubectl_testbench.load.limits import DEFAULT_LIMITS, Limits
from kubectl_testbench.load.lines import YAML_BREAK, LineIndex
from kubectl_testbench.load.positions import Mark, Path, PathSegment, PosDict, PosList
from kubectl_testbench.load.scalars import Note, resolve_plain, resolve_tagged
from kubectl_testbench.rules.yaml import (
    YAML_ALIAS,
    YAML_ALIAS_LIMIT,
    YAML_DUPLICATE_KEY,
    YAML_KEY_TYPE,
    YAML_MERGE,
    YAML_SYNTAX,
    YAML_TAG,
    YAML_TOO_DEEP,
    YAML_TOO_MANY_NODES,
    YAML_UNKNOWN_TAG,
)

_MAP_TAGS = (None, "tag:yaml.org,2002:map", "!")
_SEQ_TAGS = (None, "tag:yaml.org,2002:seq", "!")


@dataclass(slots=True)
class Remark:
    """A finding made while reading: a duplicate key, a YAML 1.1 reading, an unknown tag."""

    rule: str
    message: str
    mark: Mark
    path: Path
    text: str = ""
    context: Mark | None = None
    """For a syntax error: where the construct libyaml was reading began (an opening quote, a mapping)."""


@dataclass(slots=True)
class BuildResult:
    """One document: its data (None for an empty document), remarks, or a fatal syntax error."""

    data: Any = None
    empty: bool = False
    remarks: list[Remark] = field(default_factory=list)
    error: Remark | None = None
    extra_documents: bool = False
    ignored: Mark | None = None
    """Where content after an explicit document end (``...``) starts: kubectl drops it."""
    nodes: int = 0
    """Nodes read (up to an error): the file's later documents get what is left of ``--max-nodes``."""


class YamlReadError(Exception):
    """Input that cannot be read as a document: syntax, limits, aliases."""

    def __init__(self, rule: str, message: str, mark: Mark) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.mark = mark


class _Frame:
    """An open mapping or sequence while its events stream in."""

    __slots__ = ("anchor", "container", "is_map", "key", "key_mark", "merged", "nbytes", "seg", "size")

    def __init__(self, container: Any, is_map: bool, seg: PathSegment | None, anchor: str | None) -> None:
        self.container = container
        self.is_map = is_map
        self.key: Any = _NO_KEY
        self.key_mark: Mark = (0, 0)
        self.merged: set[str] | None = None
        self.seg = seg
        self.size = 1
        self.nbytes = 0
        """Characters of scalar text in this node, aliases expanded: what an alias of it brings in."""
        self.anchor = anchor


_NO_KEY = object()


def build(text: str, line_offset: int = 0, limits: Limits = DEFAULT_LIMITS, spent: int = 0) -> BuildResult:
    """Read the first document of ``text``; marks are shifted by ``line_offset`` lines. ``spent``: nodes the
    file's earlier documents read, so ``--max-nodes`` bounds a whole file, not each of its documents."""
    result = BuildResult()

    def read(loader: Any) -> None:
        nonlocal result
        result = BuildResult()  # a fresh one when libyaml's nesting limit makes us read again
        _build(loader, result, line_offset, limits, spent)

    try:
        read_with(text, read)
    except YamlReadError as err:
        result.error = Remark(err.rule, err.message, err.mark, ())
        result.data = None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, col = (mark.line + 1 + line_offset, mark.column + 1) if mark else (line_offset + 1, 1)
        problem = err.problem or "invalid YAML"
        context = f" {err.context}" if err.context else ""
        began = err.context_mark
        result.error = Remark(YAML_SYNTAX.id, f"{problem}{context}".strip(), (line, col), (),
                              context=(began.line + 1 + line_offset, began.column + 1) if began else None)
        result.data = None
    except yaml.reader.ReaderError as err:
        # the reader reports an offset, not a line: count it ourselves
        offset = _char_offset(text, err)
        line, col = LineIndex(text[:offset], YAML_BREAK).position(offset)  # the lines libyaml counts in its marks
        line += line_offset
        char = f"#x{err.character:04x}" if isinstance(err.character, int) else repr(err.character)
        result.error = Remark(YAML_SYNTAX.id, f"unacceptable character {char}: {err.reason}", (line, col), ())
    except yaml.YAMLError as err:
        result.error = Remark(YAML_SYNTAX.id, str(err).splitlines()[0], (line_offset + 1, 1), ())
    return result


def _char_offset(text: str, err: yaml.reader.ReaderError) -> int:
    """Where the refused character is in ``text``: libyaml counts UTF-8 bytes, PyYAML's own reader characters.
    The offset that points at the refused character is the one that reader used."""
    position = int(err.position)
    prefix = text.encode("utf-8", "surrogatepass")[:position].decode("utf-8", "ignore")
    refused = chr(err.character) if isinstance(err.character, int) else str(err.character)
    if len(prefix) < len(text) and text[len(prefix)] == refused:
        return len(prefix)
    return min(position, len(text))


def _build(loader: Any, result: BuildResult, line_offset: int, limits: Limits, spent: int = 0) -> None:
    """The event loop. It is the hot path of every command, so the common cases (plain scalars, mapping
    entries, sequence items) are handled inline; anything unusual goes through small helpers."""
    get = loader.get_event
    ScalarEvent, AliasEvent = ev.ScalarEvent, ev.AliasEvent
    MapStart, SeqStart = ev.MappingStartEvent, ev.SequenceStartEvent
    MapEnd, SeqEnd = ev.MappingEndEvent, ev.SequenceEndEvent
    DocStart = ev.DocumentStartEvent
    resolve = resolve_plain
    no_key = _NO_KEY

    get()  # StreamStart
    if not isinstance(get(), DocStart):
        result.empty = True
        return
    stack: list[_Frame] = []
    anchors: dict[str, tuple[Any, int, int]] = {}  # value, nodes, characters of text
    remarks = result.remarks
    root: Any = None  # libyaml gives even an empty document a (null) root node
    expanded = 0
    expanded_bytes = 0
    max_alias_bytes = limits.max_file_bytes
    events = spent
    max_depth = limits.max_depth
    top: _Frame | None = None

    def path_of(extra: PathSegment | None = None) -> Path:
        segs: list[PathSegment] = [f.seg for f in stack[1:] if f.seg is not None]
        if stack and extra is not None:
            segs.append(extra)
        return tuple(segs)

    max_nodes = limits.max_nodes
    try:
        while True:
            event = get()
            events += 1
            if events > max_nodes:
                where = "one file" if spent else "one document"
                rest = "; the rest is not read" if spent else ""
                raise YamlReadError(YAML_TOO_MANY_NODES.id, f"more than {max_nodes} nodes in {where} "
                                    f"(raise with --max-nodes){rest}", _mark(event, line_offset))
            t = type(event)
            if t is ScalarEvent:
                m = event.start_mark
                mark = (m.line + 1 + line_offset, m.column + 1)
                if event.tag is None and event.implicit[0]:
                    text = event.value
                    if top is not None and top.is_map and top.key is no_key and text == "<<":
                        value: Any = _MERGE
                    else:
                        value, note = resolve(text)
                        if note is not None:
                            _note(note, text, value, mark, stack, remarks, path_of)
                else:
                    value = _scalar(event, mark, stack, remarks, path_of)
                nbytes = len(event.value)
                if event.anchor:
                    anchors[event.anchor] = (value, 1, nbytes)
                size = 1
            elif t is MapStart or t is SeqStart:
                if len(stack) >= max_depth:
                    raise YamlReadError(YAML_TOO_DEEP.id, f"nesting deeper than {max_depth} levels "
                                        "(raise with --max-depth)", _mark(event, line_offset))
                is_map = t is MapStart
                m = event.start_mark
                mark = (m.line + 1 + line_offset, m.column + 1)
                if event.tag not in (_MAP_TAGS if is_map else _SEQ_TAGS):
                    remarks.append(Remark(YAML_UNKNOWN_TAG.id, f"tag {event.tag} is ignored by Kubernetes", mark,
                                          path_of(_pending_segment(stack))))
                container: Any = PosDict(mark) if is_map else PosList(mark)
                if top is None:
                    seg: PathSegment | None = None
                elif top.is_map:
                    seg = top.key if isinstance(top.key, str) else None
                else:
                    seg = len(top.container)
                top = _Frame(container, is_map, seg, event.anchor)
                stack.append(top)
                continue
            elif t is MapEnd or t is SeqEnd:
                frame = stack.pop()
                top = stack[-1] if stack else None
                if frame.anchor:
                    anchors[frame.anchor] = (frame.container, frame.size, frame.nbytes)
                value, mark, size, nbytes = frame.container, frame.container.mark, frame.size, frame.nbytes
            elif t is AliasEvent:
                mark = _mark(event, line_offset)
                if event.anchor not in anchors:
                    raise YamlReadError(YAML_ALIAS.id, f'unknown or recursive alias "*{event.anchor}"', mark)
                value, size, nbytes = anchors[event.anchor]
                expanded += size
                if expanded > limits.alias_budget + 10 * (events - spent):
                    raise YamlReadError(YAML_ALIAS_LIMIT.id, "alias expansion exceeds the limit "
                                        f"({limits.alias_budget} nodes beyond 10x the document; a billion-laughs "
                                        "document?)", mark)
                # An alias of a large value is one node but all of its text: bound the text it brings in as
                # the file size bounds literal text (kubectl sends the expanded document to the server).
                expanded_bytes += nbytes
                if expanded_bytes > max_alias_bytes:
                    raise YamlReadError(YAML_ALIAS_LIMIT.id, "aliases expand to more than "
                                        f"{_mib(max_alias_bytes)} of text, more than a file may hold "
                                        "(raise with --max-file-size)", mark)
            else:  # DocumentEndEvent: libyaml's event grammar allows nothing else inside a document
                end = event
                break

            # attach the finished node to the open container: as an item, a key, or a key's value
            if top is None:
                root = value
                continue
            top.size += size
            top.nbytes += nbytes
            c = top.container
            if not top.is_map:
                c.append(value)
                c.item_marks.append(mark)
            elif top.key is no_key:
                top.key = value if type(value) is str or value is _MERGE else _key_string(value, mark)
                top.key_mark = mark
            else:
                key = top.key
                top.key = no_key
                if key is _MERGE:
                    _merge(top, value, mark, remarks, path_of)
                    continue
                if key in c:
                    by_merge = top.merged is not None and key in top.merged
                    first = None if by_merge else c.key_marks.get(key)
                    remarks.append(Remark(YAML_DUPLICATE_KEY.id, _duplicate_message(key, by_merge, first),
                                          top.key_mark, path_of(key)))
                c[key] = value
                c.key_marks[key] = top.key_mark
                c.value_marks[key] = mark
    finally:
        result.nodes = events - spent
    try:
        following = get()
    except yaml.YAMLError:  # libyaml wants '---' before a document that follows '...'; go-yaml never looks
        following = None
    if following is None or isinstance(following, DocStart):
        result.extra_documents = True
        if end.explicit:
            result.ignored = (end.end_mark.line + 2 + line_offset, 1)
    result.data = root
    result.empty = root is None


_MERGE = object()


def _mib(size: int) -> str:
    return f"{size // (1024 * 1024)} MiB" if size % (1024 * 1024) == 0 else f"{size} bytes"


def _pending_segment(stack: list[_Frame]) -> PathSegment | None:
    """Path segment of the node about to be attached to the top frame: its key, its index, or None for a key."""
    if not stack:
        return None
    top = stack[-1]
    if top.is_map:
        return top.key if isinstance(top.key, str) else None
    return len(top.container)


def _mark(event: Any, line_offset: int) -> Mark:
    m = event.start_mark
    return (m.line + 1 + line_offset, m.column + 1)


def _scalar(event: Any, mark: Mark, stack: list[_Frame], remarks: list[Remark], path_of: Any) -> Any:
    """A scalar that is not plain and untagged (the hot path handles those): quoted, block, or tagged."""
    text: str = event.value
    tag = event.tag
    if tag is None or tag == "!":
        return text  # quoted or block scalar, or the non-specific tag "!": always a string
    try:
        value = resolve_tagged(tag, text)
    except ValueError as err:
        if tag.startswith("tag:yaml.org,2002:"):
            raise YamlReadError(YAML_TAG.id, str(err), mark) from None
        remarks.append(Remark(YAML_UNKNOWN_TAG.id, f"tag {tag} is ignored by Kubernetes", mark,
                              path_of(_pending_segment(stack))))
        return text
    if isinstance(value, float) and not math.isfinite(value):  # !!float .inf: JSON cannot carry it either
        _note(Note.NON_FINITE, text, value, mark, stack, remarks, path_of)
    return value


def _note(note: str, text: str, value: Any, mark: Mark, stack: list[_Frame], remarks: list[Remark],
          path_of: Any) -> None:
    remarks.append(Remark(note, _note_message(note, text, value), mark, path_of(_pending_segment(stack)), text))


def _note_message(note: str, text: str, value: Any) -> str:
    if note == Note.YAML11_BOOL:
        return (f"{text} is read as the boolean {str(value).lower()} by Kubernetes (YAML 1.1); "
                f'quote it ("{text}") if you meant a string')
    if note == Note.SEXAGESIMAL:
        return f'{text} is a string for Kubernetes but a base-60 number for YAML 1.1 tools; quote it ("{text}")'
    if note == Note.OCTAL:  # YAML 1.2's core schema reads digits as decimal, and digits with '_' as a string
        other = f'the string "{text}"' if "_" in text else str(int(text, 10))
        return f"{text} is read as the octal number {value} by Kubernetes (YAML 1.1) but as {other} by YAML 1.2 tools"
    return f"{text} cannot be represented in JSON; Kubernetes rejects it"


def _key_string(value: Any, mark: Mark) -> str:
    """Map keys as sigs.k8s.io/yaml turns them into JSON object keys."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    kind = "null" if value is None else type(value).__name__.replace("Pos", "").lower()
    raise YamlReadError(YAML_KEY_TYPE.id, f"a {kind} cannot be a mapping key in Kubernetes YAML", mark)


def _merge(frame: _Frame, value: Any, mark: Mark, remarks: list[Remark], path_of: Any) -> None:
    """A merge key (``<<: *defaults``) as go-yaml v2 decodes it: where it stands among the entries.

    Its keys are set in order, over what came before and under what comes after; of a sequence of merged
    maps the first one wins (they are applied last to first). Strict decoding (YAMLToJSONStrict) rejects
    every key that is set twice, by a merge or explicitly, so each overlap is a duplicate key.
    """
    sources = list(reversed(value)) if isinstance(value, list) else [value]
    if not all(isinstance(source, dict) for source in sources):
        raise YamlReadError(YAML_MERGE.id, "a merge key (<<) needs a mapping or a list of mappings", mark)
    target: PosDict = frame.container
    if frame.merged is None:
        frame.merged = set()
    for source in sources:
        for key, val in source.items():
            if key in target:
                remarks.append(Remark(YAML_DUPLICATE_KEY.id, _duplicate_message(key, True), frame.key_mark,
                                      path_of(key)))
            target[key] = val
            if isinstance(source, PosDict):  # every mapping read here is one, with a mark for each key
                target.key_marks[key] = source.key_marks[key]
                target.value_marks[key] = source.value_marks[key]
            frame.merged.add(key)


def _duplicate_message(key: str, by_merge: bool, first: Mark | None = None) -> str:
    if by_merge:
        return (f'key "{key}" is set both by a merge key (<<) and by another entry: strict decoding rejects it '
                "(without it, the later one wins)")
    where = f" (first at line {first[0]}, column {first[1]})" if first is not None else ""
    return f'duplicate key "{key}"{where}: the later value wins'
