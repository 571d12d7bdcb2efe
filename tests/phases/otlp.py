"""Stand-in for the OTLP/HTTP collector: decodes ``/v1/metrics`` and ``/v1/traces`` with opentelemetry-proto.

The publish phase exports one protobuf ``ExportMetricsServiceRequest`` at its final flush; the run phase's span
exporter posts ``ExportTraceServiceRequest``s. The stand-in keeps every gauge data point (metric name, value,
attributes, resource attributes) and every span name, and answers 200 with an empty protobuf response.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.phases.standin_http import QuietHandler, StandInServer


@dataclass(frozen=True)
class GaugePoint:
    metric: str
    value: float
    attributes: dict[str, Any]
    resource: dict[str, Any]


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


def _attributes(items: Any) -> dict[str, Any]:
    return {item.key: _value(item.value) for item in items}


class OtlpHandler(QuietHandler):
    def do_POST(self) -> None:
        receiver: OtlpStandIn = self.server.standin  # type: ignore[attr-defined]
        body = self.body()
        if self.headers.get("Content-Encoding") == "gzip":
            import gzip

            body = gzip.decompress(body)
        if self.path == "/v1/metrics":
            request = ExportMetricsServiceRequest.FromString(body)
            with receiver.lock:
                receiver.metric_requests += 1
                for rm in request.resource_metrics:
                    resource = _attributes(rm.resource.attributes)
                    for sm in rm.scope_metrics:
                        for metric in sm.metrics:
                            for point in metric.gauge.data_points:
                                value = point.as_double if point.HasField("as_double") else float(point.as_int)
                                receiver.gauges.append(GaugePoint(metric.name, value,
                                                                  _attributes(point.attributes), resource))
            self.reply(200, ExportMetricsServiceResponse().SerializeToString(), "application/x-protobuf")
        elif self.path == "/v1/traces":
            traces = ExportTraceServiceRequest.FromString(body)
            with receiver.lock:
                receiver.spans.extend(span.name for rs in traces.resource_spans for ss in rs.scope_spans
                                      for span in ss.spans)
            self.reply(200, ExportTraceServiceResponse().SerializeToString(), "application/x-protobuf")
        else:
            self.reply(404, b"", "text/plain")


class OtlpStandIn(StandInServer):
    """Stand-in OTLP/HTTP receiver; ``url`` is what ``OTEL_EXPORTER_OTLP_ENDPOINT`` must be set to."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.gauges: list[GaugePoint] = []
        self.spans: list[str] = []
        self.metric_requests = 0
        super().__init__(OtlpHandler)
