"""Hover: what ``kubectl testbench explain`` says about the field under the cursor, and on a ``metricName``
value what ``explain metrics`` says about that metric (the reference data it needs)."""

from __future__ import annotations

from dataclasses import dataclass

from kubectl_testbench.load.lines import LineIndex
from kubectl_testbench.lsp import fields
from kubectl_testbench.lsp.context import KEY, Readings, cursor_at
from kubectl_testbench.model.constants import KIND


@dataclass(frozen=True, slots=True)
class HoverText:
    markdown: str
    start: int
    end: int
    """The hovered token's offsets."""


def hover_at(text: str, offset: int, lines: LineIndex | None = None,
             readings: Readings | None = None) -> HoverText | None:
    """The hover for ``offset`` of ``text`` (``lines``: its LSP lines, when already indexed; ``readings``: what
    earlier requests read of the document)."""
    cursor = cursor_at(text, offset, lines, readings)
    if cursor is None or cursor.kind not in (None, KIND) or not cursor.token:
        return None
    path = (*cursor.path, cursor.token) if cursor.role == KEY else cursor.path
    parts = []
    if cursor.role != KEY and fields.is_metric_name(path):
        parts.append(metric_markdown(cursor.token))
    doc = field_markdown(path)
    if doc:
        parts.append(doc)
    if not parts:
        return None
    return HoverText("\n\n".join(parts), cursor.start, cursor.end)


def field_markdown(path: tuple[str | int, ...]) -> str | None:
    """explain's FIELD, DESCRIPTION and CONSTRAINTS (and FIELDS of an object) for the field at ``path``."""
    from kubectl_testbench.crd.explain import ExplainError, explain, type_label
    from kubectl_testbench.validate.crdschema import open_api_schema

    if not path:
        return None
    if path[0] == "metadata" and len(path) > 1:
        node = fields.node_at(path)
        if node is None:
            return None
        lines = [f"FIELD: {path[-1]} <{type_label(node)}>", "", "DESCRIPTION:",
                 f"    {node.get('description') or 'ObjectMeta field, validated by the API server itself.'}"]
        for name, key in (("MAX LENGTH", "maxLength"), ("PATTERN", "pattern")):
            if key in node:
                lines.append(f"    {name}: {node[key]}")
        return _fenced("\n".join(lines))
    try:
        text = explain(open_api_schema(), fields.explain_path(path))
    except ExplainError:
        return None
    marker = text.find("FIELD:")
    return _fenced(text[marker:] if marker >= 0 else text)


def metric_markdown(name: str) -> str:
    """What the evaluate phase does with the metric: scores it with which reference data, or why it cannot."""
    from kubectl_testbench.validate.metrics import NEEDS, OLD_NAMES, PARAMETERS, PHASE_PACKAGE, TABLE, UNSCORABLE

    if name in NEEDS:
        needs = ", ".join(f"`reference.{n}`" for n in NEEDS[name]) or "nothing besides the step input"
        lines = [f"needs: {needs}"]
        if PARAMETERS[name]:
            lines.append(f"parameters: {', '.join(f'`{p}`' for p in PARAMETERS[name])}")
        judged = TABLE["scorable"][name].get("judge")
        lines.append("uses the LLM judge (llmAsAJudgeModel)" if judged else "computed without an LLM judge")
        return f"**{name}**: scored by {PHASE_PACKAGE}\n\n" + "  \n".join(lines)  # "  \n": a Markdown line break
    if name in UNSCORABLE:
        return f"**{name}**: the evaluate phase finds it but never scores it: {UNSCORABLE[name]}"
    if name in OLD_NAMES:
        return f"**{name}**: old name of `{OLD_NAMES[name]}`; not in ragas.metrics.collections"
    return (f"**{name}**: not a metric the evaluate phase finds "
            "(`kubectl testbench explain metrics` lists them)")


def _fenced(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}text\n{text.rstrip()}\n{fence}"
