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
