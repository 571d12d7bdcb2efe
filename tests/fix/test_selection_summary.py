"""What ``fix --select/--ignore`` accepts, and the lines ``fix`` writes to stderr: exact, as users read them."""

from __future__ import annotations

import pytest

from kubectl_testbench.fix.apply import FileFix
from kubectl_testbench.fix.summary import changed_line, remaining, totals, unified_diff, why_left
from kubectl_testbench.rules.selection import Selection, SelectorError
from kubectl_testbench.validate.diagnostics import Diagnostic, Edit, Fix, FixKind, Severity
from kubectl_testbench.validate.engine import FileResult


@pytest.mark.parametrize(("select", "ignore", "chosen"), [
    ((), (), {"schema/enum", "schema/type", "yaml/syntax"}),
    (("schema/enum",), (), {"schema/enum"}),
    (("schema",), (), {"schema/enum", "schema/type"}),
    (("schema/",), (), {"schema/enum", "schema/type"}),
    (("ALL",), ("schema/type",), {"schema/enum", "yaml/syntax"}),
    ((), ("ALL",), set()),
    (("schema/enum, yaml",), (), {"schema/enum", "yaml/syntax"}),
    (("schema/enum,,", " yaml "), (), {"schema/enum", "yaml/syntax"}),
    (("schema/enum,,yaml",), (), {"schema/enum", "yaml/syntax"}),
    (("schema",), ("schema/enum",), {"schema/type"}),
    ((), ("yaml/",), {"schema/enum", "schema/type"}),
])
def test_selectors_choose_rules_by_id_group_or_all(select: tuple[str, ...], ignore: tuple[str, ...],
                                                   chosen: set[str]) -> None:
    selection = Selection.parse(select, ignore)
    assert {r for r in ("schema/enum", "schema/type", "yaml/syntax") if selection(r)} == chosen


def test_parsed_selectors_are_kept_trimmed_without_empty_entries() -> None:
    assert Selection.parse(["schema/enum, yaml,"], [" ALL"]) == Selection(("schema/enum", "yaml"), ("ALL",))


@pytest.mark.parametrize(("selector", "message"), [
    ("schema/enums", '"schema/enums" is not a rule id or group (did you mean "schema/enum"?): kubectl testbench '
                     "validate --list-rules lists them"),
    ("zzzz", '"zzzz" is not a rule id or group: kubectl testbench validate --list-rules lists them'),
    ("sch", '"sch" is not a rule id or group: kubectl testbench validate --list-rules lists them'),
    ("schema/enum/", '"schema/enum/" is not a rule id or group (did you mean "schema/enum"?): kubectl testbench '
                     "validate --list-rules lists them"),
])
def test_a_selector_that_names_nothing_is_an_error(selector: str, message: str) -> None:
    for select, ignore in (([selector], []), ([], [selector])):
        with pytest.raises(SelectorError) as err:
            Selection.parse(select, ignore)
        assert str(err.value) == message


def _diag(rule: str, *, edits: bool = False, blocked: str = "", severity: Severity = Severity.ERROR) -> Diagnostic:
    fix = None
    if edits or blocked:
        fix = Fix(FixKind.REPLACE, ("spec",), "x", edits=(Edit(0, 1, "x"),) if edits else (), blocked=blocked)
    return Diagnostic(rule, severity, "broken", "a.yaml", 3, 5, "spec.x", fix=fix)


def _outcome(rules: list[str], migrated: int = 0, path: str = "a.yaml", changed: bool = True) -> FileFix:
    return FileFix(path, FileResult(path), [_diag(r) for r in rules], migrated=migrated,
                   data=b"x" if changed else None)


@pytest.mark.parametrize(("rules", "migrated", "applied", "line"), [
    (["schema/enum"], 0, True, "fixed a.yaml: 1 fix (schema/enum)"),
    (["schema/type", "schema/enum", "schema/type"], 0, False,
     "would fix a.yaml: 3 fixes (schema/enum, schema/type ×2)"),
    ([], 1, True, "fixed a.yaml: 1 field migrated"),
    (["yaml/syntax"], 2, True, "fixed a.yaml: 1 fix (yaml/syntax), 2 fields migrated"),
    ([], 0, True, "fixed a.yaml: rewritten"),
])
def test_the_line_per_changed_file(rules: list[str], migrated: int, applied: bool, line: str) -> None:
    assert changed_line(_outcome(rules, migrated), applied) == line


