"""The install bundle: contents per mode, apply order, determinism, option checks."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from kubectl_testbench import layout
from kubectl_testbench.crd.document import crd_document
from kubectl_testbench.emit.yamlout import dump
from kubectl_testbench.install import bundle, operator
from kubectl_testbench.install.bundle import InstallError, Options
from tests.install.test_structural import crd_structural_errors

CONTROLLER_KINDS = {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Service",
                    "Deployment"}


def _kinds(objs: list[dict[str, Any]]) -> list[str]:
    return [o["kind"] for o in objs]


def _find(objs: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    found = [o for o in objs if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    assert len(found) == 1, (kind, name, len(found))
    return found[0]


def test_operator_mode_has_crd_templates_dashboard_and_controller() -> None:
    objs = bundle.objects(Options())
    kinds = _kinds(objs)
    assert kinds.count("CustomResourceDefinition") == 1
    assert kinds.count("TestWorkflowTemplate") == len(layout.PHASE_TEMPLATES) == 5
    assert _find(objs, "ConfigMap", "grafana-testkube-dashboard")["metadata"]["namespace"] == "monitoring"
    deployment = _find(objs, "Deployment", "operator-controller-manager")
    assert deployment["metadata"]["namespace"] == "testbench-operator-system"
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == f"ghcr.io/agentic-layer/testbench/operator:{layout.DEFAULT_IMAGE_TAG}"
    assert _find(objs, "Namespace")["metadata"]["name"] == "testbench-operator-system"


def test_gitops_mode_has_no_controller_rbac_or_operator_namespace() -> None:
    objs = bundle.objects(Options(mode="gitops"))
    assert not set(_kinds(objs)) & CONTROLLER_KINDS
    assert "Namespace" not in _kinds(objs)
    assert _kinds(objs).count("TestWorkflowTemplate") == 5
    assert "testbench-operator-system" not in json.dumps(objs)


def test_the_crd_is_exactly_the_generated_document_and_structural() -> None:
    crd = _find(bundle.objects(Options()), "CustomResourceDefinition")
    assert crd == crd_document()
    assert dump(crd) in bundle.yaml_text(Options())
    assert crd_structural_errors(crd) == []


def test_objects_are_in_one_pass_apply_order() -> None:
    objs = bundle.objects(Options(create_namespaces=True))
    keys = [bundle.sort_key(o) for o in objs]
    assert keys == sorted(keys)
    kinds = list(dict.fromkeys(_kinds(objs)))
    assert kinds == [k for k in bundle.KIND_ORDER if k in kinds]
    assert kinds[:2] == ["Namespace", "CustomResourceDefinition"]
    assert kinds.index("ServiceAccount") < kinds.index("Deployment")
    assert kinds.index("ClusterRoleBinding") < kinds.index("Deployment")
    templates = [o["metadata"]["name"] for o in objs if o["kind"] == "TestWorkflowTemplate"]
    assert templates == sorted(templates)


def test_unknown_kinds_sort_last() -> None:
    objs = [{"kind": "Widget", "metadata": {"name": "a"}}, {"kind": "Namespace", "metadata": {"name": "z"}}]
    assert _kinds(bundle.ordered(objs)) == ["Namespace", "Widget"]


@pytest.mark.parametrize("options", [Options(), Options(mode="gitops"), Options(create_namespaces=True)])
def test_output_is_byte_for_byte_deterministic(options: Options) -> None:
    assert bundle.yaml_text(options) == bundle.yaml_text(options)
    assert bundle.json_text(options) == bundle.json_text(options)
    assert bundle.directory_files(options) == bundle.directory_files(options)


def test_yaml_stream_parses_to_the_same_objects_as_json_list() -> None:
    options = Options(create_namespaces=True)
    from_yaml = [d for d in yaml.safe_load_all(bundle.yaml_text(options)) if d is not None]
    as_list = json.loads(bundle.json_text(options))
    assert as_list["kind"] == "List" and as_list["apiVersion"] == "v1"
    assert from_yaml == as_list["items"] == bundle.objects(options)


def test_yaml_starts_with_the_command_that_reproduces_it() -> None:
    text = bundle.yaml_text(Options(mode="gitops", image_tag="1.2.3", dashboard_namespace="grafana"))
    first, second = text.splitlines()[:2]
    assert first.startswith(bundle.HEADER_MARK)
    assert second == "#   kubectl testbench install --mode gitops --image-tag 1.2.3 --dashboard-namespace grafana"


def test_image_flags() -> None:
    objs = bundle.objects(Options(image_tag="9.9.9"))
    images = {o["spec"]["steps"][0]["run"]["image"] for o in objs if o["kind"] == "TestWorkflowTemplate"}
    assert images == {"ghcr.io/agentic-layer/testbench/testworkflows:9.9.9"}
    objs = bundle.objects(Options(image_tag="9.9.9", testworkflow_image="mirror.local/tb/phases@sha256:abcd",
                                  operator_image="mirror.local/tb/operator:dev"))
    images = {o["spec"]["steps"][0]["run"]["image"] for o in objs if o["kind"] == "TestWorkflowTemplate"}
    assert images == {"mirror.local/tb/phases@sha256:abcd"}
    deployment = _find(objs, "Deployment")
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "mirror.local/tb/operator:dev"


def test_namespace_flags() -> None:
    objs = bundle.objects(Options(testkube_namespace="qa-testkube", dashboard_namespace="grafana",
                                  operator_namespace="tb-system"))
    assert {o["metadata"]["namespace"] for o in objs if o["kind"] == "TestWorkflowTemplate"} == {"qa-testkube"}
    assert _find(objs, "ConfigMap")["metadata"]["namespace"] == "grafana"
    assert _find(objs, "Namespace")["metadata"]["name"] == "tb-system"
    bindings = [o for o in objs if o["kind"] in ("ClusterRoleBinding", "RoleBinding")]
    assert len(bindings) == 3
    for binding in bindings:
        assert binding["subjects"] == [{"kind": "ServiceAccount", "name": operator.SERVICE_ACCOUNT,
                                        "namespace": "tb-system"}]


def test_foreign_namespaces_only_with_create_namespaces_and_protected_from_pruning() -> None:
    assert [o["metadata"]["name"] for o in bundle.objects(Options()) if o["kind"] == "Namespace"] == \
        ["testbench-operator-system"]
    objs = bundle.objects(Options(create_namespaces=True))
    namespaces = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Namespace"}
    assert set(namespaces) == {"monitoring", "testkube", "testbench-operator-system"}
    for name in ("monitoring", "testkube"):
        annotations = namespaces[name]["metadata"]["annotations"]
        assert annotations["argocd.argoproj.io/sync-options"] == "Delete=false,Prune=false"
        assert annotations["kustomize.toolkit.fluxcd.io/prune"] == "disabled"
    same = bundle.objects(Options(create_namespaces=True, dashboard_namespace="testkube", mode="gitops"))
    assert [o["metadata"]["name"] for o in same if o["kind"] == "Namespace"] == ["testkube"]


def test_every_namespaced_object_lands_in_a_namespace_the_bundle_knows() -> None:
    options = Options(create_namespaces=True)
    objs = bundle.objects(options)
    declared = {o["metadata"]["name"] for o in objs if o["kind"] == "Namespace"}
    cluster_scoped = {"Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding"}
    for obj in objs:
        if obj["kind"] in cluster_scoped:
            assert "namespace" not in obj["metadata"], obj["kind"]
        else:
            assert obj["metadata"]["namespace"] in declared, obj["kind"]


def test_controller_is_hardened_and_probed() -> None:
    deployment = operator.deployment("img:1", "ns")
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert pod["securityContext"] == {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert "--leader-elect" in container["args"]
    assert deployment["spec"]["selector"] == {"matchLabels": {"control-plane": "controller-manager"}}
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert all(labels[k] == v for k, v in deployment["spec"]["selector"]["matchLabels"].items())
    assert pod["serviceAccountName"] == operator.SERVICE_ACCOUNT


def _allows(rules: list[dict[str, Any]], group: str, resource: str, verb: str) -> bool:
    return any(group in r["apiGroups"] and resource in r["resources"] and verb in r["verbs"] for r in rules)


@pytest.mark.parametrize(("group", "resource", "verb"), [
    ("", "configmaps", "create"), ("", "events", "create"),
    ("runtime.agentic-layer.ai", "aigateways", "get"), ("runtime.agentic-layer.ai", "aigateways", "watch"),
    ("testbench.agentic-layer.ai", "experiments", "watch"),
    ("testbench.agentic-layer.ai", "experiments/status", "patch"),
    ("testworkflows.testkube.io", "testworkflows", "create"), ("tests.testkube.io", "testtriggers", "delete"),
])
def test_manager_role_grants_what_the_controller_does(group: str, resource: str, verb: str) -> None:
    assert _allows(operator.manager_rules(), group, resource, verb)


def test_manager_role_only_reads_aigateways_and_leader_election_uses_leases() -> None:
    assert not _allows(operator.manager_rules(), "runtime.agentic-layer.ai", "aigateways", "update")
    assert _allows(operator.leader_election_rules(), "coordination.k8s.io", "leases", "update")


def test_manager_role_matches_the_upstream_role() -> None:
    from tests.conftest import UPSTREAM, require_reference

    path = require_reference(UPSTREAM / "install" / "operator_config_rbac_role.yaml")
    upstream = next(d for d in yaml.safe_load_all(path.read_text()) if d)
    flat = {(g, r, v) for rule in upstream["rules"] for g in rule["apiGroups"] for r in rule["resources"]
            for v in rule["verbs"]}
    ours = {(g, r, v) for rule in operator.manager_rules() for g in rule["apiGroups"] for r in rule["resources"]
            for v in rule["verbs"]}
    assert ours == flat


def test_every_controller_object_carries_the_component_label_the_gitops_overlay_selects() -> None:
    for obj in operator.objects("img:1"):
        assert obj["metadata"]["labels"]["app.kubernetes.io/component"] == "operator", obj["kind"]
    for obj in bundle.objects(Options(mode="gitops", create_namespaces=True)):
        assert obj["metadata"].get("labels", {}).get("app.kubernetes.io/component") != "operator"


@pytest.mark.parametrize(("options", "flag"), [
    (Options(image_tag="v1 beta"), "--image-tag"),
    (Options(image_tag="-rc1"), "--image-tag"),
    (Options(image_tag="x" * 129), "--image-tag"),
    (Options(testworkflow_image="ghcr.io/x/y:"), "--testworkflow-image"),
    (Options(operator_image="has space:1"), "--operator-image"),
    (Options(operator_image="repo@nodigest"), "--operator-image"),
    (Options(testkube_namespace="Testkube"), "--testkube-namespace"),
    (Options(dashboard_namespace="a" * 64), "--dashboard-namespace"),
    (Options(operator_namespace="ops_system"), "--operator-namespace"),
])
def test_bad_options_name_the_flag(options: Options, flag: str) -> None:
    with pytest.raises(InstallError, match=flag):
        options.check()
    with pytest.raises(InstallError):
        bundle.objects(options)


@pytest.mark.parametrize("ref", ["ghcr.io/a/b:1.0", "localhost:5000/a/b", "b", "a/b@sha256:0123abcd",
                                 "registry.example:443/team/img:v1_2-3"])
def test_plausible_references(ref: str) -> None:
    assert bundle.reference_is_plausible(ref)


def test_directory_files_name_the_objects_as_render_does_and_list_them_in_apply_order() -> None:
    files = bundle.directory_files(Options())
    kustomization = yaml.safe_load(files["kustomization.yaml"])
    assert files["kustomization.yaml"].startswith(bundle.HEADER_MARK)
    assert kustomization["resources"] == [n for n in files if n != "kustomization.yaml"]
    assert kustomization["resources"][:2] == ["namespace_testbench-operator-system.yaml",
                                              "customresourcedefinition_experiments.testbench.agentic-layer.ai.yaml"]
    parsed = [yaml.safe_load(files[n]) for n in kustomization["resources"]]
    assert parsed == bundle.objects(Options())
    as_json = bundle.directory_files(Options(), "json")
    assert all(n.endswith(".json") for n in as_json if n != "kustomization.yaml")


def test_experiment_roles_are_not_aggregated_into_the_built_in_roles() -> None:
    """An Experiment's spec.env secretKeyRef resolves in the Testkube namespace: aggregating into edit/admin/view
    would let every namespace editor read Secrets there (docs/security.md). Upstream does not aggregate."""
    objs = bundle.objects(Options())
    for name in ("operator-experiment-editor-role", "operator-experiment-viewer-role"):
        labels = _find(objs, "ClusterRole", name)["metadata"]["labels"]
        assert not [k for k in labels if k.startswith("rbac.authorization.k8s.io/aggregate-to-")], name
    assert "aggregate-to-" not in bundle.yaml_text(Options())


def test_operator_mode_serves_the_controllers_metrics_like_the_upstream_bundle() -> None:
    objs = bundle.objects(Options())
    service = _find(objs, "Service", "operator-controller-manager-metrics-service")
    assert service["metadata"]["namespace"] == "testbench-operator-system"
    assert service["spec"] == {"ports": [{"name": "https", "port": 8443, "protocol": "TCP", "targetPort": 8443}],
                               "selector": {"control-plane": "controller-manager"}}
    deployment = _find(objs, "Deployment", "operator-controller-manager")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items(), "the Service reaches the controller Pod"
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["args"][0] == "--metrics-bind-address=:8443"
    assert {"name": "https", "containerPort": 8443, "protocol": "TCP"} in container["ports"]
    auth = _find(objs, "ClusterRole", "operator-metrics-auth-role")
    assert auth["rules"] == [
        {"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"], "verbs": ["create"]},
        {"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"], "verbs": ["create"]}]
    binding = _find(objs, "ClusterRoleBinding", "operator-metrics-auth-rolebinding")
    assert binding["roleRef"]["name"] == "operator-metrics-auth-role"
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "operator-controller-manager",
                                    "namespace": "testbench-operator-system"}]
    reader = _find(objs, "ClusterRole", "operator-metrics-reader")
    assert reader["rules"] == [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]
    assert "Service" not in _kinds(bundle.objects(Options(mode="gitops")))
