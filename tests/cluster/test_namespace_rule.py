"""One namespace rule, kubectl's: metadata.namespace, then -n, then (cluster commands only) the kubeconfig
context's namespace. Whenever the file does not say, a notice on stderr names the namespace, where it came from
and the Experiments it applies to, so render and apply never differ silently (against the local API stand-in)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cluster.conftest import FIXTURES, cli
from tests.cluster.fakeapi import FakeApiServer
from tests.validate.helpers import VALID

pytestmark = pytest.mark.fake_api(
    "which namespace each request names, read from the requests the stand-in records")

WEATHER = FIXTURES / "weather.yaml"
NEWS = FIXTURES / "news.yaml"


def test_render_without_n_says_default_and_that_apply_would_differ() -> None:
    result = cli("render", str(WEATHER))
    assert result.exit_code == 0
    assert "name: weather-default-workflow" in result.stdout
    assert result.stderr.splitlines()[-1] == (
        'notice: 1 Experiment without metadata.namespace goes to namespace "default" (the default, as no -n was '
        "given; apply, diff and prune use the kubeconfig context's namespace instead): " + f"{WEATHER}:2")


def test_render_with_n_names_the_flag_and_every_experiment(tmp_path: Path) -> None:
    for i in range(5):
        shutil.copy(NEWS, tmp_path / f"{i}.yaml")
        (tmp_path / f"{i}.yaml").write_text(NEWS.read_text().replace("name: news", f"name: news-{i}", 1))
    result = cli("render", str(tmp_path), "-n", "team-a")
    assert result.exit_code == 0
    assert result.stderr.splitlines()[-1] == (
        'notice: 5 Experiments without metadata.namespace go to namespace "team-a" (from -n): '
        f"{tmp_path / '0.yaml'}:1, {tmp_path / '1.yaml'}:1, {tmp_path / '2.yaml'}:1 and 2 more")


def test_no_notice_when_every_file_names_its_namespace(tmp_path: Path) -> None:
    exp = tmp_path / "exp.yaml"
    exp.write_text(VALID)
    result = cli("render", str(exp), "-n", "ignored")
    assert result.exit_code == 0 and "notice:" not in result.stderr
    assert "experiment-namespace: agents" in result.stdout, "metadata.namespace wins over -n"


def test_apply_uses_the_context_namespace_and_says_so(api: FakeApiServer, kubeconfig: Path) -> None:
    result = cli("apply", str(WEATHER), "--dry-run=client")
    assert result.exit_code == 0, result.stderr
    assert "name: weather-team-a-workflow" in result.stdout
    assert ('notice: 1 Experiment without metadata.namespace goes to namespace "team-a" (from the kubeconfig '
            f'context "stand-in"): {WEATHER}:2') in result.stderr


def test_n_wins_over_the_context_and_render_with_the_same_n_names_the_same_objects(api: FakeApiServer,
                                                                                    kubeconfig: Path) -> None:
    applied = cli("apply", str(WEATHER), "--dry-run=client", "-n", "team-b")
    rendered = cli("render", str(WEATHER), "-n", "team-b")
    assert applied.exit_code == rendered.exit_code == 0
    assert applied.stdout == rendered.stdout
    assert 'goes to namespace "team-b" (from -n)' in applied.stderr


def test_a_context_without_a_namespace_falls_back_to_default_and_says_why(api: FakeApiServer, isolated: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", str(api.kubeconfig(isolated / "kubeconfig", namespace=None)))
    result = cli("diff", str(WEATHER), str(NEWS))
    assert result.stderr.splitlines()[0] == (
        'notice: 2 Experiments without metadata.namespace go to namespace "default" (the default: no -n, and the '
        f'kubeconfig context "stand-in" sets no namespace): {WEATHER}:2, {NEWS}:1')
    assert "weather-default-workflow" in result.stdout
