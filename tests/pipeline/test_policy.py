"""pipeline/policy: the ``--strict`` rule and the clash of an Experiment defined twice, for every front-end."""

from __future__ import annotations

from kubectl_testbench.pipeline.policy import Tally, fails
from kubectl_testbench.validate.diagnostics import Counts, Diagnostic, Severity
from kubectl_testbench.validate.duplicates import Identity
from kubectl_testbench.validate.engine import FileResult


def _d(rule: str, severity: Severity) -> Diagnostic:
    return Diagnostic(rule, severity, "m", "f.yaml", 1, 1)


def test_an_error_fails_and_a_warning_only_under_strict() -> None:
    error, warning, info = _d("schema/type", Severity.ERROR), _d("x/w", Severity.WARNING), _d("x/i", Severity.INFO)
    assert [fails(d, False) for d in (error, warning, info)] == [True, False, False]
    assert [fails(d, True) for d in (error, warning, info)] == [True, True, False]


def test_judge_sorts_findings_into_problems_and_shown_warnings() -> None:
    notice = _d("input/template", Severity.INFO)
    findings = [_d("schema/type", Severity.ERROR), _d("semantic/no-gateway", Severity.WARNING), notice,
                _d("cel/not-evaluated", Severity.INFO)]
    relaxed, strict = Tally(), Tally(strict=True)
    relaxed.judge(findings)
    strict.judge(findings)
    assert [d.rule for d in relaxed.problems] == ["schema/type"]
    assert [d.rule for d in relaxed.warnings] == ["semantic/no-gateway", "input/template"]
    assert [d.rule for d in strict.problems] == ["schema/type", "semantic/no-gateway"]
    assert [d.rule for d in strict.warnings] == ["input/template"]  # a skipped template is worth a notice


def _identity(name: str, namespace: str | None, file: str, valid: bool = True) -> Identity:
    return Identity(name, namespace, file, 3, 7, 1, valid)


def test_add_counts_files_and_keeps_their_experiments_for_the_clash_check() -> None:
    tally = Tally()
    for path in ("a.yaml", "b.yaml"):
        result = FileResult(path, counts=Counts(files=1, experiments=1, valid=1))
        result.identities.append(_identity("x", "ns", path))
        tally.add(result)
    assert (tally.counts.files, tally.counts.valid) == (2, 2) and len(tally.identities) == 2
    assert tally.ok
    clashes = tally.clashes()
    assert [(d.rule, d.file, d.line, d.col) for d in tally.problems] == [
        ("semantic/duplicate-experiment", "a.yaml", 3, 7), ("semantic/duplicate-experiment", "b.yaml", 3, 7)]
    assert "is also defined at b.yaml:3:7" in tally.problems[0].message  # the first copy is reported too
    assert "is also defined at a.yaml:3:7" in tally.problems[1].message
    assert clashes.origins == {"a.yaml:1", "b.yaml:1"} and clashes.invalidated == 2
    assert (tally.counts.errors, tally.counts.valid, tally.counts.invalid) == (2, 0, 2)
    assert not tally.ok


def test_experiments_without_a_namespace_clash_in_the_commands_namespace() -> None:
    tally = Tally()
    tally.identities += [_identity("x", None, "a.yaml"), _identity("x", "team", "b.yaml", valid=False)]
    assert tally.clashes().diagnostics == []  # unknown namespace: only among themselves
    found = tally.clashes("team", where=lambda ident: f"<{ident.file}>")
    assert "is also defined at <b.yaml>" in found.diagnostics[0].message
    assert "is also defined at <a.yaml>" in found.diagnostics[1].message
    assert found.invalidated == 1  # only the first copy was valid: the invalid one has nothing more to move


def test_an_unreadable_input_is_not_ok_even_without_findings() -> None:
    tally = Tally()
    tally.add(FileResult("gone.yaml", counts=Counts(files=1, unreadable=1)))
    assert not tally.problems and not tally.ok
