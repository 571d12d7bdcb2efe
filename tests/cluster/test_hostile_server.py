"""A misbehaving API server and a hostile namespace editor against the cluster verbs.

Whatever the cluster sends is untrusted: its text is printed escaped (no terminal escapes, no CI log
commands), its answers are bounded in time (--request-timeout is a deadline for the whole request, body and
Retry-After waits included), in size and in pages, unexpected shapes are one-line errors, prune deletes only
what its own rules allow, and the server's credentials are never printed.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_testbench.cluster.client import MAX_LIST_PAGES, MAX_RESPONSE_BYTES
from tests.cluster.conftest import FIXTURES, cli, one_line_error
from tests.cluster.fakeapi import TOKEN, FakeApiServer, Raw, Recorded, raw_head, retry_later, status
from tests.cluster.test_prune import deletes, obj
from tests.cluster.test_run import script
from tests.cluster.test_status import EXPERIMENT_CRD

pytestmark = pytest.mark.fake_api(
    "a hostile server: escapes, log commands, huge and endless bodies, slow answers; no real server sends them")

OSC52 = "\x1b]52;c;cHduZWQ=\x07"
"""Writes "pwned" to the terminal's clipboard."""
OSC52_SHOWN = "\\x1b]52;c;cHduZWQ=\\x07"
TESTWORKFLOWS = "/apis/testworkflows.testkube.io/v1"


