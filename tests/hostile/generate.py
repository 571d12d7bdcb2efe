"""Generators for hostile cases that cannot be committed as files (size, FIFOs, symlinks, stdin).

Each returns (arguments after the command, stdin bytes or None).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

VALID = (Path(__file__).parent / "corpus" / "crlf.yaml").read_bytes().replace(b"\r\n", b"\n").decode()

Generator = Callable[[Path], tuple[list[str], bytes | None]]
GENERATORS: dict[str, Generator] = {}


def generator(fn: Generator) -> Generator:
    GENERATORS[fn.__name__] = fn
    return fn


def _file(tmp: Path, name: str, content: str | bytes) -> Path:
    path = tmp / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


@generator
def deep_flow(tmp: Path) -> tuple[list[str], bytes | None]:
    return [str(_file(tmp, "deep.yaml", "[" * 100_000 + "]" * 100_000))], None


@generator
def deep_flow_1001(tmp: Path) -> tuple[list[str], bytes | None]:
    """Closed, and past the 1,000 levels where PyYAML 6.0.4's libyaml stops scanning on its own."""
    return [str(_file(tmp, "deep-1001.yaml", "[" * 1001 + "]" * 1001 + "\n"))], None


@generator
def deep_block_1100(tmp: Path) -> tuple[list[str], bytes | None]:
    text = "a:\n" + "".join("  " * i + "b:\n" for i in range(1, 1100))
    return [str(_file(tmp, "deep-block-1100.yaml", text))], None


@generator
def deep_block(tmp: Path) -> tuple[list[str], bytes | None]:
    text = "".join("  " * i + f"k{i}:\n" for i in range(300)) + "  " * 300 + "leaf\n"
    return [str(_file(tmp, "deep-block.yaml", text))], None


@generator
def too_large(tmp: Path) -> tuple[list[str], bytes | None]:
    padding = ("# " + "x" * 1000 + "\n") * (17 * 1024)
    return [str(_file(tmp, "large.yaml", VALID + padding))], None


@generator
def huge_scalar(tmp: Path) -> tuple[list[str], bytes | None]:
    return [str(_file(tmp, "huge.yaml", VALID.replace("input: Hello", "input: " + "x" * (5 * 1024 * 1024))))], None


@generator
def many_nodes(tmp: Path) -> tuple[list[str], bytes | None]:
    flow = "[" + ",".join(["0"] * 1_100_000) + "]"
    step = "            - input: Hello\n"
    text = VALID.replace(step, f"{step}              customValues: {flow}\n")
    return [str(_file(tmp, "nodes.yaml", text))], None


@generator
def many_unknown_fields(tmp: Path) -> tuple[list[str], bytes | None]:
    fields = "".join(f"  unknown{i}: {i}\n" for i in range(100_000))
    return [str(_file(tmp, "unknown.yaml", VALID + fields))], None


@generator
def many_empty_documents(tmp: Path) -> tuple[list[str], bytes | None]:
    return [str(_file(tmp, "empties.yaml", "---\n" * 100_000 + VALID))], None


@generator
def symlink_loop(tmp: Path) -> tuple[list[str], bytes | None]:
    root = tmp / "tree"
    (root / "a").mkdir(parents=True)
    (root / "a" / "loop").symlink_to(root, target_is_directory=True)
    _file(root / "a", "exp.yaml", VALID)
    return [str(root)], None


@generator
def fifo_in_directory(tmp: Path) -> tuple[list[str], bytes | None]:
    root = tmp / "tree"
    root.mkdir()
    os.mkfifo(root / "blocks-forever.yaml")
    _file(root, "exp.yaml", VALID)
    return [str(root)], None


@generator
def fifo_explicit(tmp: Path) -> tuple[list[str], bytes | None]:
    os.mkfifo(tmp / "pipe.yaml")
    return [str(tmp / "pipe.yaml")], None


@generator
def dev_zero(tmp: Path) -> tuple[list[str], bytes | None]:
    return ["/dev/zero"], None


@generator
def dangling_symlink(tmp: Path) -> tuple[list[str], bytes | None]:
    root = tmp / "tree"
    root.mkdir()
    (root / "gone.yaml").symlink_to(tmp / "nowhere.yaml")
    _file(root, "exp.yaml", VALID)
    return [str(root)], None


@generator
def stdin_binary(tmp: Path) -> tuple[list[str], bytes | None]:
    return ["-"], b"\x00\x01\x02binary"


@generator
def stdin_empty(tmp: Path) -> tuple[list[str], bytes | None]:
    return ["-"], b""


