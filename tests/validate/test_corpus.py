"""The negative corpus: one file per mistake users really make.

Each file's first line names the expected rule id and Kubernetes field path; the line the finding must
point to carries a trailing ``# <-`` marker. ``# also: RULE PATH`` lines name the findings that follow from the
mistake itself (a schema error leaves the CEL rules unevaluated, a misspelt key is also a missing one). Every
case asserts the line exactly and the findings as an exact list: nothing missing, nothing extra.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubectl_testbench.validate.engine import validate_text

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(CORPUS.glob("*.yaml"))


def _expectation(text: str) -> tuple[str, str, int]:
    match = re.match(r"# expect: (\S+) ?(.*)\n", text)
    assert match, "corpus file must start with '# expect: RULE PATH'"
    line = next(i + 1 for i, raw in enumerate(text.splitlines()) if raw.rstrip().endswith("# <-"))
    return match.group(1), match.group(2).strip(), line


def _also(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2).strip()) for m in re.finditer(r"^# also: (\S+) ?(.*)$", text, re.M)]


def test_corpus_has_at_least_forty_distinct_mistakes() -> None:
    assert len(CASES) >= 40
    assert len({_expectation(p.read_text())[0] for p in CASES}) >= 25


@pytest.mark.parametrize("case", CASES, ids=[p.stem for p in CASES])
def test_corpus_case_reports_rule_path_and_line(case: Path) -> None:
    text = case.read_text()
    rule, path, line = _expectation(text)
    result = validate_text(text, str(case))
    found = [(d.rule, d.path, d.line) for d in result.diagnostics]
    assert (rule, path, line) in found, f"expected {rule} at {path}:{line}, got {found}"
    assert sorted((d.rule, d.path) for d in result.diagnostics) == sorted([(rule, path), *_also(text)])


@pytest.mark.parametrize("case", CASES, ids=[p.stem for p in CASES])
def test_corpus_case_fails_validation_unless_it_is_a_warning(case: Path) -> None:
    from kubectl_testbench.rules import RULES
    from kubectl_testbench.rules.rule import Severity

    text = case.read_text()
    rule, _, _ = _expectation(text)
    result = validate_text(text, str(case))
    if RULES[rule].severity is Severity.ERROR:
        assert result.counts.invalid + result.counts.malformed >= 1
    else:
        strict = validate_text(text, str(case), options=_strict())
        assert strict.counts.invalid == 1, "a warning must fail validation under --strict"


def _strict():  # type: ignore[no-untyped-def]
    from kubectl_testbench.validate.engine import Options

    return Options(strict=True)
