"""``kubectl testbench diff`` against a real kube-apiserver (1.35), compared with ``kubectl diff --server-side`` on
the same objects with the same kubeconfig and field manager.

kubectl writes each object's live and merged form as YAML files named ``group.version.Kind.namespace.name`` into
two temporary directories and runs ``diff -u -N LIVE MERGED`` on them (or ``$KUBECTL_EXTERNAL_DIFF``). Our
output cannot be byte-equal to kubectl's own, for three reasons, each by design (docs/cluster.md, "diff"):

- the directories: kubectl's are ``/tmp/LIVE-<random>`` and ``/tmp/MERGED-<random>``, and GNU diff adds each
  file's modification time to the ``---``/``+++`` lines; ours are ``LIVE/`` and ``MERGED/`` without times, so
  the output is the same from run to run;
- what the server maintains: kubectl shows ``creationTimestamp``, ``generation``, ``uid`` and
  ``resourceVersion`` (a new object's uid and time are made up by the dry run, a changed object's generation
  goes up by one); we leave them out, with ``managedFields`` (kubectl leaves those out too) and ``status``;
- YAML style: kubectl prints with Go's yaml (``cron: 0 3 * * *``, long strings folded), we with our emitter
  (``cron: "0 3 * * *"``, every string on one line), the same emitter as ``render``.

So ``$KUBECTL_EXTERNAL_DIFF`` is set to a program that does to kubectl's two directories exactly those three
things (reads each YAML file, drops the server-maintained fields, writes it with our emitter into ``LIVE/`` and
``MERGED/``) and then runs what kubectl runs, GNU ``diff -u -N LIVE MERGED``. The rest must be equal byte for
byte: which objects differ, their order, every hunk and line, and the exit code. kubectl's own output (its
default diff program) is compared too, in what it can share with ours: the objects and their order, and the
exit code.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.controlplane.cluster import Cluster, Result, experiments

CANONICAL_DIFF = f"""#!{sys.executable}
# KUBECTL_EXTERNAL_DIFF for the tests: kubectl's two directories, each object without the fields the server
# maintains and printed with kubectl-testbench's YAML emitter, then kubectl's own diff -u -N on them.
import os, subprocess, sys, tempfile
import yaml
from kubectl_testbench.emit.yamlout import dump

SERVER = ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation", "selfLink")
work = tempfile.mkdtemp()
for source, side in zip(sys.argv[1:3], ("LIVE", "MERGED")):
    os.mkdir(os.path.join(work, side))
    for name in os.listdir(source):
        with open(os.path.join(source, name)) as f:
            obj = yaml.safe_load(f)
        if obj is not None:  # kubectl writes an empty file for an object that is not there (yet)
            obj.pop("status", None)
            for key in SERVER:
                obj.get("metadata", {{}}).pop(key, None)
        with open(os.path.join(work, side, name), "w") as f:
            f.write("" if obj is None else dump(obj))
proc = subprocess.run(["diff", "-u", "-N", "LIVE", "MERGED"], cwd=work, capture_output=True, text=True,
                      env={{**os.environ, "LC_ALL": "C"}})
for line in proc.stdout.splitlines(keepends=True):
    if line.startswith(("--- LIVE/", "+++ MERGED/")):
        line = line.split("\\t", 1)[0] + "\\n"  # the files' times
    sys.stdout.write(line)
