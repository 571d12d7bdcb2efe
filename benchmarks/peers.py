"""The Go validators platform teams run in CI, as peers in the benchmark: kubeconform and kubectl-validate.

Both are built at the versions pinned in ``tests/go_toolchain.py`` by its ``go_tool`` (the one way this project
builds a Go tool: ``go install`` from the module proxy into the user cache dir, once). Where Go is missing, or the
proxy refuses, each peer is absent with the reason, and the report says so.

- **kubeconform** (schema only, goroutines): ``-strict`` with the JSON Schema ``kubectl testbench schema`` prints,
  found through its ``-schema-location`` template in the layout CRD catalogs use (``GROUP/KIND_VERSION.json``).
- **kubectl-validate** (the API server's own decoding, OpenAPI and CEL validation): the CRD ``kubectl testbench
  crd`` prints, through ``--local-crds``.

:func:`caught` asks each tool, one file at a time, about the held corpora of invalid files (``tests/validate/
corpus``, whose first line names an error rule, and the hostile corpus's files that ``validate`` must refuse):
how many it flags (a non-zero exit), so a speed figure is never bought with blindness.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GROUP = "testbench.agentic-layer.ai"
SCHEMA_TEMPLATE = "{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json"
"""kubeconform's template for a CRD's schema (the layout of the public CRD catalogs): Group, lower-case kind,
version."""


@dataclass(frozen=True)
class GoPeer:
    """A built peer (``exe``) or why there is none (``reason``)."""

    name: str
    version: str
    exe: str | None
    reason: str = ""


def find() -> list[GoPeer]:
    """kubeconform and kubectl-validate, built once into the user cache dir (minutes the first time)."""
    from tests.go_toolchain import KUBECONFORM, KUBECTL_VALIDATE, go_tool

    out = []
    for module, version, binary in (KUBECONFORM, KUBECTL_VALIDATE):
        found = go_tool(module, version, binary)
        out.append(GoPeer(binary, version, str(found), "") if isinstance(found, Path)
                   else GoPeer(binary, version, None, found))
    return out


@dataclass(frozen=True)
class Inputs:
    """What the peers read: kubeconform's schema directory and kubectl-validate's CRD directory."""

    schemas: Path
    crds: Path


def prepare(work: Path, python: str = sys.executable) -> Inputs:
    """Our JSON Schema and CRD, as the commands print them, where each peer looks for them."""
    schemas, crds = work / "kubeconform-schemas", work / "local-crds"
    (schemas / GROUP).mkdir(parents=True, exist_ok=True)
    crds.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for args in (["schema", "--output-file", str(schemas / GROUP / "experiment_v1alpha1.json")],
                 ["crd", "--output-file", str(crds / "experiment.yaml")]):
        subprocess.run([python, "-m", "kubectl_testbench", *args], env=env, check=True, cwd=ROOT)
    return Inputs(schemas, crds)


def command(peer: GoPeer, inputs: Inputs, targets: list[str]) -> list[str]:
    """``peer`` validating ``targets`` (files or directories) against our schema or CRD."""
    assert peer.exe is not None
    if peer.name == "kubeconform":
        return [peer.exe, "-strict", "-summary", "-schema-location", f"{inputs.schemas}/{SCHEMA_TEMPLATE}", *targets]
    return [peer.exe, *targets, "--local-crds", str(inputs.crds)]


def invalid_files() -> dict[str, list[Path]]:
    """The held corpora of invalid files: the negative corpus's cases whose rule is an error (a warning passes
    validation, as it should), and the hostile corpus's files that ``validate`` must refuse (exit 1 or 2)."""
    import yaml

    from kubectl_testbench.rules import RULES
    from kubectl_testbench.rules.rule import Severity

    negative = []
    for path in sorted((ROOT / "tests" / "validate" / "corpus").glob("*.yaml")):
        match = re.match(r"# expect: (\S+)", path.read_text())
        if match and RULES[match.group(1)].severity is Severity.ERROR:
            negative.append(path)
    hostile_dir = ROOT / "tests" / "hostile"
    cases = yaml.safe_load((hostile_dir / "manifest.yaml").read_text())
    hostile = sorted({hostile_dir / "corpus" / c["file"] for c in cases
                      if "file" in c and "command" not in c and not c.get("args") and c["exit"] != 0})
    return {"negative corpus": negative, "hostile corpus": hostile}


TIMEOUT_S = 10
"""A tool that has not answered about one file by then has not flagged it (our hostile corpus allows us 5 s)."""


def verdict(cmd: list[str]) -> str:
    """``caught`` (any non-zero exit: a finding, an error reading the file), ``missed``, or ``timed out``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return "timed out"
    return "caught" if proc.returncode != 0 else "missed"


def caught(tools: dict[str, list[str]], corpora: dict[str, list[Path]]) -> dict[str, dict[str, int]]:
    """For each tool (name: command without the file), how many files of each corpus it flags, and (key
    ``timed out``) how many it did not answer about in time."""
    jobs = [(tool, corpus, [*cmd, str(path)]) for tool, cmd in tools.items() for corpus, paths in corpora.items()
            for path in paths]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        verdicts = list(pool.map(lambda job: verdict(job[2]), jobs))
    out: dict[str, dict[str, int]] = {tool: {**dict.fromkeys(corpora, 0), "timed out": 0} for tool in tools}
    for (tool, corpus, _), said in zip(jobs, verdicts, strict=True):
        out[tool][corpus] += said == "caught"
        out[tool]["timed out"] += said == "timed out"
    return out


def total_caught(per_corpus: dict[str, int]) -> int:
    return sum(n for corpus, n in per_corpus.items() if corpus != "timed out")


def caught_table(counts: dict[str, dict[str, int]], corpora: dict[str, list[Path]]) -> str:
    """The "caught" table: per tool, invalid files flagged of each held corpus, and in all."""
    total = sum(len(p) for p in corpora.values())
    lines = ["| tool | " + " | ".join(f"{name} ({len(paths)})" for name, paths in corpora.items())
             + f" | caught (of {total}) | timed out ({TIMEOUT_S} s) |",
             "|---|" + "---:|" * (len(corpora) + 2)]
    for tool, per in counts.items():
        lines.append(f"| {tool} | " + " | ".join(str(per[c]) for c in corpora)
                     + f" | {total_caught(per)} | {per['timed out']} |")
    return "\n".join(lines) + "\n"
