"""The JUnit reports of ``results`` and ``compare`` (and validate's on hostile input), pinned by digest.

``tests/test_output_golden.py`` pins validate's JUnit over the corpus; these pin the other JUnit writers,
on the fixtures and on values carrying forged log commands, control characters and quotes, so moving the
three writers onto one cannot change a byte. A deliberate change: run with ``UPDATE_JUNIT_DIGESTS=1``, read the
printed digests into ``DIGESTS``, and review the outputs themselves.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli
from tests.integrations.test_log_injection import EVIL, FORGED, experiment

FIXTURES = "tests/results/fixtures"

DIGESTS: dict[str, str] = {
    "compare baseline candidate": "1 788cf91987ff072e61e390a48c6d55bb471160f8bfc14d3ff76bb9583a286357",
    "compare baseline candidate --max-regression":
        "1 f8dd35726b1a9e11e2f60993ea4a663528f113dacf4fc34e92bd69f821308dc3",
    "compare hostile": "0 6a122f3e8c656957305395faded4c5b7972353937e046f67742f607e67e71584",
    "compare hostile reversed": "1 e1960a442f8f026f99cda5aba9eef53e603ee8f28339fe53c98cdda8b4c9922f",
    "results baseline.json": "1 c087200d994e35f4678bb4c3ff5b77bbbda896075e73c3b1ab3e30a61850b4cb",
    "results candidate.json": "1 fe8aad7d5444a18e48f5d8ee57d987e7a89566b5cfef790495a9be1c830e1ba9",
    "results empty.json": "1 09afe794034456efb2a5e237181e31bc2dddfa419b06ca3faba62208be3dc8f7",
    "results errored.json": "1 80c144b724d816de6c8f13cfd3d651cc135165be5d6aa94840a3672f48c90afa",
    "results failing passing errored": "1 58ca2699ce4f12f5bb10348ec76d509bd2189a2bef65ad565d486ff94c5426af",
    "results failing.json": "1 e0e85e82392b3f9d77e711d453d2bbde93fab0122ddd91b051f91d977ad1ac42",
    "results hostile": "1 4ea3b15064db1d7ab001daa177db89e41b53bcb0af15c39521abc796eff5dba2",
    "results missing_thresholds.json": "1 a52e51663dd7d363189f92b73ee2fcbae344ae5b81ab6e0f85dc77eb0d1df2fa",
    "results multi_turn.json": "1 e139f7fcde2abec7476a8d32a80ab58f29bcf6bf6d81100d6a52358e10868380",
    "results nan_score.json": "1 edb26eb68ece4332dbc567c5f1f9b45fc807d28e77656aee7c120d9c74e369a7",
    "results no_default_threshold.json": "1 3d3233ddf38386a1d3e3c5f1f74c3ef0072bc9b528da2356cb4f643006c1c267",
    "results other_dataset.json": "0 d81fbb81d53771e3993395ddb3c584ab7c36482bb6b63d68bbf051d8f53d9ad4",
    "results passing.json": "0 059c5ca25ec62be24a7a1998c5a7dea398aa02bbd3f46da8d9404a0249c01998",
    "validate hostile": "1 658bd1c7a4a6e5ecc369cc1e6d853978b4c3de7087af4cfdc124832bc08a1142",
    "validate hostile --strict": "1 658bd1c7a4a6e5ecc369cc1e6d853978b4c3de7087af4cfdc124832bc08a1142",
}


def _results_file(directory: Path) -> str:
    """A results file whose every user-controlled string carries forged commands, controls and quotes."""
    quoted = " \"double\" 'single' <tag> & amp"
    doc = {"default_threshold": 0.9, "scenarios": [{"name": "scenario" + EVIL + quoted, "steps": [{
        "input": "input" + EVIL + quoted, "metrics": [{"metric_name": "M" + FORGED}],
        "evaluations": [{"metric": {"metric_name": "M" + FORGED + quoted},
                         "result": {"score": 0.1, "details": {"why": "details" + EVIL}}}]}, {
        "input": "second" + FORGED, "metrics": [{"metric_name": "N"}],
        "evaluations": [{"metric": {"metric_name": "N"}, "result": {"error": "boom" + EVIL + quoted}}]}]}]}
    path = directory / "evaluated_experiment.json"
    path.write_text(json.dumps(doc))
    return path.name


def _cases(tmp: Path) -> dict[str, tuple[str, ...]]:
    fixtures = sorted(p.name for p in (ROOT / FIXTURES).glob("*.json") if not p.name.startswith("malformed"))
    cases = {f"results {name}": ("results", f"{FIXTURES}/{name}", "-o", "junit") for name in fixtures}
    cases["results failing passing errored"] = ("results", f"{FIXTURES}/failing.json", f"{FIXTURES}/passing.json",
                                               f"{FIXTURES}/errored.json", "-o", "junit")
    cases["compare baseline candidate"] = ("compare", f"{FIXTURES}/baseline.json", f"{FIXTURES}/candidate.json",
                                           "-o", "junit")
    cases["compare baseline candidate --max-regression"] = (
        "compare", f"{FIXTURES}/baseline.json", f"{FIXTURES}/candidate.json", "-o", "junit",
        "--max-regression", "0.01")
    hostile = _results_file(tmp)
    candidate = tmp / "candidate.json"
    candidate.write_text((tmp / hostile).read_text().replace('"score": 0.1', '"score": 0.95'))
    cases["results hostile"] = ("results", hostile, "-o", "junit")
    cases["compare hostile"] = ("compare", hostile, "candidate.json", "-o", "junit", "--max-regression", "0.1")
    cases["compare hostile reversed"] = ("compare", "candidate.json", hostile, "-o", "junit")
    exps = tmp / "exps"
    exps.mkdir()
    (exps / "evil.yaml").write_text(experiment())
    (exps / "::error::named ##[x] \"q\".yaml").write_text(experiment())
    (exps / "broken\x07.yaml").write_text("kind: [\n" + FORGED)
    cases["validate hostile"] = ("validate", "-o", "junit", "exps")
    cases["validate hostile --strict"] = ("validate", "-o", "junit", "--strict", "exps")
    return cases


def test_junit_outputs_are_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = _cases(tmp_path)
    got: dict[str, str] = {}
    for case, args in cases.items():
        monkeypatch.chdir(tmp_path if case.endswith(("hostile", "reversed", "--strict")) else ROOT)
        result = run_cli(*args)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        assert result.stdout.startswith('<?xml version="1.0"'), (case, result.stdout[:500], result.stderr[:500])
        got[case] = f"{result.exit_code} {hashlib.sha256(result.stdout_bytes).hexdigest()}"
    if os.environ.get("UPDATE_JUNIT_DIGESTS"):
        pytest.fail("DIGESTS = " + json.dumps(got, indent=4, sort_keys=True))
    assert got == DIGESTS
