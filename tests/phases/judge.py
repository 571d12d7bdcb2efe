"""Stand-in for the LLM judge: an OpenAI-compatible ``POST /v1/chat/completions`` on 127.0.0.1.

ragas 0.4.3 drives the judge through instructor in JSON mode: the system message carries the JSON schema of
the answer it expects (``... match the following json_schema: {...}``) and the reply must be an instance of it
in ``choices[0].message.content``. The stand-in finds that schema and answers with a valid instance holding
plausible values (verdicts 1, scores 0.85, one item per list), so every metric that reaches the judge gets a
real number. It records each request's ``Authorization`` header and parsed body for the test to check.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from tests.phases.standin_http import QuietHandler, StandInServer

SCORE = 0.85
"""What the stand-in answers where the schema asks for a number: plausible, above the usual thresholds."""


def find_schema(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first JSON object after ``json_schema`` in any message (instructor puts it in the system message)."""
    decoder = json.JSONDecoder()
    for message in messages:
        content = message.get("content")
        texts = [content] if isinstance(content, str) else [
            part.get("text", "") for part in content or [] if isinstance(part, dict)]
        for text in texts:
            at = text.find("json_schema")
            start = text.find("{", at) if at >= 0 else -1
            if start >= 0:
                try:
                    schema, _ = decoder.raw_decode(text, start)
                except json.JSONDecodeError:
                    continue
                if isinstance(schema, dict):
                    return schema
    return None


_POSITIVE = ("1", 1, "yes", "true", "pass", "correct")
_NEGATIVE_FLAG = re.compile(r"refus|hallucinat|contradict|error|irrelevant|noncommittal|^not_|_not_", re.IGNORECASE)


def instance(schema: dict[str, Any], defs: dict[str, Any] | None = None, name: str = "") -> Any:
    """A valid instance of a (pydantic-generated) JSON schema, with plausible judge values: a good answer
    (verdict "1", topics on topic, nothing refused), so metrics score high rather than a degenerate 0."""
    defs = defs if defs is not None else {**schema.get("$defs", {}), **schema.get("definitions", {})}
    if "$ref" in schema:
        return instance(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, name)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"] or schema[key]
            return instance(options[0], defs, name)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return next((v for v in _POSITIVE if v in schema["enum"]), schema["enum"][0])
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object":
        return {key: instance(sub, defs, key) for key, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return [instance(schema.get("items", {}), defs, name) for _ in range(max(1, schema.get("minItems", 1)))]
    if kind == "integer":  # the best rating the field's description offers ("Accuracy rating (0, 2, or 4)")
        low, high = schema.get("minimum", 0), schema.get("maximum", 10**9)
        offered = [n for n in map(int, re.findall(r"\b\d+\b", schema.get("description", ""))) if low <= n <= high]
        return max(offered) if offered else (1 if low <= 1 <= high else low)
    if kind == "number":
        return min(max(SCORE, schema.get("minimum", 0.0)), schema.get("maximum", 1.0))
    if kind == "boolean":
        return not _NEGATIVE_FLAG.search(name)
    return "The stand-in judge finds the answer correct and on topic."


class JudgeHandler(QuietHandler):
    def do_POST(self) -> None:
        judge: JudgeStandIn = self.server.standin  # type: ignore[attr-defined]
        request = json.loads(self.body() or b"{}")
        with judge.lock:
            judge.authorizations.append(self.headers.get("Authorization"))
            judge.requests.append({"path": self.path, "body": request})
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.reply(404, b'{"error": {"message": "the stand-in judge serves chat/completions only"}}')
            return
        schema = find_schema(request.get("messages", []))
        content = json.dumps(instance(schema)) if schema is not None else "The stand-in judge agrees."
        answer = {
            "id": f"chatcmpl-standin-{len(judge.requests)}", "object": "chat.completion", "created": 0,
            "model": request.get("model") or "stand-in",
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }
        self.reply(200, json.dumps(answer).encode())


class JudgeStandIn(StandInServer):
    """Stand-in OpenAI-compatible judge; ``base_url`` is what ``OPENAI_BASE_URL`` must be set to."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.authorizations: list[str | None] = []
        self.requests: list[dict[str, Any]] = []
        super().__init__(JudgeHandler)

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"
