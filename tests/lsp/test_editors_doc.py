"""docs/editors.md: every editor snippet parses as what it claims to be (JSON, Lua, TOML), names exactly the
command line our CLI accepts, and that command line, run for real, serves LSP over stdio."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.lsp.client import run, session

DOC = ROOT / "docs" / "editors.md"
COMMAND = ["kubectl-testbench", "lsp"]


def _sections() -> dict[str, list[tuple[str, str]]]:
    """``## heading`` → its fenced blocks as (language, text)."""
    out: dict[str, list[tuple[str, str]]] = {}
    heading = ""
    for part in re.split(r"^(## .+)$", DOC.read_text(encoding="utf-8"), flags=re.MULTILINE):
        if part.startswith("## "):
            heading = part[3:].strip()
            continue
        out[heading] = re.findall(r"^```(\w+)\n(.*?)^```$", part, flags=re.MULTILINE | re.DOTALL)
    return out


def _blocks(section: str, language: str) -> list[str]:
    found = [text for lang, text in _sections()[section] if lang == language]
    assert found, f"no {language} snippet under '## {section}'"
    return found


def _lua_commands(source: str) -> list[list[str]]:
    """Every ``cmd = { … }`` table of a Lua snippet, parsed as Lua."""
    from luaparser import ast, astnodes

    commands = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, astnodes.Field) and isinstance(node.key, astnodes.Name) and node.key.id == "cmd":
            assert isinstance(node.value, astnodes.Table)
            values = [field.value for field in node.value.fields]
            assert all(isinstance(v, astnodes.String) for v in values)
            commands.append([v.s.decode() if isinstance(v.s, bytes) else v.s for v in values])
    return commands


def test_vscode_snippet_is_generic_lsp_client_settings() -> None:
    [snippet] = _blocks("VS Code", "json")
    settings = json.loads(snippet)
    assert [settings["glspc.server.command"], *settings["glspc.server.commandArguments"]] == COMMAND
    assert settings["glspc.server.languageId"] == ["yaml", "json"]


def test_neovim_snippets_are_lua_naming_the_command() -> None:
    snippets = _blocks("Neovim", "lua")
    assert len(snippets) == 3
    assert "vim.lsp.config(" in snippets[0] and "vim.lsp.enable(" in snippets[0]
    assert "vim.lsp.start(" in snippets[1]
    assert 'require("lspconfig")' in snippets[2]
    for snippet in snippets:
        assert _lua_commands(snippet) == [COMMAND]
        assert re.search(r'filetypes = \{ "yaml", "json" \}|pattern = \{ "yaml", "json" \}', snippet)


def test_helix_snippet_is_languages_toml() -> None:
    [snippet] = _blocks("Helix", "toml")
    config = tomllib.loads(snippet)
    server = config["language-server"]["kubectl-testbench"]
    assert [server["command"], *server["args"]] == COMMAND
    languages = {lang["name"]: lang["language-servers"] for lang in config["language"]}
    assert languages == {"yaml": ["yaml-language-server", "kubectl-testbench"],
                         "json": ["vscode-json-language-server", "kubectl-testbench"]}


def test_zed_snippets_register_the_server_and_name_the_command() -> None:
    extension, cargo = (tomllib.loads(text) for text in _blocks("Zed", "toml"))
    assert extension["language_servers"]["kubectl-testbench"]["languages"] == ["YAML", "JSON"]
    assert cargo["lib"]["crate-type"] == ["cdylib"] and "zed_extension_api" in cargo["dependencies"]
    [rust] = _blocks("Zed", "rust")
    assert 'worktree.which("kubectl-testbench")' in rust and 'vec!["lsp".into()]' in rust
    assert "zed::register_extension!(KubectlTestbench);" in rust
    [settings_text] = _blocks("Zed", "json")
    settings: dict[str, Any] = json.loads(settings_text)
    binary = settings["lsp"]["kubectl-testbench"]["binary"]
    assert [binary["path"], *binary["arguments"]] == COMMAND
    for language in ("YAML", "JSON"):
        assert settings["languages"][language]["language_servers"] == ["kubectl-testbench", "..."]


def test_the_command_line_the_snippets_name_serves_lsp_over_stdio() -> None:
    executable = shutil.which(COMMAND[0], path=os.pathsep.join((str(Path(sys.executable).parent),
                                                             os.environ.get("PATH", ""))))
    if executable is None:
        pytest.skip("kubectl-testbench is not on PATH (pip install -e '.[lsp]' puts it there)")
    done = subprocess.run([executable, *COMMAND[1:], "--help"], capture_output=True, text=True, check=False,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("Usage: kubectl testbench lsp")

    async def go() -> None:
        async with session(command=(executable, *COMMAND[1:])) as s:
            uri = "file:///docs/check.yaml"
            s.open(uri, "apiVersion: testbench.agentic-layer.ai/v1alpha1\nkind: Experiment\n")
            # the server's note that its CEL rules were not checked follows a missing name, as the server gives it
            assert {d.code for d in await s.diagnostics(uri, version=1)} == {"metadata/name-required",
                                                                             "semantic/spec-missing",
                                                                             "cel/not-evaluated"}

    run(go())


def test_the_install_line_names_the_extra_pyproject_defines() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = pyproject["project"]["optional-dependencies"]
    assert [d for d in extras["lsp"] if d.startswith("pygls")] == [d for d in extras["test"] if d.startswith("pygls")]
    text = DOC.read_text(encoding="utf-8")
    assert "pip install 'kubectl-testbench[lsp] @ https://github.com/agentic-layer/kubectl-testbench/archive/" in text
    assert "pip install '.[lsp]'" in text