def experiment(name: str, agent: str = "agent", cron: str = "*/5 * * * *", namespace: str = "team-a") -> dict[str, Any]:
    return {"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"agentRef": {"name": agent}, "schedule": {"cron": cron}}}


def assert_plain(text: str) -> None:
    """No terminal control, no workflow command at a line start."""
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text, repr(text)
    assert not [line for line in text.splitlines() if line.lstrip().startswith("::")], text


# --- 1. cluster text is printed escaped ---------------------------------------------------------------------


def test_status_table_escapes_what_a_namespace_editor_wrote(api: FakeApiServer, kubeconfig: Path) -> None:
    api.put(experiment("rag", agent=OSC52 + "evil", cron="\x1b[2J* * * * *"))
    api.put(experiment("::error::forged", agent="a\n::error::again"))
    result = cli("status")
    assert result.exit_code == 0, result.stderr
    assert_plain(result.stdout)
    rows = [re.split(" {3,}", line) for line in result.stdout.splitlines()[1:]]
    assert [row[:4] for row in rows] == [["\\x3a:error::forged", "team-a/a\\n::error::again", "-", "*/5 * * * *"],
                                        ["rag", f"team-a/{OSC52_SHOWN}evil", "-", "\\x1b[2J* * * * *"]]


def test_status_json_and_yaml_stay_data_and_valid(api: FakeApiServer, kubeconfig: Path) -> None:
    """A lone surrogate escape (which Go's decoder turns into U+FFFD) must not make the output unwritable."""
    api.put(experiment("rag", agent="\ud800" + OSC52))
    result = cli("status", "-o", "json")
    assert result.exit_code == 0, result.stderr
    (row,) = json.loads(result.stdout)["items"]
    assert row["agent"] == "team-a/\ufffd" + OSC52, "data, not display text"
    result = cli("status", "-o", "yaml")
    assert result.exit_code == 0
    assert 'agent: "team-a/\ufffd\\e]52;c;cHduZWQ=\\a"' in result.stdout


def test_server_error_messages_are_escaped(api: FakeApiServer, kubeconfig: Path) -> None:
    api.hook("GET", EXPERIMENT_CRD, lambda r: status(500, "InternalError", f"boom {OSC52}\n::error::x"))
    result = cli("status")
    assert result.exit_code == 3
    assert_plain(result.stderr)
    assert one_line_error(result).endswith(f"500 InternalError: boom {OSC52_SHOWN} ::error::x")


def test_forbidden_note_escapes_the_user_name(api: FakeApiServer, kubeconfig: Path) -> None:
    api.hook("GET", "/experiments$", lambda r: status(403, "Forbidden", f'User "{OSC52}" cannot list resource'))
    result = cli("status")
    assert result.exit_code == 0
    assert_plain(result.stderr)
    assert f'note: Experiments not listed: forbidden: RBAC does not allow user "{OSC52_SHOWN}" to list' \
        in result.stderr


@pytest.fixture
def applied(api: FakeApiServer, kubeconfig: Path) -> FakeApiServer:
    assert cli("apply", str(FIXTURES)).exit_code == 0
    api.requests.clear()
    return api


def test_run_wait_escapes_status_step_names_and_errors(applied: FakeApiServer) -> None:
    signature = [{"ref": "s1", "name": "\x1b[2J" + "evil"}]
    running = {"latestExecution": {"id": "id\x07", "number": 7, "signature": signature,
                                   "result": {"status": "running", "steps": {"s1": {"status": "running"}}}}}
    failed = {"latestExecution": {"id": "id\x07", "number": 7, "signature": signature,
                                  "result": {"status": "failed", "duration": "1s\x1b[1A",
                                             "steps": {"s1": {"status": "failed",
                                                              "errorMessage": f"{OSC52}\n::error::x"}}}}}
    script(applied, running, failed)
    result = cli("run", "weather", "--wait", "--poll-interval", "1ms")
    assert result.exit_code == 1
    assert_plain(result.stderr)
    assert "execution #7 running: step 1/1 \\x1b[2Jevil" in result.stderr
    assert f'error: execution #7 failed at step "\\x1b[2Jevil" in 1s\\x1b[1A: {OSC52_SHOWN} ::error::x' \
        in result.stderr
    assert "testkube download artifacts id\\x07 --namespace testkube" in result.stderr


def test_run_escapes_the_name_the_server_gave_the_execution(applied: FakeApiServer) -> None:
    def created(req: Recorded) -> tuple[int, Any]:
        return 201, {**req.body, "metadata": {**req.body["metadata"], "name": f"::error::x{OSC52}"}}

    applied.hook("POST", "/testworkflowexecutions$", created)
    result = cli("run", "weather")
    assert result.exit_code == 0, result.stderr
    assert_plain(result.stdout + result.stderr)
    assert result.stdout == f"testworkflowexecution.testworkflows.testkube.io/::error::x{OSC52_SHOWN}\n"
    assert f"testworkflowexecution.testworkflows.testkube.io/::error::x{OSC52_SHOWN} created" in result.stderr


def test_run_escapes_the_workflow_an_experiment_status_names(api: FakeApiServer, kubeconfig: Path) -> None:
    api.put({**experiment("weather"), "status": {"generatedResources": [
        {"kind": "TestWorkflow", "name": f"wf{OSC52}", "namespace": "testkube"}]}})
    result = cli("run", "weather")
    assert result.exit_code == 2
    assert_plain(result.stderr)
    assert one_line_error(result).startswith(f'error: TestWorkflow "wf{OSC52_SHOWN}" not found')


def test_diff_escapes_live_objects(api: FakeApiServer, kubeconfig: Path) -> None:
    """What the server's dry run answers is diffed; the YAML writer escapes it (a regression guard)."""
    annotations = {"::error::x": "\x1b]0;title\x07", "y": "a\n::error::z", "z": OSC52}

    def merged(req: Recorded) -> tuple[int, Any]:
        return 200, {**req.body, "metadata": {**req.body["metadata"], "annotations": annotations}}

    api.hook("PATCH", "/testworkflows/", merged)
    result = cli("diff", str(FIXTURES / "weather.yaml"))
    assert result.exit_code == 1
    assert '+    "::error::x": "\\e]0;title\\a"' in result.stdout.splitlines()
    assert_plain(result.stdout)


def test_diff_prune_escapes_what_the_server_lists(api: FakeApiServer, kubeconfig: Path) -> None:
    listing(api, "configmaps", obj("ConfigMap", f"x{OSC52}", "old"))
    result = cli("diff", str(FIXTURES / "weather.yaml"), "--prune")
    assert result.exit_code == 1
    assert_plain(result.stdout + result.stderr)
    assert f'warning: the API server listed a configmap named "x{OSC52_SHOWN}" in namespace "testkube"' \
        in result.stderr


def test_prune_lines_escape_names_and_labels(api: FakeApiServer, kubeconfig: Path) -> None:
    api.put(obj("TestWorkflow", "old-team-a-workflow", f"old{OSC52}"))
    result = cli("prune", str(FIXTURES))
    assert result.exit_code == 0, result.stderr
    assert_plain(result.stderr)
    assert f"old-team-a-workflow pruned (its Experiment is no longer in the input: team-a/old{OSC52_SHOWN})" \
        in result.stderr


def test_apply_output_name_is_what_we_applied(api: FakeApiServer, kubeconfig: Path) -> None:
    """The server's answer may name another object (or kind): -o name prints the object we sent."""
    def other(req: Recorded) -> tuple[int, Any]:
        return 200, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": f"x{OSC52}"}}

    api.hook("PATCH", "/configmaps/", other)
    result = cli("apply", str(FIXTURES / "weather.yaml"), "-o", "name")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "configmap/weather-team-a-experiment"


def test_completion_offers_only_valid_names(api: FakeApiServer, kubeconfig: Path) -> None:
    """Completion candidates go into the user's shell, one a line: a name with a newline would forge another."""
    from kubectl_testbench.cli.kubectl_complete import completions

    for name in ("good", f"x{OSC52}", "a\nrm -rf ~", "$(id)"):
        api.put(experiment(name))
    assert completions(["run", ""]) == ["good", ":4"]
    api.namespaces |= {"ok-ns", "bad\nns", "Caps"}
    assert completions(["status", "-n", ""])[:-1] == ["default", "ok-ns", "team-a", "testkube"]


# --- 2. time, size and pages are bounded ----------------------------------------------------------------------


def drip(body: bytes, pause: float, head: bool = False) -> Raw:
    return Raw(raw_head(200, len(body)), [bytes([b]) for b in body], pause=pause, drip_head=head)


@pytest.mark.parametrize("head", [False, True], ids=["body", "head"])
def test_request_timeout_is_a_deadline_for_a_dripping_server(api: FakeApiServer, kubeconfig: Path,
                                                             head: bool) -> None:
    api.hook("GET", TESTWORKFLOWS + "$", lambda r: drip(b'{"kind":"APIResourceList","resources":[]}', 0.2, head))
    started = time.monotonic()
    result = cli("apply", str(FIXTURES), "--request-timeout", "1s")
    took = time.monotonic() - started
    assert result.exit_code == 3
    assert one_line_error(result) == (f"error: the Kubernetes API server at {api.url} did not answer within 1s "
                                      "(--request-timeout)")
    assert took < 2.5, f"took {took:.1f}s"
    assert api.writes() == []


def test_retry_after_counts_against_the_deadline(api: FakeApiServer, kubeconfig: Path) -> None:
    api.hook("GET", EXPERIMENT_CRD, lambda r: retry_later(429, "TooManyRequests", "slow down", "100"))
    started = time.monotonic()
    result = cli("status", "--request-timeout", "2s")
    took = time.monotonic() - started
    assert result.exit_code == 3
    assert one_line_error(result) == (
        f"error: the Kubernetes API server at {api.url} failed to discover experiments.testbench.agentic-layer.ai: "
        "429 TooManyRequests: slow down (it asked to be retried after 100s, beyond the --request-timeout of 2s)")
    assert took < 1.5, f"took {took:.1f}s"


def test_retries_stop_at_the_deadline(api: FakeApiServer, kubeconfig: Path) -> None:
    api.hook("GET", EXPERIMENT_CRD, lambda r: retry_later(503, "ServiceUnavailable", "busy", "1"))
    started = time.monotonic()
    result = cli("status", "--request-timeout", "2500ms")
    took = time.monotonic() - started
    assert result.exit_code == 3
    assert one_line_error(result).endswith("503 ServiceUnavailable: busy (still failing after 2 retries as "
                                           "Retry-After asked; the next, after 1s, would pass the --request-timeout "
                                           "of 2.5s)")
    assert took < 3.5, f"took {took:.1f}s"


def endless(total: int) -> Iterator[bytes]:
    block = b" " * (1 << 20)
    for _ in range(total >> 20):
        yield block


@pytest.mark.parametrize("length", [True, False], ids=["content-length", "until-close"])
def test_huge_answer_is_refused_at_the_limit(api: FakeApiServer, kubeconfig: Path, length: bool) -> None:
    size = 2 * MAX_RESPONSE_BYTES
    api.hook("GET", EXPERIMENT_CRD, lambda r: Raw(raw_head(200, size if length else None),
                                                  endless(size)))
    result = cli("status")
    assert result.exit_code == 3
    assert one_line_error(result) == (
        f"error: the Kubernetes API server at {api.url} answered discover experiments.testbench.agentic-layer.ai "
        "with more than 64 MiB: stopped reading (kubectl-testbench's limit for one answer)")


def pages(api: FakeApiServer, token: Any) -> None:
    """Every list of TestWorkflows answers one item and the continue token ``token(n)`` for page n."""
    count = iter(range(1, 10_000))

    def page(req: Recorded) -> tuple[int, Any]:
        n = next(count)
        return 200, {"kind": "TestWorkflowList", "metadata": {"continue": token(n)},
                     "items": [{"metadata": {"name": f"wf-{n}", "namespace": "testkube"}}]}

    api.hook("GET", "/testworkflows$", page)


def test_a_repeated_continue_token_ends_the_list(api: FakeApiServer, kubeconfig: Path) -> None:
    pages(api, lambda n: "again" if n < 3000 else "")
    result = cli("status")
    assert result.exit_code == 3
    assert one_line_error(result) == (
        f"error: the Kubernetes API server at {api.url} sent the same continue token twice to list "
        'testworkflows.testworkflows.testkube.io in namespace "testkube": a list that never ends')
    assert len([r for r in api.requests if r.path.endswith("/testworkflows")]) == 2


def test_a_list_that_never_ends_is_bounded(api: FakeApiServer, kubeconfig: Path) -> None:
    pages(api, lambda n: f"t{n}" if n < 3000 else "")
    result = cli("status")
    assert result.exit_code == 3
    assert one_line_error(result) == (
        f"error: the Kubernetes API server at {api.url} did not finish listing "
        f'testworkflows.testworkflows.testkube.io in namespace "testkube" within {MAX_LIST_PAGES} pages')
    assert len([r for r in api.requests if r.path.endswith("/testworkflows")]) == MAX_LIST_PAGES


# --- 3. prune deletes only what its own rules allow ---------------------------------------------------------


def listing(api: FakeApiServer, plural: str, *items: dict[str, Any]) -> None:
    api.hook("GET", f"/namespaces/testkube/{plural}$",
             lambda r: (200, {"kind": "List", "metadata": {}, "items": list(items)}))


def test_prune_never_deletes_outside_the_namespace_it_listed(api: FakeApiServer, kubeconfig: Path) -> None:
    coredns = obj("ConfigMap", "coredns", "old", namespace="kube-system")
    listing(api, "configmaps", coredns, obj("ConfigMap", "old-team-a-experiment", "old"))
    result = cli("prune", str(FIXTURES))
    assert result.exit_code == 0, result.stderr
    assert [r.path for r in api.requests if r.method == "DELETE"] == [
        "/api/v1/namespaces/testkube/configmaps/old-team-a-experiment"]
    assert ('warning: the API server listed configmap/coredns in namespace "kube-system" when asked for namespace '
            '"testkube": not pruned') in result.stderr


def test_prune_never_deletes_a_kind_it_did_not_list(api: FakeApiServer, kubeconfig: Path) -> None:
    namespace = {**obj("ConfigMap", "testkube", "old"), "apiVersion": "v1", "kind": "Namespace"}
    listing(api, "configmaps", namespace)
    result = cli("prune", str(FIXTURES))
    assert result.exit_code == 3
    assert one_line_error(result) == (
        f'error: the Kubernetes API server at {api.url} answered list configmaps in namespace "testkube" with a '
        "Namespace (v1) among them")
    assert deletes(api) == []


def test_prune_skips_names_that_are_not_kubernetes_names(api: FakeApiServer, kubeconfig: Path) -> None:
    listing(api, "configmaps", obj("ConfigMap", "..", "old"), obj("ConfigMap", "a/../../b", "old"))
    result = cli("prune", str(FIXTURES))
    assert result.exit_code == 0, result.stderr
    assert deletes(api) == []
    assert 'warning: the API server listed a configmap named ".." in namespace "testkube", which is not a valid ' \
           "name: not pruned" in result.stderr


# --- 4. unexpected shapes -----------------------------------------------------------------------------------


def test_a_secret_in_a_configmap_list_is_a_one_line_error(api: FakeApiServer, kubeconfig: Path) -> None:
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "testkube"}}
    listing(api, "configmaps", secret)
    result = cli("prune", str(FIXTURES))
    assert result.exit_code == 3
    assert one_line_error(result).endswith('answered list configmaps in namespace "testkube" with a Secret (v1) '
                                           "among them")
    assert deletes(api) == []


