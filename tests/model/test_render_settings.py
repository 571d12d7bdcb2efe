"""The table of render settings is the one declaration: every place that takes render settings agrees with it."""

from __future__ import annotations

import dataclasses

import yaml

from kubectl_testbench.cli.render_options import RenderArgs
from kubectl_testbench.integrations import krm
from kubectl_testbench.model.render_settings import (
    BY_NAME,
    CLI_SETTINGS,
    DEFAULTS_FILE_SETTINGS,
    FLAG_SETTINGS,
    parse_port,
    plugin_parameters,
)
from kubectl_testbench.render.settings import Defaults, Flags
from tests.conftest import ROOT

PLUGIN = ROOT / "integrations" / "argocd" / "plugin.yaml"
LIMITS = ("jobs", "max_file_mib", "max_depth", "max_nodes")


def test_the_committed_argocd_plugin_announces_what_the_table_generates() -> None:
    committed = yaml.safe_load(PLUGIN.read_text())["spec"]["parameters"]["static"]
    assert committed == plugin_parameters()


def test_render_flags_defaults_and_command_line_fields_are_the_tables() -> None:
    assert [f.name for f in dataclasses.fields(Flags)] == ["namespace", *(s.name for s in FLAG_SETTINGS)]
    assert {f.name for f in dataclasses.fields(Defaults)} == {*(s.name for s in DEFAULTS_FILE_SETTINGS), "source"}
    assert [f.name for f in dataclasses.fields(RenderArgs)] == [*(s.name for s in CLI_SETTINGS), *LIMITS]


def test_krm_keys_come_from_the_table() -> None:
    assert krm.CONFIG_KEYS == ("mode", "namespace", "testkube-namespace", "agent-url", "ai-gateway-url", "agent-port",
                               "ai-gateway-port", "include-experiment", "argocd-sync-waves", "strict")
    assert {BY_NAME[n].krm_key for n in ("agent_port", "gateway_port")} == set(krm.PORT_KEYS)


def test_one_port_range() -> None:
    assert [parse_port(t) for t in ("0", "1", "80", "65535", "65536", "-1", "8o", "")] == \
        [None, 1, 80, 65535, None, None, None, None]


def test_a_defaults_file_spec_is_read_at_the_tables_keys() -> None:
    spec = {"testkubeNamespace": "qa", "agentPort": 9000, "agentUrl": "http://{name}", "argocdSyncWaves": True,
            "aiGateway": {"name": "gw", "namespace": "ns", "port": 81, "url": "http://x",
                          "apiKeySecretRef": {"name": "s", "key": "k"}}, "env": [{"name": "A", "value": "1"}]}
    assert Defaults.from_spec(spec, "f.yaml") == Defaults(
        testkube_namespace="qa", agent_port=9000, agent_url="http://{name}", gateway_name="gw", gateway_namespace="ns",
        gateway_port=81, gateway_url="http://x", gateway_api_key_secret=("s", "k"),
        env=({"name": "A", "value": "1"},), argocd_sync_waves=True, source="f.yaml")
    assert Defaults.from_spec({}, "f.yaml") == Defaults(source="f.yaml")
