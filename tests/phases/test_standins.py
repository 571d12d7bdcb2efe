"""Each stand-in is spoken to by the real client of its protocol, so the phase tests rest on honest stand-ins."""

from __future__ import annotations

import asyncio
import json
import subprocess
import urllib.request
from uuid import uuid4

import httpx
import pytest
from a2a.client.client import ClientConfig
from a2a.client.client_factory import ClientFactory, minimal_agent_card
from a2a.types import DataPart, Message, Part, Role, TaskState, TextPart
from openai import OpenAI
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource

from kubectl_testbench.phases.env import Env
from tests.phases.a2a_agent import TOOL, TOOL_ARGS, A2AAgentStandIn, answer_for
from tests.phases.judge import SCORE, JudgeStandIn, find_schema, instance
from tests.phases.otlp import OtlpStandIn
from tests.phases.s3 import PASSWORD, USER, S3StandIn
from tests.phases.static import StaticStandIn


def test_a2a_agent_stand_in_answers_the_a2a_client_with_a_task_holding_a_tool_call(agent: A2AAgentStandIn) -> None:
    """The a2a-sdk client, built exactly as the run phase builds it (minimal card, JSON-RPC at the URL)."""

    async def send() -> object:
        async with httpx.AsyncClient(timeout=30) as http:
            client = ClientFactory(ClientConfig(httpx_client=http)).create(minimal_agent_card(agent.url))
            message = Message(role=Role.user, parts=[Part(root=TextPart(text="Weather in Paris?"))],
                              message_id=uuid4().hex)
            replies = [reply async for reply in client.send_message(message)]
        assert len(replies) == 1 and isinstance(replies[0], tuple)
        return replies[0][0]

    task = asyncio.run(send())
    assert agent.url.startswith("http://127.0.0.1:")
    assert task.status.state == TaskState.completed  # type: ignore[attr-defined]
    history = task.history  # type: ignore[attr-defined]
    assert [m.role for m in history] == [Role.user, Role.agent, Role.agent, Role.agent]
    call, result, final = (m.parts[0].root for m in history[1:])
    assert isinstance(call, DataPart) and call.data == {"name": TOOL, "args": TOOL_ARGS}
    assert isinstance(result, DataPart) and set(result.data) == {"name", "response"}
    assert isinstance(final, TextPart) and final.text == answer_for("Weather in Paris?")
    assert agent.executor.inputs == ["Weather in Paris?"]


def test_judge_stand_in_answers_the_openai_sdk_with_an_instance_of_the_schema(judge: JudgeStandIn) -> None:
    schema = {"properties": {"verdict": {"type": "integer"}, "reason": {"type": "string"},
                             "items": {"type": "array", "items": {"$ref": "#/$defs/S"}}},
              "required": ["verdict", "reason", "items"], "type": "object",
              "$defs": {"S": {"properties": {"score": {"type": "number", "minimum": 0, "maximum": 1}},
                              "type": "object"}}}
    client = OpenAI(base_url=judge.base_url, api_key="testbench", max_retries=0)
    reply = client.chat.completions.create(model="gemini-2.5-flash-lite", response_format={"type": "json_object"},
                                           messages=[{"role": "system", "content": "match the following "
                                                      f"json_schema:\n\n{json.dumps(schema)}\n\nMake sure"},
                                                     {"role": "user", "content": "Is it sunny?"}])
    answer = json.loads(reply.choices[0].message.content or "")
    assert answer == {"verdict": 1, "reason": answer["reason"], "items": [{"score": SCORE}]}
    assert judge.authorizations == ["Bearer testbench"]
    assert judge.requests[0]["path"] == "/v1/chat/completions"


def test_judge_stand_in_schema_helpers_cover_refs_unions_enums_and_bounds() -> None:
    assert find_schema([{"role": "user", "content": "no schema here"}]) is None
    assert find_schema([{"role": "system", "content": [{"type": "text", "text": 'json_schema: {"type": "object"}'}]}]
                       ) == {"type": "object"}
    assert instance({"anyOf": [{"type": "null"}, {"enum": ["yes", "no"]}]}) == "yes"
    assert instance({"type": "integer", "minimum": 2, "maximum": 5}) == 2
    assert instance({"type": "number", "maximum": 0.5}) == 0.5
    assert instance({"type": "array", "items": {"type": "boolean"}, "minItems": 2}) == [True, True]


def test_otlp_stand_in_decodes_what_the_otlp_http_exporter_sends(otlp: OtlpStandIn) -> None:
    reader = PeriodicExportingMetricReader(OTLPMetricExporter(endpoint=f"{otlp.url}/v1/metrics"),
                                           export_interval_millis=3_600_000)
    provider = MeterProvider(resource=Resource.create({"service.name": "stand-in-test"}), metric_readers=[reader])
    gauge = provider.get_meter("test").create_gauge("testbench_evaluation_metric")
    gauge.set(0.75, {"name": "ToolCallAccuracy", "step_index": "0"})
    assert provider.force_flush()
    provider.shutdown()
    assert otlp.metric_requests == 1
    [point] = otlp.gauges
    assert (point.metric, point.value) == ("testbench_evaluation_metric", 0.75)
    assert point.attributes == {"name": "ToolCallAccuracy", "step_index": "0"}
    assert point.resource["service.name"] == "stand-in-test"


def test_static_stand_in_serves_its_files_to_urllib(static_server: StaticStandIn) -> None:
    static_server.files["/d/experiment.json"] = b'{"scenarios": []}'
    with urllib.request.urlopen(f"{static_server.url}/d/experiment.json?x=1") as response:
        assert response.read() == b'{"scenarios": []}'
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{static_server.url}/nothing")
    assert missing.value.code == 404
    assert static_server.requested == ["/d/experiment.json?x=1", "/nothing"]


BOTO3_ROUND_TRIP = """
import sys, boto3
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3],
                  region_name="us-east-1", config=Config(signature_version="s3v4"))
s3.create_bucket(Bucket="datasets")
s3.put_object(Bucket="datasets", Key="k/experiment.json", Body=b"{}")
print(s3.get_object(Bucket="datasets", Key="k/experiment.json")["Body"].read().decode(), boto3.__version__)
"""


def test_s3_stand_in_round_trips_an_object_with_the_phase_images_boto3(s3: S3StandIn, phase_env: Env) -> None:
    """boto3 as the phase image pins it (1.43.89, in the phase environment), configured as the setup phase does."""
    done = subprocess.run([str(phase_env.python), "-c", BOTO3_ROUND_TRIP, s3.url, USER, PASSWORD],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["{}", "1.43.89"]
    assert s3.url.startswith("http://127.0.0.1:")