@generator
def output_dir_under_file(tmp: Path) -> tuple[list[str], bytes | None]:
    blocker = _file(tmp, "blocker", "x")
    return [str(_file(tmp, "exp.yaml", VALID)), "--output-dir", str(blocker / "out")], None


@generator
def output_dir_with_subdir(tmp: Path) -> tuple[list[str], bytes | None]:
    out = tmp / "out"
    (out / "nested").mkdir(parents=True)
    return [str(_file(tmp, "exp.yaml", VALID)), "--output-dir", str(out)], None


@generator
def output_file_is_dir(tmp: Path) -> tuple[list[str], bytes | None]:
    return ["x", "--agent", "a", "--output-file", str(tmp)], None


# --- round two (issue 28): sizes after alias expansion, long JSON strings, many large documents ------------------


def _big_alias(count: int) -> str:
    """An Experiment whose first step input is ``&big`` + 1 MiB of text and ``count`` more steps ``input: *big``."""
    steps = "".join("            - input: *big\n" for _ in range(count))
    return VALID.replace("            - input: Hello\n",
                         "            - input: &big " + "x" * (1024 * 1024) + "\n" + steps)


@generator
def alias_1mib_x1000(tmp: Path) -> tuple[list[str], bytes | None]:
    return [str(_file(tmp, "alias-1000.yaml", _big_alias(1000)))], None


@generator
def alias_1mib_x15(tmp: Path) -> tuple[list[str], bytes | None]:
    """15 aliases of 1 MiB: 16 MiB of text in all, within the limit; the dataset is too large for a ConfigMap."""
    return [str(_file(tmp, "alias-15.yaml", _big_alias(14)))], None


@generator
def alias_small_x100k(tmp: Path) -> tuple[list[str], bytes | None]:
    """100,000 aliases in a 3.6 MB file: the alias node limit alone let it through."""
    steps = "".join("            - input: *big\n" for _ in range(100_000))
    text = VALID.replace("            - input: Hello\n", "            - input: &big " + "y" * 1024 + "\n" + steps)
    return [str(_file(tmp, "alias-100k.yaml", text))], None


def _json_experiment(**spec: object) -> str:
    import json

    import yaml

    doc = yaml.safe_load(VALID)
    doc["spec"].update(spec)
    return json.dumps(doc, indent=2)


@generator
def json_url_15mib(tmp: Path) -> tuple[list[str], bytes | None]:
    """A .json Experiment whose dataset URL is 15 MiB long (read with positions for its finding)."""
    doc = _json_experiment(dataset={"url": "https://example.com/" + "a" * (15 * 1024 * 1024) + ".json"})
    return [str(_file(tmp, "long-url.json", doc))], None


@generator
def seven_large_documents(tmp: Path) -> tuple[list[str], bytes | None]:
    """Seven documents of ~300,000 nodes each: every one is under --max-nodes, the file is not."""
    flow = "[" + ",".join(["0"] * 300_000) + "]"
    step = "            - input: Hello\n"
    doc = VALID.replace(step, f"{step}              customValues: {{v: {flow}}}\n")
    return [str(_file(tmp, "seven.yaml", "---\n".join([doc] * 7)))], None


@generator
def seven_large_json_values(tmp: Path) -> tuple[list[str], bytes | None]:
    import json

    import yaml

    doc = yaml.safe_load(VALID)
    doc["spec"]["dataset"]["inline"]["scenarios"][0]["steps"][0]["customValues"] = {"v": [0] * 300_000}
    return [str(_file(tmp, "seven.json", "\n".join(json.dumps(doc) for _ in range(7))))], None


@generator
def bigint_cron(tmp: Path) -> tuple[list[str], bytes | None]:
    """A cron minute of 5,000 digits: past Python's 4,300-digit limit for int()."""
    text = VALID.replace("  agentRef:", '  schedule:\n    cron: "' + "1" * 5000 + ' * * * *"\n  agentRef:')
    return [str(_file(tmp, "bigint-cron.yaml", text))], None


@generator
def bigint_threshold(tmp: Path) -> tuple[list[str], bytes | None]:
    text = VALID.replace("      llmAsAJudgeModel", "      defaultThreshold: " + "9" * 5000 + "\n      llmAsAJudgeModel")
    return [str(_file(tmp, "bigint-threshold.yaml", text))], None


@generator
def bigint_threshold_json(tmp: Path) -> tuple[list[str], bytes | None]:
    huge = '"defaultThreshold": ' + "9" * 5000 + ', "llmAsAJudgeModel"'
    text = _json_experiment().replace('"llmAsAJudgeModel"', huge)
    return [str(_file(tmp, "bigint-threshold.json", text))], None

# --- render --output-dir: files we did not write, leftovers of an interrupted swap (hostile-output) -----------------

