"""Code actions: each fix the engine offers as a quick fix, and ``kubectl testbench fix`` on the whole buffer
as the "fix all" source action (its rounds and read-back verification, not a second implementation)."""

from __future__ import annotations

from lsprotocol import types as lsp

from kubectl_testbench.lsp.check import Settings
from kubectl_testbench.lsp.publish import Placed
from kubectl_testbench.lsp.text import TextIndex

FIX_ALL = lsp.CodeActionKind.SourceFixAll
FIX_ALL_TITLE = "Fix all kubectl-testbench findings (kubectl testbench fix)"


def wanted(only: list[str] | None, kind: str) -> bool:
    """Whether the client's ``only`` filter admits ``kind`` (``source`` admits ``source.fixAll``)."""
    return only is None or any(kind == k or kind.startswith(k + ".") for k in only)


def quick_fixes(placed: list[Placed], start: int, end: int, index: TextIndex, uri: str,
                version: int | None) -> list[lsp.CodeAction]:
    """A quick fix for every finding with a placed fix whose range touches ``[start, end]``."""
    actions = []
    for p in placed:
        fix = p.finding.fix
        if fix is None or not fix.edits or p.end < start or p.start > end:
            continue
        edits = [_text_edit(index, e.start, e.end, e.text) for e in fix.edits]
        actions.append(lsp.CodeAction(
            title=f"{fix.title or fix.kind.value} ({p.finding.rule})",
            kind=lsp.CodeActionKind.QuickFix,
            diagnostics=[p.diagnostic],
            is_preferred=True,
            edit=workspace_edit(uri, version, edits),
        ))
    return actions


def fix_all(text: str, path: str, root: str | None, settings: Settings) -> str:
    """The buffer after ``kubectl testbench fix`` (the text unchanged when nothing applies)."""
    from kubectl_testbench.fix.apply import FixOptions, fix_text
    from kubectl_testbench.lsp.check import configured_rules, gateway_default
    from kubectl_testbench.validate.engine import Options

    options = Options(limits=settings.limits, rules=configured_rules(path))
    outcome = fix_text(text, path, FixOptions(options), gateway_default=gateway_default(path, root))
    return outcome.after if outcome.after is not None else text


def whole_text_edit(index: TextIndex, new: str) -> list[lsp.TextEdit]:
    """One edit that turns the indexed text into ``new``: only the span between their common prefix and
    suffix is replaced, so the editor keeps the cursor and folds where nothing changed."""
    old = index.text
    if old == new:
        return []
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    return [_text_edit(index, prefix, len(old) - suffix, new[prefix:len(new) - suffix])]


def workspace_edit(uri: str, version: int | None, edits: list[lsp.TextEdit]) -> lsp.WorkspaceEdit:
    """Edits of one document, tied to the version they were computed for when the client tracks versions."""
    if version is None:
        return lsp.WorkspaceEdit(changes={uri: edits})
    identifier = lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    return lsp.WorkspaceEdit(document_changes=[lsp.TextDocumentEdit(text_document=identifier,
                                                                    edits=list(edits))])


def _text_edit(index: TextIndex, start: int, end: int, text: str) -> lsp.TextEdit:
    a, b = index.position(start), index.position(end)
    return lsp.TextEdit(range=lsp.Range(lsp.Position(a.line, a.character), lsp.Position(b.line, b.character)),
                        new_text=text)
