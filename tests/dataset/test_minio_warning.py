"""``semantic/s3-default-minio``: an S3 Experiment whose own env and defaults file set none of the setup phase's
MINIO_* settings is warned about, located at spec.dataset.s3; a defaults file that sets one drops it, in validate
and in the front-ends that have the defaults file in hand (KRM, Argo CD)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_testbench.integrations.krm import check_experiment
from tests.conftest import run_process

EXPERIMENT = """apiVersion: testbench.agentic-layer.ai/v1alpha1
kind: Experiment
metadata:
  name: bot
  namespace: team-a
spec:
  agentRef: {{name: bot}}
  aiGatewayRef: {{name: ai-gateway, namespace: ai-gateway}}
{env}  dataset:
    s3:
      bucket: datasets
      key: bot/experiment.json
"""
DEFAULTS = """apiVersion: testbench.agentic-layer.ai/v1alpha1
kind: RenderDefaults
metadata: {{name: defaults}}
spec:
  env:
    - {{name: {name}, value: x}}
"""
WARNING = ("{f}:10:5: warning[semantic/s3-default-minio] spec.dataset.s3: none of MINIO_ENDPOINT, MINIO_ROOT_USER, "
           "MINIO_ROOT_PASSWORD is set: the setup phase downloads the dataset from "
           "http://testkube-minio-service-testkube.testkube:9000 with the default credentials minio/minio123")


def _warnings(path: Path) -> list[str]:
    done = run_process("validate", str(path))
    assert done.returncode == 0, done.stdout.decode()
    return [line for line in done.stdout.decode().splitlines() if "s3-default-minio" in line]


def test_an_s3_experiment_without_minio_settings_is_warned_at_its_s3_field(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(EXPERIMENT.format(env=""), encoding="utf-8")
    assert _warnings(path) == [WARNING.format(f=path)]


@pytest.mark.parametrize("name", ["MINIO_ENDPOINT", "MINIO_ROOT_USER", "MINIO_ROOT_PASSWORD"])
def test_one_setting_in_its_own_env_is_enough(tmp_path: Path, name: str) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(EXPERIMENT.format(env=f"  env:\n    - {{name: {name}, value: x}}\n"), encoding="utf-8")
    assert _warnings(path) == []


@pytest.mark.parametrize(("name", "warned"), [("MINIO_ENDPOINT", False), ("OTEL_EXPORTER_OTLP_ENDPOINT", True)])
def test_the_defaults_file_next_to_it_counts(tmp_path: Path, name: str, warned: bool) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(EXPERIMENT.format(env=""), encoding="utf-8")
    (tmp_path / "testbench-defaults.yaml").write_text(DEFAULTS.format(name=name), encoding="utf-8")
    assert bool(_warnings(path)) is warned


def test_an_inline_or_url_experiment_is_not_warned(tmp_path: Path) -> None:
    path = tmp_path / "bot.yaml"
    path.write_text(EXPERIMENT.format(env="").replace(
        "    s3:\n      bucket: datasets\n      key: bot/experiment.json\n",
        "    url: https://example.com/experiment.json\n"), encoding="utf-8")
    assert _warnings(path) == []


def test_krm_drops_it_when_its_defaults_set_minio() -> None:
    import yaml

    item = yaml.safe_load(EXPERIMENT.format(env=""))
    plain = [(r.rule, r.field_path) for r in check_experiment(item, 0, False)[1]]
    assert ("semantic/s3-default-minio", "spec.dataset.s3") in plain
    configured = [r.rule for r in check_experiment(item, 0, False, minio_default=True)[1]]
    assert "semantic/s3-default-minio" not in configured