@pytest.mark.parametrize("answer", [
    {"kind": "List", "items": {"a": 1}},
    {"kind": "List", "items": [1, "x"]},
    {"kind": "List", "items": [{"metadata": [1]}]},
    {"kind": "List", "items": [], "metadata": {"continue": 5}},
], ids=["items-mapping", "items-scalars", "metadata-list", "continue-number"])
def test_list_answers_of_the_wrong_shape_are_one_line_errors(api: FakeApiServer, kubeconfig: Path,
                                                             answer: dict[str, Any]) -> None:
    listing(api, "testworkflows", answer)
    api.hooks[-1] = lambda r: (200, answer) if r.path.endswith("/testkube/testworkflows") else None
    result = cli("status")
    assert result.exit_code == 3
    assert "answered list testworkflows.testworkflows.testkube.io in namespace \"testkube\" with" \
        in one_line_error(result)


def test_null_selectors_and_odd_fields_in_status(api: FakeApiServer, kubeconfig: Path) -> None:
    del api.served[EXPERIMENT_CRD]
    assert cli("apply", str(FIXTURES / "weather.yaml")).exit_code == 0
    trigger = "/apis/tests.testkube.io/v1/namespaces/testkube/testtriggers/weather-team-a-trigger"
    api.objects[trigger]["spec"]["selector"] = None
    api.objects[trigger]["spec"]["testSelector"] = None
    workflow = f"{TESTWORKFLOWS}/namespaces/testkube/testworkflows/weather-team-a-workflow"
    api.objects[workflow]["spec"]["events"] = [{"cronjob": "0 3 * * *"}]
    api.objects[workflow]["spec"]["use"] = {"name": "x"}
    api.objects[workflow]["status"] = {"latestExecution": ["x"]}
    result = cli("status")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[1].split()[:3] == ["weather", "-", "inline"]


