"""The upstream Testbench operator's controller objects, for ``--mode operator``.

Names, the namespace and the Deployment's selector are the upstream release's (kubebuilder layout with the
``operator-`` prefix), so applying our install.yaml over an upstream install updates objects in place
instead of creating a second controller; a Deployment's selector cannot change after creation.

Every object carries ``app.kubernetes.io/component: operator`` (:data:`COMPONENT_SELECTOR`): the gitops
overlay deletes exactly the objects that match it.
"""

from __future__ import annotations

from typing import Any

from kubectl_testbench import layout
from kubectl_testbench.model import constants as names

NAMESPACE = "testbench-operator-system"
PREFIX = "operator-"
SERVICE_ACCOUNT = f"{PREFIX}controller-manager"
DEPLOYMENT = f"{PREFIX}controller-manager"
MANAGER_ROLE = f"{PREFIX}manager-role"
MANAGER_BINDING = f"{PREFIX}manager-rolebinding"
LEADER_ROLE = f"{PREFIX}leader-election-role"
LEADER_BINDING = f"{PREFIX}leader-election-rolebinding"
EDITOR_ROLE = f"{PREFIX}experiment-editor-role"
VIEWER_ROLE = f"{PREFIX}experiment-viewer-role"
METRICS_SERVICE = f"{PREFIX}controller-manager-metrics-service"
METRICS_AUTH_ROLE = f"{PREFIX}metrics-auth-role"
METRICS_AUTH_BINDING = f"{PREFIX}metrics-auth-rolebinding"
METRICS_READER_ROLE = f"{PREFIX}metrics-reader"
METRICS_PORT = 8443
"""The kubebuilder layout upstream's manager-bundle uses (metrics_service.yaml, manager_metrics_patch.yaml,
metrics_auth_role*.yaml, metrics_reader_role.yaml): controller-runtime serves /metrics over HTTPS on :8443 and
authenticates and authorises every scrape with TokenReviews and SubjectAccessReviews."""
COMPONENT = "operator"
COMPONENT_SELECTOR = f"app.kubernetes.io/component={COMPONENT}"
SELECTOR = {"control-plane": "controller-manager"}
"""The upstream Deployment's selector, kept byte for byte (it is immutable)."""
PROBE_PORT = 8081

RW = ["create", "delete", "get", "list", "patch", "update", "watch"]
READ = ["get", "list", "watch"]


def default_image(tag: str = layout.DEFAULT_IMAGE_TAG) -> str:
    """The controller image reference for a release tag."""
    return f"{layout.OPERATOR_IMAGE}:{tag}"


def labels() -> dict[str, str]:
    return {
        "app.kubernetes.io/name": "testbench",
        "app.kubernetes.io/part-of": "testbench",
        "app.kubernetes.io/component": COMPONENT,
        "app.kubernetes.io/managed-by": "kubectl-testbench",
    }


def _meta(name: str, namespace: str | None = None, extra: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    meta["labels"] = {**labels(), **(extra or {})}
    return meta


def _rule(group: str, resources: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"apiGroups": [group], "resources": resources, "verbs": verbs}


def manager_rules() -> list[dict[str, Any]]:
    """What the controller reconciles: dataset and anchor ConfigMaps, Experiments and their status,
    TestWorkflows, TestTriggers; it reads AiGateways for the judge's URL and records Events."""
    return [
        _rule("", ["configmaps"], RW),
        _rule("", ["events"], ["create", "patch"]),
        _rule("runtime.agentic-layer.ai", ["aigateways"], READ),
        _rule(names.GROUP, [names.PLURAL], RW),
        _rule(names.GROUP, [f"{names.PLURAL}/status"], ["get", "patch", "update"]),
        _rule("tests.testkube.io", ["testtriggers"], RW),
        _rule("testworkflows.testkube.io", ["testworkflows"], RW),
    ]


def leader_election_rules() -> list[dict[str, Any]]:
    """controller-runtime's leader election: a Lease (ConfigMaps for old clients) plus Events."""
    return [
        _rule("", ["configmaps"], RW),
        _rule("coordination.k8s.io", ["leases"], RW),
        _rule("", ["events"], ["create", "patch"]),
    ]


def _binding(kind: str, name: str, role_kind: str, role: str, namespace: str | None, sa_namespace: str) -> dict[
        str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": kind,
        "metadata": _meta(name, namespace),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role},
        "subjects": [{"kind": "ServiceAccount", "name": SERVICE_ACCOUNT, "namespace": sa_namespace}],
    }