HEADER = "# Generated by kubectl-testbench; do not edit. Regenerate with: kubectl testbench render"


@generator
def output_dir_listing_a_user_file(tmp: Path) -> tuple[list[str], bytes | None]:
    """Our kustomization (headed) lists the user's own file: regenerating it would drop the entry."""
    out = tmp / "out"
    out.mkdir()
    _file(out, "kustomization.yaml", f"{HEADER}\nresources:\n- my-extra.yaml\n")
    _file(out, "my-extra.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n")
    return [str(_file(tmp, "exp.yaml", VALID)), "--output-dir", str(out)], None


@generator
def output_dir_with_dangling_symlink_and_fifo(tmp: Path) -> tuple[list[str], bytes | None]:
    out = tmp / "out"
    out.mkdir()
    (out / "dangling").symlink_to(tmp / "nowhere")
    os.mkfifo(out / "pipe")
    return [str(_file(tmp, "exp.yaml", VALID)), "--output-dir", str(out)], None


@generator
def output_dir_kustomization_deep_nesting(tmp: Path) -> tuple[list[str], bytes | None]:
    """Headed, so ours, but its resources are 100,000 nested lists: read as listing nothing, then regenerated."""
    out = tmp / "out"
    out.mkdir()
    _file(out, "kustomization.yaml", f"{HEADER}\nresources: " + "[" * 100_000 + "]" * 100_000 + "\n")
    return [str(_file(tmp, "exp.yaml", VALID)), "--output-dir", str(out)], None


@generator
def output_dir_interrupted_swap(tmp: Path) -> tuple[list[str], bytes | None]:
    """A run killed between the two renames: the directory is missing, the previous version is beside it."""
    backup = tmp / ".out.old-abc"
    backup.mkdir()
    _file(backup, "notes.txt", "mine")
    (tmp / ".out.new-abc").mkdir()
    return [str(_file(tmp, "exp.yaml", VALID)), "--output-dir", str(tmp / "out"), "--check"], None


@generator
def output_dir_two_backups(tmp: Path) -> tuple[list[str], bytes | None]:
    for token in ("a", "b"):
        (tmp / f".out.old-{token}").mkdir()
    return [str(_file(tmp, "exp.yaml", VALID)), "--output-dir", str(tmp / "out")], None


@generator
def output_dir_kustomization_is_a_fifo(tmp: Path) -> tuple[list[str], bytes | None]:
    """Reading its first line would block: not a regular file, so not ours, and refused as the user's."""
    out = tmp / "out"
    out.mkdir()
    os.mkfifo(out / "kustomization.yaml")
    return [str(_file(tmp, "exp.yaml", VALID)), "--output-dir", str(out)], None


@generator
def output_dir_huge_one_line_file(tmp: Path) -> tuple[list[str], bytes | None]:
    """A 600 MiB sparse file without a newline: its "first line" must not be read whole."""
    out = tmp / "out"
    out.mkdir()
    with open(out / "big.bin", "wb") as handle:
        handle.truncate(600 * 1024 * 1024)
    return [str(_file(tmp, "exp.yaml", VALID)), "--output-dir", str(out)], None


@generator
def million_empty_documents(tmp: Path) -> tuple[list[str], bytes | None]:
    """A million documents holding only a comment (blank ones are dropped unread, as kubectl drops them)."""
    return [str(_file(tmp, "empties.yaml", "# c\n---\n" * 1_000_000))], None


@generator
def million_blank_documents(tmp: Path) -> tuple[list[str], bytes | None]:
    return [str(_file(tmp, "blanks.yaml", "---\n" * 1_000_000 + VALID))], None


@generator
def million_json_values(tmp: Path) -> tuple[list[str], bytes | None]:
    return [str(_file(tmp, "values.json", "{}\n" * 1_000_000))], None


@generator
def twenty_thousand_experiments(tmp: Path) -> tuple[list[str], bytes | None]:
    docs = [VALID.replace("name: hostile", f"name: h{i}") for i in range(20_000)]
    return [str(_file(tmp, "many.yaml", "---\n".join(docs)))], None

# the cluster verbs against a misbehaving API server (area: cluster)
from tests.hostile.cluster_servers import CLUSTER_GENERATORS  # noqa: E402  (it needs nothing from here)

GENERATORS.update(CLUSTER_GENERATORS)

@generator
def many_findings(tmp: Path) -> tuple[list[str], bytes | None]:
    """300 Experiments with 250 findings each (the first 200 of each reported): 60,300 findings for one run.

    The findings are cheap to find (a list where a metric name belongs), so the run's cost is the report's."""
    metric = "                - metricName: AgentGoalAccuracyWithoutReference\n"
    documents = [VALID.replace("name: hostile", f"name: hostile-{i}")
                 .replace(metric, "".join(f"                - metricName: [{j}]\n" for j in range(250)))
                 for i in range(300)]
    return [str(_file(tmp, "many-findings.yaml", "---\n".join(documents)))], None


