"""Which of a file's findings are reported: the rule selection (``--select``/``--ignore``/``--extend-select`` and
the configuration file) and the file's own suppression comments, which are checked in turn.

Two comments, both naming the rules (ids or groups, comma-separated), after ruff's ``# noqa: X`` and yamllint's
``# yamllint disable-line``:

- ``# testbench: ignore[RULE, ...]`` after content suppresses RULE's findings on that line; alone on its line,
  on the next line with content (a long line keeps its length, as with yamllint's ``disable-line``).
- ``# testbench: ignore-document[RULE, ...]`` among the comments before a document's first content line
  suppresses RULE's findings anywhere in that document (the ``---``-separated part of the file).

A suppression that suppressed nothing (``suppression/unused``), a name that is no rule (``suppression/unknown-rule``)
and a ``# testbench:`` comment of another shape (``suppression/invalid``) are findings themselves, at the
comment. Findings that mean the file or an object cannot be read at all are always reported (the engine passes
them as ``always``), as ruff reports syntax errors whatever is selected.

JSON has no comments: a JSON file is filtered by the selection only.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING, NamedTuple

from kubectl_testbench import rules as rule_table
from kubectl_testbench.rules.selection import Selection, known, matches
from kubectl_testbench.rules.suppression import SUPPRESSION_INVALID, SUPPRESSION_UNKNOWN_RULE, SUPPRESSION_UNUSED
from kubectl_testbench.validate.diagnostics import Diagnostic

if TYPE_CHECKING:
    from kubectl_testbench.load.lines import LineIndex

MARKER = "testbench:"
"""Every suppression comment holds it; a file without it is only filtered by the selection."""

_COMMENT = r"(?:^|(?<=[ \t]))#[ \t]*testbench:[ \t]*(?P<body>[^\r\n]*)"
_FORM = r"(?P<kind>ignore|ignore-document)[ \t]*\[(?P<names>[^\]]*)\][ \t]*(?:#.*)?$"


class _Comment(NamedTuple):
    line: int
    """1-based line of the comment."""
    col: int
    """1-based column of its ``#``."""
    first: int
    last: int
    """The lines whose findings it suppresses."""
    names: tuple[str, ...]
    """The rules it names that exist."""
    used: set[str]
    """The names that suppressed a finding (filled in as findings are filtered)."""


