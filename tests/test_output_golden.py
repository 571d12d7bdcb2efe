"""Every user-visible output, pinned by digest, so a refactor that claims "behaviour unchanged" is checked.

Issue 30 moves the pipeline, the rules and the generators between packages; what users and the systems
downstream (kubectl, Argo CD, kustomize, GitHub) read must not move with them. Each case runs one command
in-process on files of the repository, and ``tests/golden/outputs.json`` holds its exit code and the
sha256 of its stdout and stderr. A change of output is either a regression or a deliberate change: in the
second case run ``UPDATE_GOLDEN=1 python -m pytest tests/test_output_golden.py``, then review the diff of
the digest file and of the outputs themselves (the failure message shows the start of the new output).

Digests, not copies: the corpus alone renders to hundreds of kilobytes, and the outputs that matter for
review already have their readable goldens (``tests/render/golden``).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result

from tests.conftest import ROOT, run_cli

GOLDEN = Path(__file__).parent / "golden" / "outputs.json"
CORPORA = ("tests/validate/corpus", "tests/render/fixtures", "examples/experiments")
SHOWN = 1500


def _inputs() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for d in CORPORA for p in (ROOT / d).glob("*.yaml")
                  if p.name != "kustomization.yaml")


def _per_file() -> Iterator[tuple[str, tuple[str, ...]]]:
    for path in _inputs():
        yield f"render {path}", ("render", path, "--no-defaults")
        yield f"render --resolve {path}", ("render", path, "--no-defaults", "--resolve")
        for fmt in ("text", "json", "sarif", "github", "junit"):
            yield f"validate -o {fmt} {path}", ("validate", path, "-o", fmt)


def _whole() -> Iterator[tuple[str, tuple[str, ...]]]:
    yield "render examples/experiments", ("render", "examples/experiments")
    yield "render examples/experiments -o json", ("render", "examples/experiments", "-o", "json")
    yield "render examples/experiments --include-experiment --argocd-sync-waves", (
        "render", "examples/experiments", "--include-experiment", "--argocd-sync-waves",
        "--testkube-namespace", "qa", "--agent-port", "9000", "-n", "team")
    yield "validate examples", ("validate", "examples")
    for mode in ("operator", "gitops"):
        for fmt in ("yaml", "json"):
            yield f"install --mode {mode} -o {fmt}", ("install", "--mode", mode, "-o", fmt)
    yield "crd", ("crd",)
    yield "schema", ("schema",)


CASES = dict([*_per_file(), *_whole()])


def _located(output: bytes) -> bytes:
    """The output with the checkout's own place written as ``ROOT`` (SARIF names it in ``originalUriBaseIds``):
    the digests must be the same in every clone."""
    from urllib.parse import quote

    root = str(ROOT)
    return output.replace(quote(root).encode(), b"ROOT").replace(root.encode(), b"ROOT")


def _digest(result: Result) -> dict[str, object]:
    return {"exit": result.exit_code,
            "stdout": hashlib.sha256(_located(result.stdout_bytes)).hexdigest(),
            "stderr": hashlib.sha256(_located(result.stderr_bytes)).hexdigest()}


def _check(case: str, run: Callable[[], Result]) -> None:
    recorded = json.loads(GOLDEN.read_text())
    result = run()
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    got = _digest(result)
    if os.environ.get("UPDATE_GOLDEN") and recorded.get(case) != got:
        recorded[case] = got
        GOLDEN.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
        pytest.fail(f"{case}: digest rewritten (UPDATE_GOLDEN): review the change, then run again without it")
    assert case in recorded, f"{case}: no recorded digest; run with UPDATE_GOLDEN=1 and review"
    assert got == recorded[case], (
        f"{case}: output changed\n--- stdout ---\n{result.stdout[:SHOWN]}\n--- stderr ---\n{result.stderr[:SHOWN]}")


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Paths in messages are relative to the repository, so digests are the same in every clone."""
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("case", list(CASES))
def test_cli_output_is_unchanged(case: str) -> None:
    _check(case, lambda: run_cli(*CASES[case]))


def test_render_output_dir_is_unchanged(tmp_path: Path) -> None:
    def run() -> Result:
        result = run_cli("render", "examples/experiments", "--output-dir", str(tmp_path / "out"))
        listing = {str(p.relative_to(tmp_path)): hashlib.sha256(p.read_bytes()).hexdigest()
                   for p in sorted((tmp_path / "out").rglob("*")) if p.is_file()}
        result.stdout_bytes = json.dumps(listing, sort_keys=True).encode()
        result.stderr_bytes = result.stderr_bytes.replace(str(tmp_path).encode(), b"TMP")
        return result
    _check("render examples/experiments --output-dir", run)


def test_argocd_generate_is_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT / "examples" / "experiments")
    for name in [n for n in os.environ if n.startswith(("ARGOCD_", "PARAM_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("ARGOCD_APP_NAME", "testbench-experiments")
    monkeypatch.setenv("ARGOCD_APP_NAMESPACE", "team")
    monkeypatch.setenv("ARGOCD_ENV_TESTKUBE_NAMESPACE", "testkube")
    monkeypatch.setenv("PARAM_ARGOCD_SYNC_WAVES", "true")
    _check("argocd generate examples/experiments", lambda: run_cli("argocd", "generate"))


def test_krm_function_is_unchanged() -> None:
    items = "\n".join(f"- {json.dumps(doc)}" for doc in _experiment_items())
    resource_list = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n"
                     "  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: render}\n"
                     "  data: {testkube-namespace: qa, include-experiment: 'true'}\nitems:\n" + items + "\n")
    _check("krm examples/experiments", lambda: run_cli("krm", input=resource_list))


def _experiment_items() -> list[object]:
    import yaml

    return [doc for path in sorted((ROOT / "examples" / "experiments").glob("*.yaml"))
            if path.name != "kustomization.yaml" for doc in yaml.safe_load_all(path.read_text()) if doc]
