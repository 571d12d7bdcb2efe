"""The Experiment custom resource (testbench.agentic-layer.ai/v1alpha1).

Field names, required fields, bounds, enums and the cron pattern follow the upstream CRD exactly, so an
Experiment that our validator accepts is one the in-cluster API server accepts too.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import ConfigDict, Field

from kubectl_testbench.model.base import KubeModel
from kubectl_testbench.model.cel_rules import DATASET_EXACTLY_ONE
from kubectl_testbench.model.constants import CRON_PATTERN
from kubectl_testbench.model.k8s import Condition, EnvVar, ObjectReference
from kubectl_testbench.model.schema_meta import PRESERVE_UNKNOWN, CelRule, K8s

Threshold = Annotated[float, Field(ge=0, le=1)]


class AgentRef(KubeModel):
    """Reference to the Agent to evaluate"""

    name: str
    """Name of the Agent resource"""
    namespace: str | None = None
    """Namespace of the Agent resource"""


class ToolCall(KubeModel):
    """ToolCall represents an expected tool invocation"""

    args: Annotated[Any, PRESERVE_UNKNOWN] = None
    """Arguments passed to the tool (JSON object)"""
    name: str
    """Name of the tool"""


class Reference(KubeModel):
    """Expected reference data for evaluation"""

    response: str | None = None
    """Expected response text"""
    retrieved_contexts: list[str] | None = None
    """Retrieved contexts supplied to context-based metrics (e.g., RAGAS Faithfulness)"""
    tool_calls: list[ToolCall] | None = None
    """Expected tool calls"""
    topics: list[str] | None = None
    """Expected topics to be covered"""


class Metric(KubeModel):
    """Metric defines a single metric evaluation configuration"""

    metric_name: str
    """Name of the metric: a RAGAS metric class name (e.g., "AnswerRelevancy", "ToolCallAccuracy")"""
    parameters: Annotated[Any, PRESERVE_UNKNOWN] = None
    """Additional parameters for the metric"""
    threshold: Threshold | None = None
    """Threshold for pass/fail (0.0-1.0)"""


class Step(KubeModel):
    """Step represents a single test step within a scenario"""

    custom_values: Annotated[Any, PRESERVE_UNKNOWN] = None
    """Custom key-value pairs (e.g., retrieved_contexts)"""
    input: str
    """User input to the agent"""
    metrics: list[Metric] | None = None
    """Metrics to evaluate for this step"""
    reference: Reference | None = None
    """Expected reference data for evaluation"""


class Scenario(KubeModel):
    """Scenario represents a test scenario containing multiple steps"""

    name: str
    """Name of the scenario"""
    steps: Annotated[list[Step], Field(min_length=1)]
    """Steps in this scenario"""


class InlineDataset(KubeModel):
    """Inline dataset with scenarios"""

    default_threshold: Threshold | None = None
    """Default threshold for all metrics (0.0-1.0)"""
    llm_as_a_judge_model: str | None = None
    """LLM model used for evaluation (e.g., "gemini-2.5-flash-lite")"""
    scenarios: Annotated[list[Scenario], Field(min_length=1)]
    """Test scenarios"""


class S3Source(KubeModel):
    """S3 source configuration"""

    bucket: str
    """Bucket name"""
    key: str
    """Object key (path to file)"""


class Dataset(KubeModel):
    """Source of the test dataset"""

    cel_rules: ClassVar[tuple[CelRule, ...]] = (DATASET_EXACTLY_ONE,)
    inline: InlineDataset | None = None
    """Inline dataset with scenarios"""
    s3: S3Source | None = None
    """S3 source configuration"""
    url: str | None = None
    """URL source (HTTP/HTTPS)"""

    @property
    def mode(self) -> Literal["inline", "s3", "url"]:
        """Which of the three sources is set (validation guarantees exactly one)."""
        if self.inline is not None:
            return "inline"
        if self.s3 is not None:
            return "s3"
        return "url"


class Schedule(KubeModel):
    """Schedule configures cron-based execution of the experiment workflow.