sys.stderr.write(proc.stderr)
sys.exit(proc.returncode)
"""
HEADER = re.compile(r"^diff -u -N (\S+)/(\S+) (\S+)/(\S+)$", re.M)


@pytest.fixture(scope="module")
def testkube(testkube_cluster: Cluster) -> str:
    return testkube_cluster.namespace("tk-diff")


@pytest.fixture(scope="module")
def canonical_diff(tmp_path_factory: pytest.TempPathFactory) -> Path:
    program = tmp_path_factory.mktemp("kubectl-diff") / "canonical-diff"
    program.write_text(CANONICAL_DIFF)
    program.chmod(0o755)
    return program


class Both:
    """Our diff and kubectl's on the same Experiments (kubectl gets what ``render`` makes of them)."""

    def __init__(self, cluster: Cluster, src: Path, namespace: str, testkube: str, program: Path) -> None:
        self.cluster, self.src, self.program = cluster, src, program
        self.flags = ["-n", namespace, "--testkube-namespace", testkube]

    def ours(self, *extra: str) -> Result:
        return self.cluster.cli("diff", str(self.src), *self.flags, *extra)

    def kubectl(self, *extra: str, canonical: bool = True) -> Result:
        rendered = self.cluster.cli("render", str(self.src), *self.flags)
        assert rendered.code == 0, rendered.err
        env = {**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C"}
        env.pop("KUBECTL_EXTERNAL_DIFF", None)
        if canonical:
            env["KUBECTL_EXTERNAL_DIFF"] = str(self.program)
        proc = self.cluster.kubectl("diff", "--server-side", "--field-manager=kubectl-testbench", *extra, "-f", "-",
                                    input=rendered.out, env=env)
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def assert_equal(self, code: int) -> str:
        """Ours and kubectl's (canonical) byte-equal with exit ``code``; kubectl's own names the same objects in
        the same order. Our output."""
        ours, theirs, raw = self.ours(), self.kubectl(), self.kubectl(canonical=False)
        assert (ours.code, theirs.code, raw.code) == (code, code, code), ours.err + theirs.err + raw.err
        assert ours.out == theirs.out
        assert objects(raw.out) == objects(ours.out)
        return ours.out


def objects(diff: str) -> list[str]:
    """The objects a diff names, in its order."""
    return [m[1] for m in HEADER.findall(diff)]


def test_kubectl_names_its_directories_as_the_module_says(testkube_cluster: Cluster, testkube: str,
                                                          canonical_diff: Path, tmp_path: Path) -> None:
    """What the module docstring says of kubectl's own output holds for this kubectl: temporary LIVE-/MERGED-
    directories, file times on the ---/+++ lines, the server's metadata and Go's YAML style."""
    c = testkube_cluster
    ns = c.namespace("exp")
    raw = Both(c, experiments(tmp_path, "weather"), ns, testkube, canonical_diff).kubectl(canonical=False)
    assert raw.code == 1, raw.err
    name = f"testworkflows.testkube.io.v1.TestWorkflow.{testkube}.weather-{ns}-workflow"
    live = re.search(rf"^diff -u -N (\S+)/{re.escape(name)} (\S+)/{re.escape(name)}$", raw.out, re.M)
    assert live is not None, raw.out
    assert os.path.basename(live[1]).startswith("LIVE-") and os.path.basename(live[2]).startswith("MERGED-")
    assert re.search(rf"^\+\+\+ {re.escape(live[2])}/{re.escape(name)}\t\d{{4}}-", raw.out, re.M)
    for line in ("+  creationTimestamp: ", "+  generation: 1\n", "+  uid: ", "+      cron: 0 3 * * *\n"):
        assert line in raw.out


def test_diff_equals_kubectl_diff_server_side(testkube_cluster: Cluster, testkube: str, canonical_diff: Path,
                                              tmp_path: Path) -> None:
    """New objects (exit 1), right after apply (exit 0, nothing printed), after a change to each object and the
    removal of a field we set (exit 1): always the same output as kubectl's, in kubectl's order (by file name)."""
    c = testkube_cluster
    ns = c.namespace("exp")
    both = Both(c, experiments(tmp_path, "weather", "news"), ns, testkube, canonical_diff)

    new = both.assert_equal(1)
    assert objects(new) == [f"tests.testkube.io.v1.TestTrigger.{testkube}.weather-{ns}-trigger",
                            f"testworkflows.testkube.io.v1.TestWorkflow.{testkube}.news-{ns}-workflow",
                            f"testworkflows.testkube.io.v1.TestWorkflow.{testkube}.weather-{ns}-workflow",
                            f"v1.ConfigMap.{testkube}.weather-{ns}-experiment"]
    assert c.cli("apply", str(both.src), *both.flags).code == 0
    assert both.assert_equal(0) == ""

    weather = both.src / "weather.yaml"
    text = weather.read_text()
    text = text.replace('  schedule:\n    cron: "0 3 * * *"\n    timezone: Europe/Berlin\n', "")  # drops events
    text = text.replace("name: weather-agent", "name: weather-agent-v2").replace("Berlin?", "Hamburg?")
    weather.write_text(text)
    news = both.src / "news.yaml"
    news.write_text(news.read_text().replace("news/experiment.json", "news/v2.json"))
    changed = both.assert_equal(1)
    assert len(objects(changed)) == 4
    assert '-  - cronjob:\n-      cron: "0 3 * * *"\n' in changed  # removed by server-side apply, not just by us
    assert "+      datasetUrl: https://datasets.example.com/news/v2.json\n" in changed


def test_conflict_fails_both(testkube_cluster: Cluster, testkube: str, canonical_diff: Path, tmp_path: Path) -> None:
    """A field another manager owns: kubectl diff fails (exit > 1), and so do we, with the manager and the field
    named (exit 3); with --force-conflicts both show the takeover, equally."""
    c = testkube_cluster
    ns = c.namespace("exp")
    both = Both(c, experiments(tmp_path, "weather"), ns, testkube, canonical_diff)
    assert c.cli("apply", str(both.src), *both.flags).code == 0
    workflow = f"weather-{ns}-workflow"
    c.apply(f"apiVersion: testworkflows.testkube.io/v1\nkind: TestWorkflow\nmetadata:\n  name: {workflow}\n"
            f"  namespace: {testkube}\nspec:\n  events:\n  - cronjob:\n      cron: 0 4 * * *\n",
            "--field-manager=someone-else", "--force-conflicts")
    ours, theirs = both.ours(), both.kubectl()
    assert theirs.code > 1 and 'conflict with "someone-else": .spec.events' in theirs.err, theirs.err
    assert ours.code == 3 and ours.out == "", ours.err
    assert ours.lines() == [f"error: conflict applying testworkflow.testworkflows.testkube.io/{workflow}: field "
                            'manager "someone-else" owns .spec.events. Another tool changed these fields; re-run with '
                            "--force-conflicts to take them over"]
    ours, theirs = both.ours("--force-conflicts"), both.kubectl("--force-conflicts")
    assert (ours.code, theirs.code) == (1, 1), ours.err + theirs.err
    assert ours.out == theirs.out
    assert '-      cron: "0 4 * * *"\n+      cron: "0 3 * * *"\n+      timezone: Europe/Berlin\n' in ours.out
