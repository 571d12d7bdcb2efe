"""Latency of ``kubectl testbench lsp`` over real stdio (pygls' client): diagnostics after an edit, hover.

    python benchmarks/lsp_latency.py            # 50 edits on 2,000 lines, 7 bursts, 50 hovers on 20,000 lines
    python benchmarks/lsp_latency.py --quick    # 6 edits, 2 bursts, 5 hovers (CI: proves the script works)

The document is a 2,000-line Experiment from benchmarks/corpus.py with an AI gateway (no findings). Each
edit is one incremental ``didChange`` that flips the case of one metric name (``ToolCallAccuracy`` ↔
``toolCallAccuracy``), so every other version has a ``semantic/unknown-metric`` finding with a fix (the
server places the fix in the text only when code actions ask for it). Latency is wall time from writing
``didChange`` to receiving ``publishDiagnostics`` for that version; the edits that produce the fixable
finding are also reported on their own.

Debounce as shipped (``--debounce-ms 150``): the first change after a pause is validated at once, changes
within 150 ms of the previous one wait for the window. The warm figure sends each edit after a pause longer
than the window (type, stop, look: the latency a user waits for), so the debounce adds nothing to it; a burst
types 10 keystrokes 30 ms apart and is measured from the last keystroke to the diagnostics of the last
version, so it includes the window; the burst figure is the median over several bursts. Cold: a fresh
process, ``didOpen`` to the first diagnostics. Floor: the engine itself, ``validate_text`` on the same
versions in a fresh process (warm, Python's default collector settings, fixes left unplaced as the server
leaves them), so the ratio is what the server adds (JSON-RPC, pipes, placing ranges) or saves (it tunes the
collector once the engine is loaded: see ``lsp/server.py: settle_memory``).

Hover: a 20,000-line Experiment of the same kind; each hover is on the last ``metricName`` key of the file,
after an edit of that line (the metric's case flipped) whose diagnostics have arrived: ``textDocument/hover``
request → response. The first hover after opening reads every line above the cursor and is reported apart.

The machine's load average is printed with the figures: on a shared machine they are comparable only
between runs of similar load.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from corpus import _step, experiment  # noqa: E402

LINES = 2000
HOVER_LINES = 20_000
DEBOUNCE_MS = 150
TARGET_P95_MS = 50.0
METRIC = "metricName: ToolCallAccuracy"


def document(lines: int = LINES) -> str:
    """An Experiment of at least ``lines`` lines (the first step count that reaches them), valid, with a
    gateway for the judge."""
    from kubectl_testbench.emit.yamlout import dump

    data = experiment(0, steps_total=100)
    data["spec"]["aiGatewayRef"] = {"name": "ai-gateway", "namespace": "ai-gateway"}
    steps = data["spec"]["dataset"]["inline"]["scenarios"][0]["steps"]
    rng = random.Random(7)
    text: str = dump(data)
    base, count = len(text.splitlines()), len(steps)
    while len(text.splitlines()) < lines:
        # many steps at a time while far from the target (at most half the gap at the mean step's size, undone
        # if it reaches the target anyway), then one at a time: the same document as adding them one by one
        size = max(1.0, (len(text.splitlines()) - base) / (len(steps) - count)) if len(steps) > count else 50.0
        batch = max(1, int((lines - len(text.splitlines())) / 2 / size))
        state = rng.getstate()
        steps.extend(_step(rng) for _ in range(batch))
        grown: str = dump(data)
        if batch > 1 and len(grown.splitlines()) >= lines:
            del steps[len(steps) - batch:]
            rng.setstate(state)
            steps.append(_step(rng))
            grown = dump(data)
        text = grown
    return text


class _Client:
    def __init__(self) -> None:
        from lsprotocol import types as t
        from pygls.lsp.client import LanguageClient

        self.t = t
        self.client = LanguageClient("lsp-latency", "1")
        self.arrived: dict[int | None, float] = {}
        self.codes: dict[int | None, list[str]] = {}
        self.event = asyncio.Event()

        @self.client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: Any) -> None:
            self.arrived.setdefault(params.version, time.perf_counter())
            self.codes[params.version] = [str(d.code) for d in params.diagnostics]
            self.event.set()

    async def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        await self.client.start_io(sys.executable, "-m", "kubectl_testbench", "lsp", "--debounce-ms",
                                   str(DEBOUNCE_MS), env=env)
        await self.client.initialize_async(self.t.InitializeParams(capabilities=self.t.ClientCapabilities()))
        self.client.initialized(self.t.InitializedParams())

    async def wait(self, version: int) -> float:
        while version not in self.arrived:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), 60)
        return self.arrived[version]

    def open(self, uri: str, text: str) -> None:
        t = self.t
        self.client.text_document_did_open(t.DidOpenTextDocumentParams(t.TextDocumentItem(uri, "yaml", 1, text)))

    def change(self, uri: str, version: int, line: int, character: int, old: str, new: str) -> None:
        t = self.t
        change = t.TextDocumentContentChangePartial(
            range=t.Range(t.Position(line, character), t.Position(line, character + len(old))), text=new)
        self.client.text_document_did_change(t.DidChangeTextDocumentParams(
            t.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))

    async def hover(self, uri: str, line: int, character: int) -> float:
        """Seconds from the request to its answer (which must be the field's documentation)."""
        t = self.t
        sent = time.perf_counter()
        found = await self.client.text_document_hover_async(t.HoverParams(t.TextDocumentIdentifier(uri),
                                                                          t.Position(line, character)))
        took = time.perf_counter() - sent
        assert found is not None and "metricName" in found.contents.value, found
        return took

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


def _metric_line(text: str, last: bool = False) -> tuple[int, int]:
    """(line, column of the metric's name) of the first (or last) ``metricName: ToolCallAccuracy``."""
    lines = text.splitlines()
    found = [i for i, content in enumerate(lines) if content.endswith(METRIC)]
    line = found[-1] if last else found[0]
    return line, lines[line].index("ToolCallAccuracy")


async def _measure(text: str, edits: int, bursts: int) -> dict[str, Any]:
    uri = (ROOT / "benchmarks" / "lsp-latency.yaml").as_uri()
    line, character = _metric_line(text)
    client = _Client()
    started = time.perf_counter()
    await client.start()
    client.open(uri, text)
    cold = await client.wait(1) - started
    assert client.codes[1] == [], client.codes[1]
    warm: list[float] = []
    fixable: list[float] = []
    version = 1
    flips = ("T", "t")
    pause = DEBOUNCE_MS / 1000 + 0.05
    for n in range(edits):
        await asyncio.sleep(pause)
        version += 1
        sent = time.perf_counter()
        client.change(uri, version, line, character, flips[n % 2], flips[(n + 1) % 2])
        warm.append(await client.wait(version) - sent)
        assert client.codes[version] == ([] if n % 2 else ["semantic/unknown-metric"]), client.codes[version]
        if n % 2 == 0:
            fixable.append(warm[-1])
    if edits % 2:  # back to the valid text
        version += 1
        client.change(uri, version, line, character, "t", "T")
        await client.wait(version)
    burst_times: list[float] = []
    published = 0
    for _ in range(bursts):
        await asyncio.sleep(pause)
        burst_versions = []
        for n in range(10):
            version += 1
            client.change(uri, version, line, character + 4, "Call" if n % 2 == 0 else "CALL",
                          "CALL" if n % 2 == 0 else "Call")
            last_sent = time.perf_counter()
            burst_versions.append(version)
            await asyncio.sleep(0.03)
        burst_times.append(await client.wait(version) - last_sent)
        published += sum(v in client.arrived for v in burst_versions)
    await client.stop()
    return {"cold": cold, "warm": warm, "fixable": fixable, "bursts": burst_times, "burst_published": published}


async def _measure_hover(text: str, hovers: int) -> dict[str, Any]:
    uri = (ROOT / "benchmarks" / "lsp-hover.yaml").as_uri()
    line, character = _metric_line(text, last=True)
    key = character - len("metricName: ") + 2  # on the key: "me|tricName"
    client = _Client()
    await client.start()
    client.open(uri, text)
    await client.wait(1)
    first = await client.hover(uri, line, key)
    times: list[float] = []
    version = 1
    flips = ("T", "t")
    for n in range(hovers):
        version += 1
        client.change(uri, version, line, character, flips[n % 2], flips[(n + 1) % 2])
        await client.wait(version)
        times.append(await client.hover(uri, line, key))
    await client.stop()
    return {"first": first, "hovers": times}


FLOOR_SCRIPT = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from lsp_latency import document
from kubectl_testbench.validate.engine import Options, validate_text

text = document()
flipped = text.replace("metricName: ToolCallAccuracy", "metricName: toolCallAccuracy", 1)
options = Options(place_fixes=False)  # as the server validates: fixes placed when code actions ask
validate_text(text, "lsp-latency.yaml", options)  # warm: the validator compiled, the CEL store read
times = []
for n in range(int(sys.argv[2])):
    started = time.perf_counter()
    validate_text(flipped if n % 2 == 0 else text, "lsp-latency.yaml", options)
    times.append(time.perf_counter() - started)
print(json.dumps(times))
"""


def _engine_floor(repeats: int) -> list[float]:
    """validate_text on the versions the edits produce (alternately with and without the finding), warm, in a
    fresh process of its own with Python's default collector settings, fixes unplaced as the server leaves
    them until code actions ask: what the engine costs by itself."""
    import json
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", FLOOR_SCRIPT, str(HERE), str(repeats)], capture_output=True,
                          text=True, check=True, env=env)
    times: list[float] = json.loads(done.stdout)
    return times


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]


def _ms(values: list[float]) -> list[float]:
    return [v * 1000 for v in values]


def _row(case: str, values: list[float], floor: list[float] | None = None) -> str:
    ratios = (f" {statistics.median(values) / statistics.median(floor):.2f}× | {p95(values) / p95(floor):.2f}× |"
              if floor else " - | - |")
    return f"| {case} | {statistics.median(values):.1f} | {p95(values):.1f} | {max(values):.1f} |" + ratios


def load_average() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def measure(quick: bool = False) -> str:
    """The report section (Markdown)."""
    edits, bursts, hovers = (6, 2, 5) if quick else (50, 7, 50)
    load_before = load_average()
    text = document()
    result = asyncio.run(_measure(text, edits, bursts))
    floor = _ms(_engine_floor(edits))
    warm, fixable, burst = _ms(result["warm"]), _ms(result["fixable"]), _ms(result["bursts"])
    big = document(HOVER_LINES)
    hovered = asyncio.run(_measure_hover(big, hovers))
    hover_times = _ms(hovered["hovers"])
    big_lines = len(big.splitlines())
    lines = [
        "## Language server: diagnostics after an edit, hover", "",
        f"`kubectl testbench lsp --debounce-ms {DEBOUNCE_MS}` over stdio, pygls' client, a "
        f"{len(text.splitlines())}-line Experiment ({len(text.encode()) // 1024} KiB). Warm = {edits} "
        "single-character edits, each after a pause longer than the debounce window (answered at once), "
        "didChange → publishDiagnostics; every other one produces a finding with a fix (its own row). "
        f"Burst = 10 keystrokes 30 ms apart, last keystroke → diagnostics of the last version (includes the "
        f"debounce window), over {bursts} bursts. "
        "Floor = the engine's validate_text on the same versions, warm, in a fresh process, fixes left "
        "unplaced as the server leaves them until code actions ask. Hover = "
        f"textDocument/hover on the last metricName key of a {big_lines}-line Experiment, each after an edit "
        "of that line whose diagnostics have arrived.", "",
        f"Load average (1 / 5 / 15 min) when the run started: {load_before}; when it ended: {load_average()} "
        f"({os.cpu_count()} CPUs).", "",
        "| case | p50 ms | p95 ms | max ms | p50 vs floor | p95 vs floor |", "|---|---:|---:|---:|---:|---:|",
        _row(f"warm edit ({edits})", warm, floor),
        _row(f"warm edit with a fixable finding ({len(fixable)})", fixable, floor),
        _row(f"burst of 10 keystrokes, last one ({bursts} bursts)", burst),
        f"| cold: start, didOpen → first diagnostics | {result['cold'] * 1000:.0f} | - | - | - | - |",
        _row(f"floor: validate_text ({edits})", floor, floor),
        _row(f"hover at the end of {big_lines} lines, after an edit ({hovers})", hover_times),
        f"| first hover after didOpen, end of {big_lines} lines | {hovered['first'] * 1000:.1f} | - | - | - | - |",
        "",
        f"The bursts published {result['burst_published']} of their {10 * bursts} versions "
        "(the rest were coalesced).",
    ]
    if not quick:
        rows = [(f"diagnostics ≤ {TARGET_P95_MS:g} ms after an edit, p95 over {edits} warm edits", p95(warm)),
                (f"hover ≤ {TARGET_P95_MS:g} ms at the end of {big_lines} lines, p95 over {hovers}",
                 p95(hover_times))]
        lines += ["", "| target | measured | met |", "|---|---|---|"]
        lines += [f"| {name} | {value:.1f} ms | {'yes' if value <= TARGET_P95_MS else 'NO'} |" for name, value in rows]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="5 edits, no target")
    args = parser.parse_args()
    print(measure(args.quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