def test_stdin_and_hostile_file_names_are_shown_safely() -> None:
    assert changed_line(_outcome(["schema/enum"], path="-"), True) == "fixed stdin: 1 fix (schema/enum)"
    assert changed_line(_outcome(["schema/enum"], path="::error::x.yaml"), True) == (
        "fixed ./::error::x.yaml: 1 fix (schema/enum)")


@pytest.mark.parametrize(("outcomes", "applied", "line"), [
    ([], True, "nothing to fix"),
    ([_outcome(["schema/enum"], changed=False)], True, "nothing to fix"),
    ([_outcome(["schema/enum"])], True, "1 file changed: 1 fix applied: schema/enum 1"),
    ([_outcome(["schema/enum", "schema/type"]), _outcome(["schema/enum"], 3)], False,
     "2 files to change: 3 fixes available: schema/enum 2, schema/type 1; 3 fields to migrate"),
    ([_outcome([], 1)], True, "1 file changed: 1 field migrated"),
    ([_outcome(["yaml/syntax"], 2), _outcome(["schema/enum"], changed=False)], True,
     "1 file changed: 1 fix applied: yaml/syntax 1; 2 fields migrated"),
])
def test_the_totals_line(outcomes: list[FileFix], applied: bool, line: str) -> None:
    assert totals(outcomes, applied) == line


def test_why_a_finding_was_left() -> None:
    everything = Selection()
    assert why_left(_diag("schema/enum", edits=True), Selection.parse(ignore=["schema"])) == (
        "its fix is not selected (--select/--ignore)")
    assert why_left(_diag("schema/enum", edits=True), everything) == "its fix was not applied (see the message above)"
    assert why_left(_diag("schema/enum", blocked="an anchor\nis shared"), everything) == (
        "no safe fix here: an anchor\\nis shared")
    assert why_left(_diag("yaml/document-separator"), everything) == (
        "no safe fix in this case (yaml/document-separator fixes: moves the content after '---' to the next line.)")
    assert why_left(_diag("semantic/expression-text", severity=Severity.INFO), everything) == "information only"
    assert why_left(_diag("semantic/cron"), everything) == (
        "no safe fix for this rule: it needs a decision only you can make")
    assert why_left(_diag("no/such-rule"), everything) == (
        "no safe fix for this rule: it needs a decision only you can make")


def test_remaining_lists_every_finding_with_its_reason() -> None:
    result = FileResult("a.yaml", diagnostics=[_diag("semantic/cron"),
                                               _diag("semantic/expression-text", severity=Severity.INFO)])
    assert remaining(FileFix("a.yaml", result), Selection()) == (
        "a.yaml:3:5: error[semantic/cron] spec.x: broken\n"
        "  not fixed: no safe fix for this rule: it needs a decision only you can make\n"
        "a.yaml:3:5: info[semantic/expression-text] spec.x: broken\n  not fixed: information only\n")


def test_the_diff_is_git_style_and_safe_for_ci_logs() -> None:
    outcome = FileFix("/abs/a.yaml", FileResult("/abs/a.yaml"), before="::error::x\na: 1\r\n", after="::error::x\na: 2")
    assert unified_diff(outcome) == (
        "--- a/abs/a.yaml\n+++ b/abs/a.yaml\n@@ -1,2 +1,2 @@\n \\x3a:error::x\n-a: 1\r\n+a: 2\n"
        "\\ No newline at end of file\n"), "a context line is no workflow command; CRLF kept; last line marked"
    stdin = FileFix("-", FileResult("-"), before="x\n", after="y\n")
    assert unified_diff(stdin) == "--- a/stdin\n+++ b/stdin\n@@ -1 +1 @@\n-x\n+y\n"
    assert unified_diff(FileFix("a", FileResult("a"))) == ""


def test_the_diff_keeps_trailing_spaces_and_names_starting_with_x() -> None:
    outcome = FileFix("/X/aX.yaml", FileResult("x"), before="a: 1  \nbX\n", after="a: 2  \nbX\n")
    assert unified_diff(outcome) == "--- a/X/aX.yaml\n+++ b/X/aX.yaml\n@@ -1,2 +1,2 @@\n-a: 1  \n+a: 2  \n bX\n"