class Findings:
    """One file's filter: ``keep`` what the selection and the comments of ``text`` leave, then ``report`` on the
    comments. ``always``: rules no selection or comment removes. (A plain class: every validation makes one, and
    a dataclass costs a cold start more to define.)"""

    __slots__ = ("always", "comments", "marked", "path", "problems", "selection", "text")

    def __init__(self, text: str, path: str, selection: Selection, always: Collection[str] = ()) -> None:
        self.text = text
        self.path = path
        self.selection = selection
        self.always = always
        self.comments: list[_Comment] | None = None
        self.problems: list[Diagnostic] = []
        self.marked = MARKER in text
        """Whether the text holds a suppression comment at all: looked for once, not per document (a file of
        10,000 documents asks once per document)."""

    @property
    def idle(self) -> bool:
        """Nothing to filter: every rule selected and no suppression comment (the common case, kept cheap)."""
        return self.selection.everything and not self.marked

    def keep(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """The findings the selection and the comments let through (a suppressed one marks its comment used)."""
        if self.idle:
            return diagnostics
        return [d for d in diagnostics if d.rule in self.always or (self.selection(d.rule) and not self._suppressed(d))]

    def report(self) -> list[Diagnostic]:
        """The findings about the comments themselves: unused, unknown and malformed suppressions."""
        if not self.marked:
            return []
        comments = self._comments()  # reading them finds the malformed ones
        out = list(self.problems)
        for comment in comments:
            unused = [n for n in comment.names if n not in comment.used and self._judged(n)]
            if unused:
                names = ", ".join(unused)
                out.append(self._at(comment.line, comment.col, SUPPRESSION_UNUSED.id,
                                    f"unused suppression of {names}: no such finding "
                                    + (f"on line {comment.first}" if comment.first == comment.last
                                       else f"in lines {comment.first}-{comment.last}"),
                                    f"remove {names} from the comment"))
        return [d for d in out if self.selection(d.rule)]

    def _judged(self, name: str) -> bool:
        """A rule of ``name`` ran in this run (a suppression of rules not selected cannot be judged unused)."""
        return any(matches(name, rule) and self.selection(rule) for rule in rule_table.RULES)

    def _suppressed(self, d: Diagnostic) -> bool:
        hit = False
        for comment in self._comments():
            if comment.first <= d.line <= comment.last:
                for name in comment.names:
                    if matches(name, d.rule):
                        comment.used.add(name)
                        hit = True
        return hit

    def _comments(self) -> list[_Comment]:
        if self.comments is None:
            self.comments = self._read() if self.marked else []
        return self.comments

    def _read(self) -> list[_Comment]:
        from kubectl_testbench.load.lines import YAML_BREAK, LineIndex
        from kubectl_testbench.sniff import looks_like_json

        if looks_like_json(self.text):
            return []
        lines = LineIndex(self.text, YAML_BREAK)
        comments = []
        for match in re.finditer(_COMMENT, self.text, re.MULTILINE):
            line = lines.line_of(match.start())
            col = match.start() - lines.start(line) + 1
            own_line = not lines.content(line)[:col - 1].strip()
            form = re.match(_FORM, match.group("body").strip())
            if form is None:
                self.problems.append(self._at(line + 1, col, SUPPRESSION_INVALID.id,
                                              "not a suppression: name the rules, as in # testbench: ignore[RULE] "
                                              "or # testbench: ignore-document[RULE]"))
                continue
            names = self._names(form.group("names"), line + 1, col)
            if not names:
                continue
            if form.group("kind") == "ignore":
                target = _next_content(lines, line) if own_line else line
                comments.append(_Comment(line + 1, col, target + 1, target + 1, names, set()))
                continue
            document = _document_of(lines, line) if own_line else None
            if document is None:
                self.problems.append(self._at(line + 1, col, SUPPRESSION_INVALID.id,
                                              "ignore-document must be among the comments before the document's "
                                              "first content line: it suppresses nothing here"))
                continue
            comments.append(_Comment(line + 1, col, document[0] + 1, document[1] + 1, names, set()))
        return comments

    def _names(self, text: str, line: int, col: int) -> tuple[str, ...]:
        names = []
        before = len(self.problems)
        for name in (n.strip() for n in text.split(",")):
            if name and name != "ALL" and known(name):
                names.append(name)
            elif name:
                self.problems.append(self._at(line, col, SUPPRESSION_UNKNOWN_RULE.id,
                                              f'"{name}" is not a rule id or group{rule_table.did_you_mean(name)}: '
                                              "it suppresses nothing" if name != "ALL" else
                                              '"ALL" is not accepted in a suppression: name the rules'))
        if not names and len(self.problems) == before:
            self.problems.append(self._at(line, col, SUPPRESSION_INVALID.id,
                                          "the suppression names no rule: it suppresses nothing"))
        return tuple(names)

    def _at(self, line: int, col: int, rule: str, message: str, hint: str = "") -> Diagnostic:
        return Diagnostic(rule, rule_table.severity(rule), message, self.path, line, col, "",
                          hint or rule_table.RULES[rule].hint)


def _content(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and not stripped.startswith("#")


def _next_content(lines: LineIndex, line: int) -> int:
    """The 0-based line with content after ``line`` (``line`` itself when there is none)."""
    for number in range(line + 1, len(lines)):
        if _content(lines.content(number)):
            return number
    return line


def _document_of(lines: LineIndex, line: int) -> tuple[int, int] | None:
    """The 0-based first and last line of the document whose leading comments hold ``line``, or None when a
    content line of the same document comes before it."""
    start = 0
    for number in range(line - 1, -1, -1):
        text = lines.content(number)
        if text.startswith("---"):
            start = number
            break
        if _content(text) and not text.startswith("%"):
            return None
    end = len(lines) - 1
    content = False  # a '---' before any content opens the document these comments head (kubectl drops the
    for number in range(line + 1, len(lines)):  # comment-only chunk above it)
        text = lines.content(number)
        if text.startswith("---") and content:
            end = number - 1
            break
        content = content or (_content(text) and not text.startswith("---"))
    return start, end