def _experiment_role(name: str, verbs: list[str], status_verbs: list[str]) -> dict[str, Any]:
    """Experiment access for admins to grant with a (Cluster)RoleBinding, as upstream ships it.

    Deliberately *not* aggregated into the built-in ``edit``/``admin``/``view`` roles: an Experiment's
    ``spec.env`` ``secretKeyRef`` is resolved by the TestWorkflow in the Testkube namespace, so creating an
    Experiment reads Secrets there. Aggregation would hand that to every namespace editor (docs/security.md).
    """
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": _meta(name),
        "rules": [_rule(names.GROUP, [names.PLURAL], verbs), _rule(names.GROUP, [f"{names.PLURAL}/status"],
                                                                     status_verbs)],
    }


def metrics_objects(namespace: str) -> list[dict[str, Any]]:
    """The controller's secured metrics endpoint: Service, the roles its authn/authz filter needs, and the
    role a Prometheus ServiceAccount is bound to for scraping."""
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(METRICS_SERVICE, namespace, SELECTOR),
        "spec": {
            "ports": [{"name": "https", "port": METRICS_PORT, "protocol": "TCP", "targetPort": METRICS_PORT}],
            "selector": dict(SELECTOR),
        },
    }
    auth = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": _meta(METRICS_AUTH_ROLE),
            "rules": [_rule("authentication.k8s.io", ["tokenreviews"], ["create"]),
                      _rule("authorization.k8s.io", ["subjectaccessreviews"], ["create"])]}
    reader = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
              "metadata": _meta(METRICS_READER_ROLE), "rules": [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]}
    return [service, auth, reader,
            _binding("ClusterRoleBinding", METRICS_AUTH_BINDING, "ClusterRole", METRICS_AUTH_ROLE, None, namespace)]


def deployment(image: str, namespace: str) -> dict[str, Any]:
    """The controller: one replica with leader election, restricted Pod Security, health probes."""
    probe = {"httpGet": {"path": "/healthz", "port": PROBE_PORT}, "initialDelaySeconds": 15, "periodSeconds": 20}
    ready = {"httpGet": {"path": "/readyz", "port": PROBE_PORT}, "initialDelaySeconds": 5, "periodSeconds": 10}
    container = {
        "name": "manager",
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "command": ["/manager"],
        "args": [f"--metrics-bind-address=:{METRICS_PORT}", "--leader-elect",
                 f"--health-probe-bind-address=:{PROBE_PORT}"],
        "ports": [{"name": "health", "containerPort": PROBE_PORT, "protocol": "TCP"},
                  {"name": "https", "containerPort": METRICS_PORT, "protocol": "TCP"}],
        "livenessProbe": probe,
        "readinessProbe": ready,
        "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "10m", "memory": "64Mi"}},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
        },
        "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(DEPLOYMENT, namespace, SELECTOR),
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": dict(SELECTOR)},
            "template": {
                "metadata": {
                    "annotations": {"kubectl.kubernetes.io/default-container": "manager"},
                    "labels": {**SELECTOR, **labels()},
                },
                "spec": {
                    "serviceAccountName": SERVICE_ACCOUNT,
                    "terminationGracePeriodSeconds": 10,
                    "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [container],
                    "volumes": [{"name": "tmp", "emptyDir": {}}],
                },
            },
        },
    }


def objects(image: str, namespace: str = NAMESPACE) -> list[dict[str, Any]]:
    """Namespace, ServiceAccount, RBAC, metrics Service and Deployment of the controller (unordered; the bundle
    sorts)."""
    ns = {"apiVersion": "v1", "kind": "Namespace",
          "metadata": _meta(namespace, extra={"pod-security.kubernetes.io/enforce": "restricted"})}
    sa = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(SERVICE_ACCOUNT, namespace)}
    manager = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
               "metadata": _meta(MANAGER_ROLE), "rules": manager_rules()}
    leader = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
              "metadata": _meta(LEADER_ROLE, namespace), "rules": leader_election_rules()}
    return [
        ns,
        sa,
        manager,
        _binding("ClusterRoleBinding", MANAGER_BINDING, "ClusterRole", MANAGER_ROLE, None, namespace),
        leader,
        _binding("RoleBinding", LEADER_BINDING, "Role", LEADER_ROLE, namespace, namespace),
        _experiment_role(EDITOR_ROLE, RW, ["get"]),
        _experiment_role(VIEWER_ROLE, READ, ["get"]),
        *metrics_objects(namespace),
        deployment(image, namespace),
    ]
