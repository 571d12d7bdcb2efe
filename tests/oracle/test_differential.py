"""Differential test: our validator against Kubernetes' own code (the Go oracle, tests/oracle/oracle.go).

Every file of our corpora, every defect case of issue 16 and at least 20,000 generated and mutated
Experiments (seeded, deterministic: one Hypothesis strategy with a generator per adversarial category) go
through both. Verdict and field paths must agree, except for the allow-list (allowlist.yaml). The oracle is
built from Debian's Go packages; without them the module is skipped, naming what to install.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.oracle.compare import ALLOWLIST, compare
from tests.oracle.defects import CASES, Case
from tests.oracle.differential import ROOT, Tally, check, corpus_files
from tests.oracle.generators import CATEGORIES, batches
from tests.oracle.harness import Oracle, missing

BATCH = 50
EXAMPLES = 400
MINIMUM = 20_000
TALLY = Tally()



def test_the_allow_list_is_short_and_gives_a_reason_for_every_entry() -> None:
    entries = ALLOWLIST["rules"] + ALLOWLIST["oracle_only"]
    assert len(entries) <= 12
    assert all(len(entry["reason"]) > 40 for entry in entries)
    assert not any(entry["rule"] in ("schema/*", "yaml/*", "metadata/*") for entry in ALLOWLIST["rules"])


def test_every_corpus_file_agrees_with_the_oracle(oracle: Oracle) -> None:
    files = corpus_files()
    assert len(files) >= 120
    tally = Tally()
    check(oracle, [("corpus", str(p.relative_to(ROOT)), p.read_bytes()) for p in files], tally)
    TALLY.merge(tally)
    assert not tally.disagreements, tally.report()


@pytest.mark.parametrize("case", CASES, ids=[f"defect{c.defect}-{c.name}" for c in CASES])
def test_defect_case_agrees_with_the_oracle(oracle: Oracle, case: Case) -> None:
    data = case.text.encode()
    [docs] = oracle.ask([data])
    result = compare(case.name, data, docs)
    assert result.oracle_invalid is case.oracle_invalid, f"the oracle changed its mind:\n{result.explain(data)}"
    assert result.agrees, result.explain(data)
    TALLY.add(f"defect{case.defect}", result, data)


def test_every_defect_has_a_case() -> None:
    assert {c.defect for c in CASES} == set(range(1, 11))


@settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(batch=batches(size=BATCH))
def test_generated_documents_agree_with_the_oracle(oracle: Oracle, batch: list[tuple[str, bytes]]) -> None:
    tally = Tally()
    check(oracle, [(category, f"generated-{category}-{i}.yaml", data) for i, (category, data) in enumerate(batch)],
          tally)
    TALLY.merge(tally)
    assert not tally.disagreements, tally.report()


def test_agreement_figure(capsys: pytest.CaptureFixture[str]) -> None:
    """Runs last in this module: the run compared enough documents from every category, and all agreed."""
    if TALLY.documents == 0:
        pytest.skip(f"the oracle did not run: {missing() or 'no test of this module sent it a document (deselected)'}")
    generated = sum(n for c, n in TALLY.by_category.items() if c in CATEGORIES)
    assert generated >= MINIMUM, f"only {generated} generated documents were compared"
    assert set(CATEGORIES) <= set(TALLY.by_category)
    assert TALLY.agreed == TALLY.documents, TALLY.report()
    with capsys.disabled():
        print(f"\noracle agreement: {TALLY.figure}")
