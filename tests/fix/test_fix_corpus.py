"""The round-trip corpus: examples, the negative and hostile corpora, and files written for ``fix`` (comments in
every position, flow and block style, anchors, several documents), each also with CRLF line breaks and with a
UTF-8 byte-order mark. For every file:

- without a fix to offer, ``fix`` writes nothing and the bytes stay identical;
- with fixes, the changed lines (a line diff) all lie inside the nodes the fixes name, located by a second,
  independent YAML reader;
- the fixed file validates without the fixed finding;
- fixing the fixed file changes nothing (idempotent), and CRLF / the byte-order mark survive.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from kubectl_testbench.load.decode import decode
from kubectl_testbench.load.sources import Source
from kubectl_testbench.pipeline.inputs import validate_source
from tests.conftest import EXAMPLES, ROOT
from tests.fix.helpers import CORPUS, allowed_lines, bom, crlf, fix_file

SOURCES = (sorted(EXAMPLES.glob("experiments/*.yaml")) + sorted((ROOT / "tests" / "validate" / "corpus").glob("*.yaml"))
           + sorted((ROOT / "tests" / "hostile" / "corpus").iterdir()) + sorted(CORPUS.iterdir()))
VARIANTS = [(p, "as-is") for p in SOURCES] + [(p, v) for p in sorted(CORPUS.iterdir()) + sorted(
    EXAMPLES.glob("experiments/*.yaml")) for v in ("crlf", "bom")]


def _materialise(source: Path, variant: str, tmp_path: Path) -> Path:
    data = source.read_bytes()
    data = crlf(data) if variant == "crlf" else bom(data) if variant == "bom" else data
    target = tmp_path / source.name
    target.write_bytes(data)
    return target


def _offered(path: Path) -> int:
    return sum(1 for d in validate_source(Source(str(path))).diagnostics if d.fix is not None and d.fix.edits)


@pytest.mark.parametrize(("source", "variant"), VARIANTS, ids=[f"{p.parent.name}/{p.name}:{v}" for p, v in VARIANTS])
def test_fix_round_trip(source: Path, variant: str, tmp_path: Path) -> None:
    path = _materialise(source, variant, tmp_path)
    original = path.read_bytes()
    outcome = fix_file(path)
    if not _offered(path):
        assert outcome.data is None and not outcome.applied, "a file without a fix to offer must stay byte-identical"
        return
    assert outcome.data is not None and outcome.applied
    before, after = decode(original), decode(outcome.data)
    # the changed lines lie inside the fixed nodes
    allowed = allowed_lines(before, outcome)
    old_lines, new_lines = before.splitlines(keepends=True), after.splitlines(keepends=True)
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        touched = set(range(i1, i2)) if i2 > i1 else {i1 - 1, i1}
        assert touched & allowed if i2 == i1 else touched <= allowed, (
            f"{tag} of lines {i1 + 1}-{i2} is outside the fixed nodes (lines {sorted(n + 1 for n in allowed)})")
    # line breaks and byte-order mark are kept
    assert outcome.data.startswith(b"\xef\xbb\xbf") == original.startswith(b"\xef\xbb\xbf")
    if b"\r\n" in original:
        assert outcome.data.count(b"\n") == outcome.data.count(b"\r\n")
    # the fixed file validates without the fixed findings
    left = {(d.rule, d.path, d.object) for d in outcome.result.diagnostics}
    for d in outcome.applied:
        assert (d.rule, d.path, d.object) not in left, f"{d.rule} at {d.path} is still reported after its fix"
    # fix twice is fix once
    path.write_bytes(outcome.data)
    again = fix_file(path)
    assert again.data is None and not again.applied


def test_the_corpus_exercises_every_fix_kind_and_both_line_break_styles(tmp_path: Path) -> None:
    from kubectl_testbench.validate.diagnostics import FixKind

    kinds = set()
    rules = set()
    for source in SOURCES:
        outcome = fix_file(_materialise(source, "as-is", tmp_path))
        kinds |= {d.fix.kind for d in outcome.applied if d.fix}
        rules |= {d.rule for d in outcome.applied}
    assert kinds == set(FixKind)
    from kubectl_testbench.rules import RULES

    fixable = {rule.id for rule in RULES.values() if rule.fix}
    assert rules == fixable, f"rules with a fix that the corpus never fixes: {fixable - rules}"


def test_a_file_without_findings_in_every_comment_position_is_left_byte_identical(tmp_path: Path) -> None:
    for variant in ("as-is", "crlf", "bom"):
        path = _materialise(CORPUS / "comments-everywhere.yaml", variant, tmp_path)
        before = path.read_bytes()
        result = validate_source(Source(str(path)))
        assert result.diagnostics == [], variant
        assert fix_file(path).data is None
        assert path.read_bytes() == before


def test_the_diff_check_knows_a_fixed_node_from_its_neighbours(tmp_path: Path) -> None:
    """The assertion above can fail: the allowed lines of an enum fix are that one line, nothing around it."""
    path = _materialise(ROOT / "tests" / "validate" / "corpus" / "concurrency-policy-lowercase.yaml", "as-is", tmp_path)
    outcome = fix_file(path)
    assert [d.rule for d in outcome.applied] == ["schema/enum"]
    text = path.read_text()
    [line] = [i for i, content in enumerate(text.splitlines()) if "concurrencyPolicy: allow" in content]
    assert allowed_lines(text, outcome) == {line}
