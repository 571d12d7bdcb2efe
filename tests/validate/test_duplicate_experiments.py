"""The same Experiment (namespace/name) in several files: validate, render and Argo CD's generate report every
copy in one run, the first one too, each with the other location (README: "every copy reported with both
locations"); a copy render wrote next to its Experiment is not a clash."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_testbench.integrations.argocd_app import generate
from kubectl_testbench.render.settings import Flags
from tests.conftest import run_cli
from tests.validate.helpers import VALID

CLASH = ("error[semantic/duplicate-experiment] metadata.name: Experiment agents/weather-eval is also defined at "
         "{first}:4:9: applied together, one silently replaces the other")
FIRST = ("error[semantic/duplicate-experiment] metadata.name: Experiment agents/weather-eval is also defined at "
         "{second}:4:9{more}: applied together, one silently replaces the other")


def copies(tmp_path: Path, n: int, text: str = VALID) -> list[Path]:
    files = []
    for i in range(n):
        path = tmp_path / f"exp-{i:02d}.yaml"
        path.write_text(text)
        files.append(path)
    return files


def test_validate_reports_all_50_copies_of_50_in_one_run(tmp_path: Path) -> None:
    files = copies(tmp_path, 50)
    result = run_cli("validate", str(tmp_path))
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if "duplicate-experiment" in line]
    assert lines == [f"{files[0]}:4:9: " + FIRST.format(second=files[1], more=" and 48 more places"),
                     *(f"{f}:4:9: " + CLASH.format(first=files[0]) for f in files[1:])]
    assert "hint: give each Experiment its own metadata.name (or namespace), or delete the copy" in result.output
    assert result.output.endswith("50 files, 50 experiments: 0 valid, 50 invalid, 0 warnings\n")


def test_two_copies_are_both_reported_each_naming_the_other(tmp_path: Path) -> None:
    """Issue 33 item 7: the README promises both places; the first copy was never reported."""
    first, second = copies(tmp_path, 2)
    result = run_cli("validate", str(first), str(second))
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if "error[" in line] == [
        f"{first}:4:9: " + FIRST.format(second=second, more=""), f"{second}:4:9: " + CLASH.format(first=first)]
    assert result.output.endswith("2 files, 2 experiments: 0 valid, 2 invalid, 0 warnings\n")


def test_validate_json_carries_the_clash_and_the_counts(tmp_path: Path) -> None:
    import json

    files = copies(tmp_path, 2)
    result = run_cli("validate", "-o", "json", str(tmp_path))
    report = json.loads(result.stdout)
    first, found = report["diagnostics"]
    assert (found["rule"], found["file"], found["line"], found["column"], found["path"], found["object"]) == (
        "semantic/duplicate-experiment", str(files[1]), 4, 9, "metadata.name", "Experiment agents/weather-eval")
    assert f"{files[0]}:4:9" in found["message"]
    assert (first["file"], first["line"]) == (str(files[0]), 4) and f"{files[1]}:4:9" in first["message"]
    assert report["summary"]["errors"] == 2 and report["summary"]["invalid"] == 2


def test_different_namespaces_or_names_do_not_clash(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(VALID)
    (tmp_path / "b.yaml").write_text(VALID.replace("namespace: agents", "namespace: other"))
    (tmp_path / "c.yaml").write_text(VALID.replace("name: weather-eval", "name: other"))
    assert run_cli("validate", str(tmp_path)).exit_code == 0


def test_two_documents_of_one_file_clash_too(tmp_path: Path) -> None:
    path = tmp_path / "both.yaml"
    path.write_text(VALID + "---\n" + VALID)
    result = run_cli("validate", str(path))
    assert result.exit_code == 1
    second = len(VALID.splitlines()) + 2 + 3  # after the first document and '---', name is on line 4 of its own
    assert f"{path}:{second}:9: " + CLASH.format(first=path) in result.output


def test_render_reports_every_clash_at_once_instead_of_one_object_at_a_time(tmp_path: Path) -> None:
    files = copies(tmp_path, 5)
    other = VALID.replace("name: weather-eval", "name: news")
    (tmp_path / "news-1.yaml").write_text(other)
    (tmp_path / "news-2.yaml").write_text(other)
    result = run_cli("render", str(tmp_path))
    assert result.exit_code == 1 and result.stdout == ""
    clashes = [line for line in result.output.splitlines() if "error[" in line]
    news = "error[semantic/duplicate-experiment] metadata.name: Experiment agents/news is also defined at {}:4:9: " \
           "applied together, one silently replaces the other"
    assert clashes == [
        f"{files[0]}:4:9: " + FIRST.format(second=files[1], more=" and 3 more places"),
        *(f"{f}:4:9: " + CLASH.format(first=files[0]) for f in files[1:]),
        f"{tmp_path / 'news-1.yaml'}:4:9: " + news.format(tmp_path / "news-2.yaml"),
        f"{tmp_path / 'news-2.yaml'}:4:9: " + news.format(tmp_path / "news-1.yaml")]
    assert "render/duplicate" not in result.output, "the objects of a copied Experiment are not reported one by one"


def test_render_puts_experiments_without_a_namespace_into_the_n_namespace_before_comparing(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(VALID)
    (tmp_path / "b.yaml").write_text(VALID.replace("  namespace: agents\n", "", 1))
    assert run_cli("render", str(tmp_path), "-n", "other").exit_code == 0
    result = run_cli("render", str(tmp_path), "-n", "agents")
    assert result.exit_code == 1
    assert (f"{tmp_path / 'b.yaml'}:4:9: error[semantic/duplicate-experiment] metadata.name: Experiment "
            f"agents/weather-eval is also defined at {tmp_path / 'a.yaml'}:4:9") in result.output


def test_different_experiments_whose_generated_names_collide_are_all_reported(tmp_path: Path) -> None:
    def exp(name: str, namespace: str) -> str:
        return VALID.replace("name: weather-eval", f"name: {name}").replace("namespace: agents",
                                                                            f"namespace: {namespace}")

    (tmp_path / "1.yaml").write_text(exp("a-b", "c"))
    (tmp_path / "2.yaml").write_text(exp("a", "b-c"))
    (tmp_path / "3.yaml").write_text(exp("x-y", "z"))
    (tmp_path / "4.yaml").write_text(exp("x", "y-z"))
    result = run_cli("render", str(tmp_path))
    assert result.exit_code == 1
    assert f"{tmp_path / '2.yaml'}:1:1: error[render/duplicate] configmap testkube a-b-c-experiment is also" in \
        result.output
    assert f"{tmp_path / '4.yaml'}:1:1: error[render/duplicate] configmap testkube x-y-z-experiment is also" in \
        result.output, "the second collision is found in the same run"


def test_a_copy_render_wrote_next_to_its_experiment_is_no_clash(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "exp.yaml").write_text(VALID)
    out = tmp_path / "rendered"
    assert run_cli("render", str(src), "--output-dir", str(out), "--include-experiment").exit_code == 0
    assert (out / "experiment_agents_weather-eval.yaml").exists()
    assert run_cli("validate", str(src), str(out)).exit_code == 0
    assert run_cli("apply", str(out), "--dry-run=client", "--include-experiment").exit_code == 0


def test_argocd_generate_reports_the_copy_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copies(tmp_path, 3)
    monkeypatch.chdir(tmp_path)
    app = generate(["."], Flags(namespace="team-a"))
    assert [(d.rule, d.file, d.line) for d in app.problems] == [
        ("semantic/duplicate-experiment", "./exp-00.yaml", 4), ("semantic/duplicate-experiment", "./exp-01.yaml", 4),
        ("semantic/duplicate-experiment", "./exp-02.yaml", 4)]
    assert "./exp-01.yaml:4:9 and 1 more place:" in app.problems[0].message
    assert "./exp-00.yaml:4:9" in app.problems[1].message