def _not_utf8_name(tmp: Path, text: str) -> tuple[list[str], bytes | None]:
    """A file whose name holds the byte 0xff (no UTF-8), found by walking its directory."""
    root = tmp / "tree"
    root.mkdir()
    (root / os.fsdecode(b"bad\xff.yaml")).write_text(text)
    return [str(root)], None


@generator
def not_utf8_name_valid(tmp: Path) -> tuple[list[str], bytes | None]:
    return _not_utf8_name(tmp, VALID)


@generator
def not_utf8_name_invalid(tmp: Path) -> tuple[list[str], bytes | None]:
    return _not_utf8_name(tmp, VALID.replace("name: agent\n", "name: Agent_X\n"))


@generator
def defaults_namespace_traversal(tmp: Path) -> tuple[list[str], bytes | None]:
    """A testbench-defaults.yaml whose Testkube namespace would become part of every generated file name."""
    _file(tmp, "e.yaml", VALID)
    _file(tmp, "testbench-defaults.yaml", "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: RenderDefaults\n"
          "spec:\n  testkubeNamespace: ../x\n")
    return [str(tmp), "--output-dir", str(tmp / "out")], None

# --- integrations: argocd discover, krm (stdin) -------------------------------------------------------------------

_RESOURCE_LIST = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:"


def _item(text: str) -> str:
    """``text`` (a YAML mapping) as the item of a ResourceList."""
    return "\n".join(("- " if i == 0 else "  ") + line for i, line in enumerate(text.splitlines())) + "\n"


@generator
def krm_deep_flow(tmp: Path) -> tuple[list[str], bytes | None]:
    return [], f"{_RESOURCE_LIST} {'[' * 100_000}{']' * 100_000}\n".encode()


@generator
def krm_deep_item(tmp: Path) -> tuple[list[str], bytes | None]:
    """An item as deep as --max-depth allows: ruamel.yaml writes it back (it recursed past 1,000 frames)."""
    thing = "apiVersion: v1\nkind: Thing\nmetadata: {name: deep}\nspec: " + "[" * 253 + "]" * 253
    return [], f"{_RESOURCE_LIST}\n{_item(thing)}".encode()


@generator
def krm_deep_origin(tmp: Path) -> tuple[list[str], bytes | None]:
    origin = "config.kubernetes.io/origin: 'path: " + "[" * 100_000 + "]" * 100_000 + "'"
    experiment = VALID.replace("  namespace: agents\n", f"  namespace: agents\n  annotations:\n    {origin}\n")
    return [], f"{_RESOURCE_LIST}\n{_item(experiment)}".encode()


@generator
def krm_namespace_traversal(tmp: Path) -> tuple[list[str], bytes | None]:
    experiment = VALID.replace("  namespace: agents\n", "  namespace: agents\n  annotations:\n"
                               "    internal.config.kubernetes.io/path: exps/e.yaml\n")
    config = ("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cfg}\n"
              "  data: {testkube-namespace: ../../../../x}\n")
    return [], f"{_RESOURCE_LIST}\n{_item(experiment)}{config}".encode()


@generator
def krm_stdin_over_16mib(tmp: Path) -> tuple[list[str], bytes | None]:
    return [], f"{_RESOURCE_LIST} []\n".encode() + b"#" * (17 * 1024 * 1024)


@generator
def discover_deep_flow(tmp: Path) -> tuple[list[str], bytes | None]:
    _file(tmp, "deep.yaml", "# testbench.agentic-layer.ai\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    (tmp / "ok").mkdir()
    _file(tmp / "ok", "exp.json", '{"apiVersion": "v1", "kind": "ConfigMap"}\n' + VALID_JSON)
    return ["discover", str(tmp)], None


VALID_JSON = ('{"apiVersion": "testbench.agentic-layer.ai/v1alpha1", "kind": "Experiment", "metadata": {"name": "j"}, '
              '"spec": {"agentRef": {"name": "a"}, "dataset": {"url": "https://x.example.com/e.json"}}}\n')


@generator
def env_50k(tmp: Path) -> tuple[list[str], bytes | None]:
    """50,000 env variables: render --resolve merges and dedupes them per step."""
    env = "".join(f"    - name: V{i}\n      value: x\n" for i in range(50_000))
    return [str(_file(tmp, "env50k.yaml", VALID.replace("  agentRef:", "  env:\n" + env + "  agentRef:")))], None
