"""Deterministic corpora of realistic Experiments for the benchmarks (seeded, so every run sees the same bytes)."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kubectl_testbench.emit.yamlout import dump

TOPICS = ["billing", "refunds", "shipping", "weather", "travel", "orders", "accounts", "privacy", "returns"]
TOOLS = ["get_weather", "create_refund", "lookup_order", "search_docs", "book_flight", "send_email"]
WORDS = ("please could you tell me what the status of my order is and whether it will arrive before friday "  # noqa: SIM905
         "the agent should answer politely and mention the delivery window plus any delays").split()


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "?"


def _step(rng: random.Random) -> dict[str, Any]:
    tool = rng.choice(TOOLS)
    step: dict[str, Any] = {
        "input": _sentence(rng, rng.randint(8, 20)),
        "reference": {
            "response": _sentence(rng, rng.randint(10, 25)),
            "toolCalls": [{"name": tool, "args": {"id": str(rng.randint(1000, 9999)), "verbose": rng.random() < 0.5}}],
            "topics": rng.sample(TOPICS, 2),
        },
        "metrics": [
            {"metricName": "AgentGoalAccuracyWithReference"},
            {"metricName": "ToolCallAccuracy", "threshold": 1},
            {"metricName": "TopicAdherence", "parameters": {"mode": "precision"}},
        ],
    }
    return step


def experiment(i: int, steps_total: int | None = None) -> dict[str, Any]:
    rng = random.Random(i)
    name = f"agent-eval-{i:05d}"
    spec: dict[str, Any] = {"agentRef": {"name": f"agent-{i % 50}", "namespace": f"team-{i % 7}"}}
    mode = "inline" if steps_total else rng.choices(["inline", "s3", "url"], [7, 2, 1])[0]
    if mode == "inline":
        if steps_total:
            scenarios = [{"name": f"Scenario {s}", "steps": [_step(rng) for _ in range(100)]}
                         for s in range(steps_total // 100)]
        else:
            scenarios = [{"name": f"Scenario {s}", "steps": [_step(rng) for _ in range(rng.randint(2, 4))]}
                         for s in range(rng.randint(2, 4))]
        spec["dataset"] = {"inline": {"llmAsAJudgeModel": "gemini-2.5-flash-lite", "defaultThreshold": 0.8,
                                      "scenarios": scenarios}}
    elif mode == "s3":
        spec["dataset"] = {"s3": {"bucket": "datasets", "key": f"{name}/experiment.json"}}
    else:
        spec["dataset"] = {"url": f"https://datasets.example.com/{name}/experiment.json"}
    spec["env"] = [{"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel.monitoring:4318"},
                   {"name": "OPENAI_API_KEY", "valueFrom": {"secretKeyRef": {"name": "judge", "key": "key"}}}]
    if rng.random() < 0.4:
        spec["schedule"] = {"cron": f"{rng.randint(0, 59)} {rng.randint(0, 23)} * * *", "timezone": "Europe/Berlin"}
    if rng.random() < 0.3:
        spec["trigger"] = {"enabled": True, "concurrencyPolicy": "Forbid"}
    return {"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment",
            "metadata": {"name": name, "namespace": f"team-{i % 7}"}, "spec": spec}


def write_corpus(directory: Path, count: int) -> list[Path]:
    """``count`` Experiment files in ``directory`` (reused when already complete)."""
    directory.mkdir(parents=True, exist_ok=True)
    files = [directory / f"exp-{i:05d}.yaml" for i in range(count)]
    marker = directory / ".complete"
    if not marker.exists():
        for i, path in enumerate(files):
            path.write_text(dump(experiment(i)))
        marker.write_text(str(count))
    return files


def write_fixable_corpus(directory: Path, count: int, every: int = 10) -> list[Path]:
    """The same Experiments as :func:`write_corpus`, every ``every``-th one with two findings ``fix`` repairs
    (``creationTimestamp: null`` from a dry-run and a ``status`` section), as a repository in need of fixing."""
    directory.mkdir(parents=True, exist_ok=True)
    files = [directory / f"exp-{i:05d}.yaml" for i in range(count)]
    marker = directory / ".complete"
    if not marker.exists():
        for i, path in enumerate(files):
            text = dump(experiment(i))
            if i % every == 0:
                text = text.replace("metadata:\n", "metadata:\n  creationTimestamp: null\n", 1) + "status: {}\n"
            path.write_text(text)
        marker.write_text(str(count))
    return files


def write_big(path: Path, steps: int) -> Path:
    """One Experiment with a ``steps``-step inline dataset."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump(experiment(0, steps_total=steps)))
    return path


def write_json(files: list[Path], directory: Path) -> list[Path]:
    """The same Experiments as JSON files (kubectl reads them with a JSON decoder)."""
    import json

    import yaml

    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for path in files:
        target = directory / (path.stem + ".json")
        if not target.exists():
            target.write_text(json.dumps(yaml.safe_load(path.read_text()), indent=2))
        out.append(target)
    return out


def write_all(directory: Path, sizes: list[int], big_steps: int, n_fix: int) -> None:
    """Every corpus of a benchmark run: ``n<size>/``, ``big-<steps>/``, ``fixable-<n_fix>/``, JSON copies of
    n100 and big."""
    corpora = {n: write_corpus(directory / f"n{n}", n) for n in sizes}
    big = write_big(directory / f"big-{big_steps}" / "experiment.yaml", big_steps)
    write_json(corpora[100], directory / "n100-json")
    write_json([big], directory / f"big-{big_steps}-json")
    write_fixable_corpus(directory / f"fixable-{n_fix}", n_fix)


if __name__ == "__main__":
    # run.py calls this in a child process: loading the big corpus grows a process by tens of MiB, and a
    # child's peak RSS as wait4 reports it starts from its parent's.
    write_all(Path(sys.argv[1]), [int(n) for n in sys.argv[4:]], int(sys.argv[2]), int(sys.argv[3]))