def test_odd_execution_status_in_run_wait(applied: FakeApiServer) -> None:
    script(applied, {"latestExecution": {"signature": {"a": 1}, "result": {"status": "running", "steps": ["x"]}}},
           {"latestExecution": {"signature": [{"ref": "s", "children": "abc"}],
                                "result": {"status": "failed", "initialization": "x", "steps": {"s": 5}}}})
    result = cli("run", "weather", "--wait", "--poll-interval", "1ms")
    assert result.exit_code == 1, result.stderr
    assert "error: execution" in result.stderr and "failed" in result.stderr


def test_deep_answers_are_refused(api: FakeApiServer, kubeconfig: Path) -> None:
    assert cli("apply", str(FIXTURES / "weather.yaml")).exit_code == 0
    deep: Any = "x"
    for _ in range(900):
        deep = [deep]
    path = f"{TESTWORKFLOWS}/namespaces/testkube/testworkflows/weather-team-a-workflow"
    api.objects[path]["spec"]["deep"] = deep
    result = cli("diff", str(FIXTURES / "weather.yaml"))
    assert result.exit_code == 3
    assert "nested deeper than 256 levels" in one_line_error(result)


@pytest.mark.parametrize("body", [b'{"a": NaN}', b'{"a": 1e400}', b'{"a": "\xff"}'], ids=["nan", "inf", "latin1"])
def test_answers_that_are_not_json_are_one_line_errors(api: FakeApiServer, kubeconfig: Path, body: bytes) -> None:
    api.hook("PATCH", "/configmaps/", lambda r: Raw(raw_head(200, len(body)), [body]))
    result = cli("apply", str(FIXTURES / "weather.yaml"), "-o", "json")
    assert result.exit_code == 3
    assert "with something that is not JSON" in one_line_error(result)


# --- 5. credentials are never printed -----------------------------------------------------------------------


def test_userinfo_in_the_server_url_is_redacted(api: FakeApiServer, isolated: Path, closed_port: int) -> None:
    config = api.kubeconfig(isolated / "kc", server=f"http://admin:s3cret@127.0.0.1:{closed_port}")
    result = cli("status", "--kubeconfig", str(config))
    assert result.exit_code == 3
    assert "s3cret" not in result.output and "admin" not in result.output
    assert one_line_error(result) == (
        f"error: cannot reach the Kubernetes API server at http://***@127.0.0.1:{closed_port}: connection refused "
        "(is the cluster running? check --context and --kubeconfig)")


def test_a_server_that_echoes_the_token_does_not_get_it_printed(api: FakeApiServer, kubeconfig: Path) -> None:
    api.hook("GET", EXPERIMENT_CRD, lambda r: status(500, "InternalError", f"bad token {r.headers['authorization']}"))
    result = cli("status")
    assert result.exit_code == 3
    assert TOKEN not in result.output
    assert one_line_error(result).endswith("500 InternalError: bad token Bearer ***")