Independent of trigger (event-based execution)."""

    cron: Annotated[str, Field(pattern=CRON_PATTERN)]
    """Cron expression (standard Kubernetes cron format, e.g., "0 3 * * *")"""
    timezone: str | None = None
    """IANA timezone name (e.g., "Europe/Berlin"). Defaults to cluster local time."""


class Trigger(KubeModel):
    """Trigger configuration"""

    concurrency_policy: Literal["Allow", "Forbid", "Replace"] | None = None
    """ConcurrencyPolicy defines how concurrent executions are handled"""
    enabled: bool | None = None
    """Enabled controls whether the experiment runs automatically: when true, the workflow re-runs on every rollout of the agent (each change to its Deployment, once the new pods are available), through a Testkube TestTrigger; a schedule, if set, runs as well."""


class ExperimentSpec(KubeModel):
    """ExperimentSpec defines the desired state of Experiment"""

    agent_ref: AgentRef
    """Reference to the Agent to evaluate"""
    ai_gateway_ref: ObjectReference | None = None
    """AiGatewayRef references an AiGateway resource for LLM access during evaluation.
Only Name and Namespace fields are used."""
    dataset: Dataset
    """Source of the test dataset"""
    env: list[EnvVar] | None = None
    """Env defines environment variables to inject into the TestWorkflow containers.
Uses the standard Kubernetes EnvVar schema (supports value, valueFrom with secretKeyRef, configMapKeyRef, etc.).
User-defined env vars override any operator-set vars with the same name."""
    schedule: Schedule | None = None
    """Schedule configures cron-based execution of the experiment workflow.
Independent of trigger (event-based execution)."""
    trigger: Trigger | None = None
    """Trigger configuration"""


class GeneratedResource(KubeModel):
    """GeneratedResource represents a Kubernetes resource created by this Experiment"""

    kind: str
    """Kind of the resource (e.g., "TestWorkflow")"""
    name: str
    """Name of the resource"""
    namespace: str | None = None
    """Namespace of the resource"""


class LastExecution(KubeModel):
    """LastExecution contains metadata about the most recent execution"""

    end_time: Annotated[str | None, K8s(format="date-time")] = None
    """EndTime of the execution"""
    execution_id: str | None = None
    """ExecutionID from Testkube"""
    execution_number: int | None = None
    """ExecutionNumber from Testkube"""
    start_time: Annotated[str | None, K8s(format="date-time")] = None
    """StartTime of the execution"""
    status: str | None = None
    """Status of the execution"""


class ExperimentStatus(KubeModel):
    """ExperimentStatus defines the observed state of Experiment"""

    conditions: list[Condition] | None = None
    """Conditions represent the latest available observations of the Experiment's state"""
    generated_resources: list[GeneratedResource] | None = None
    """GeneratedResources lists Kubernetes resources created by this Experiment"""
    last_execution: LastExecution | None = None
    """LastExecution contains metadata about the most recent execution"""


class ObjectMeta(KubeModel):
    """Standard object metadata; the parts render uses. The API server owns the rest."""

    model_config = ConfigDict(**{**KubeModel.model_config, "extra": "allow"})
    name: str
    """Name of the Experiment; the generated Testkube resources are named after it."""
    namespace: str | None = None
    """Namespace of the Experiment; the agent is looked up here unless agentRef.namespace is set."""
    labels: dict[str, str] | None = None
    """Map of string keys and values that can be used to organize and categorize objects."""
    annotations: dict[str, str] | None = None
    """Unstructured key value map; testbench.agentic-layer.ai/* annotations tune render."""


class Experiment(KubeModel):
    """Experiment is the Schema for the experiments API"""

    api_version: Literal["testbench.agentic-layer.ai/v1alpha1"] = "testbench.agentic-layer.ai/v1alpha1"
    """APIVersion defines the versioned schema of this representation of an object.
Servers should convert recognized schemas to the latest internal value, and
may reject unrecognized values.
More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"""
    kind: Literal["Experiment"] = "Experiment"
    """Kind is a string value representing the REST resource this object represents.
Servers may infer this from the endpoint the client submits requests to.
Cannot be updated.
In CamelCase.
More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"""
    metadata: ObjectMeta
    spec: ExperimentSpec
    """ExperimentSpec defines the desired state of Experiment"""
    status: ExperimentStatus | None = None
    """ExperimentStatus defines the observed state of Experiment"""
