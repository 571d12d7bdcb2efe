"""JUnit XML as GitLab, Jenkins and GitHub's test reporters read it: the one writer and the one XML escaper of
the three JUnit reports (``validate``, ``results``, ``compare``).

Each report decides its suites, cases, counts and attribute order (they differ, and are kept as CI systems
already read them); this module writes the XML. Every attribute value goes through
:func:`~kubectl_testbench.safe_text.escape_unprintable` (XML 1.0 cannot carry control characters) and
``quoteattr``; element text keeps its line breaks (it is log lines) and only has ``&``, ``<`` and ``>``
escaped, so text must be made safe by its report (``validate`` writes its ``-o text`` lines, which are
escaped already). The document then goes through :func:`~kubectl_testbench.safe_text.xml_log_safe`: a
``##[`` kept as data in a value is written ``##&#91;``, never a workflow command when a CI job prints the
report. Values a report has escaped for a log line already (``escape_controls``) pass both steps unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from kubectl_testbench.safe_text import escape_unprintable, xml_log_safe

Attributes = Sequence[tuple[str, object]]
"""Attribute names and values in the order they are written (numbers are written as Python prints them)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a test case holds: ``failure``, ``error``, ``skipped`` or ``system-out``."""

    element: str
    attributes: Attributes = ()
    text: str | None = None
    """The element's text (log lines); None writes an empty element (``<skipped …/>``)."""


@dataclass(frozen=True, slots=True)
class Case:
    attributes: Attributes
    outcome: Outcome | None = None
    """None: the case passed (an empty ``<testcase …/>``)."""


@dataclass(frozen=True, slots=True)
class Suite:
    attributes: Attributes
    cases: Sequence[Case]
    properties: Attributes = ()
    """``<property name=… value=…/>`` entries, written before the cases when there are any."""


def document(attributes: Attributes, suites: Sequence[Suite]) -> str:
    """The whole report: the XML declaration, ``<testsuites>`` with ``attributes``, one line per case."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n', f"<testsuites {_attributes(attributes)}>\n"]
    for suite in suites:
        out.append(f"  <testsuite {_attributes(suite.attributes)}>\n")
        if suite.properties:
            properties = "".join(f"<property {_attributes([('name', k), ('value', v)])}/>"
                                 for k, v in suite.properties)
            out.append(f"    <properties>{properties}</properties>\n")
        out.extend(_case(case) + "\n" for case in suite.cases)
        out.append("  </testsuite>\n")
    out.append("</testsuites>\n")
    return xml_log_safe("".join(out))


def _case(case: Case) -> str:
    head = f"    <testcase {_attributes(case.attributes)}"
    if case.outcome is None:
        return head + "/>"
    return f"{head}>{_element(case.outcome)}</testcase>"


def _element(outcome: Outcome) -> str:
    head = f"<{outcome.element} {_attributes(outcome.attributes)}" if outcome.attributes else f"<{outcome.element}"
    if outcome.text is None:
        return head + "/>"
    return f"{head}>{escape(outcome.text)}</{outcome.element}>"


def _attributes(attributes: Attributes) -> str:
    return " ".join(f"{name}={quoteattr(escape_unprintable(str(value)))}" for name, value in attributes)
