"""Our validator judged by the real kube-apiserver (1.35.4, the session's control plane) with our CRD installed.

Every corpus file the differential test uses and a seeded sample of its generated documents (2,000; the
``SERVER_PARITY_COUNT`` environment variable asks for more) are sent as users send them: a dry-run create of the
JSON kubectl sends, and a dry-run server-side apply of the YAML itself (tests/oracle/server.py). The server's
verdict and error field paths must be ours, under the differential test's allow-list, except for the
``SERVER_DIFFERENCES`` below, each with the reason the server differs from the create path it models.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator

import pytest

from tests.conftest import run_cli
from tests.controlplane.fixture import ControlPlane
from tests.oracle.differential import ROOT, corpus_files, generated
from tests.oracle.harness import Oracle
from tests.oracle.server import SERVER_DIFFERENCES, Judgement, Server, difference, judge

COUNT = int(os.environ.get("SERVER_PARITY_COUNT", "2000"))
SEED = 29
BATCH = 200


@pytest.fixture(scope="module")
def server(control_plane: ControlPlane) -> Iterator[Server]:
    """The server, with the Experiment CRD from ``kubectl testbench crd`` applied and established."""
    crd = run_cli("crd")
    assert crd.exit_code == 0, crd.output
    applied = control_plane.kubectl("apply", "--server-side", "-f", "-", input=crd.stdout)
    assert applied.returncode == 0, applied.stderr
    ready = control_plane.kubectl("wait", "--for=condition=Established", "--timeout=60s",
                                  "customresourcedefinition/experiments.testbench.agentic-layer.ai")
    assert ready.returncode == 0, ready.stderr
    client = Server(control_plane.kubeconfig)
    yield client
    client.close()


def _judge_all(server: Server, oracle: Oracle, files: list[tuple[str, str, bytes]]) -> list[tuple[str, Judgement,
                                                                                                    bytes]]:
    out = []
    for i in range(0, len(files), BATCH):
        batch = files[i:i + BATCH]
        for (category, name, data), docs in zip(batch, oracle.ask(d for _, _, d in batch), strict=True):
            out.append((category, judge(server, name, data, docs), data))
    return out


def _report(judged: list[tuple[str, Judgement, bytes]]) -> str:
    """The figure per category, the known differences per class, then the first unexplained disagreements."""
    per = Counter(c for c, _, _ in judged)
    bad = [(c, j, d) for c, j, d in judged if not j.comparison.agrees]
    known = Counter(difference(j) for _, j, _ in bad)
    figures = ", ".join(f"{c} {per[c] - sum(1 for b, _, _ in bad if b == c)}/{per[c]}" for c in sorted(per))
    lines = [f"server agreement: {len(judged) - len(bad)}/{len(judged)} ({figures}); known differences: "
             f"{dict((k, n) for k, n in known.items() if k)}"]
    lines += [f"[{c}] {j.explain(d)}" for c, j, d in bad if difference(j) is None][:5]
    return "\n".join(lines)


def _unexplained(judged: list[tuple[str, Judgement, bytes]]) -> list[str]:
    return [j.comparison.name for _, j, _ in judged if not j.comparison.agrees and difference(j) is None]


def test_every_corpus_file_gets_our_verdict_from_the_server(server: Server, oracle: Oracle,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    files = [("corpus", str(p.relative_to(ROOT)), p.read_bytes()) for p in corpus_files()]
    judged = _judge_all(server, oracle, files)
    with capsys.disabled():
        print("\n" + _report(judged).splitlines()[0])
    assert _unexplained(judged) == [], _report(judged)


def test_generated_documents_get_our_verdict_from_the_server(server: Server, oracle: Oracle,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    judged = _judge_all(server, oracle, generated(SEED, COUNT))
    ways = Counter(a.way for _, j, _ in judged for a in j.answers)
    assert ways["create"] >= COUNT // 2 and ways["apply"] >= COUNT // 4, ways
    with capsys.disabled():
        print("\n" + _report(judged).splitlines()[0] + f"; requests: {dict(ways)}")
    assert _unexplained(judged) == [], _report(judged)


def test_every_known_difference_gives_its_reason() -> None:
    assert all(len(reason) > 80 for reason in SERVER_DIFFERENCES.values())


def test_the_server_is_asked_both_ways_and_sees_what_kubectl_hides(server: Server, oracle: Oracle) -> None:
    """A duplicate key: kubectl's JSON has the last value only (the create passes), the apply of the YAML is
    refused by the server's strict YAML decoding -- and we refuse the file."""
    text = (b"apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: Experiment\nmetadata:\n  name: dup\n"
            b"spec:\n  agentRef:\n    name: a\n    name: b\n  dataset:\n    url: https://x.example.com/e.json\n")
    [docs] = oracle.ask([text])
    judged = judge(server, "dup.yaml", text, docs)
    assert [(a.way, a.status) for a in judged.answers] == [("create", 201), ("apply", 400)], judged.explain(text)
    assert 'already set in map' in judged.answers[1].body["message"]
    assert judged.comparison.agrees and judged.comparison.ours_invalid


