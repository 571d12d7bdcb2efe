"""A file the editor decoded from another encoding (Latin-1 in Neovim) looks clean in the buffer, but
``validate`` reads its bytes and fails with ``input/encoding`` (issue 33, item 8): the server reads the bytes on
open and on save and publishes the same finding, until the file is saved as UTF-8."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")

from click.testing import CliRunner
from lsprotocol import types as t

from kubectl_testbench.cli.main import cli
from kubectl_testbench.lsp import server as server_module
from kubectl_testbench.lsp.check import DECODED_OTHERWISE
from tests.conftest import EXAMPLES
from tests.lsp.inprocess import Harness

WEATHER = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text(encoding="utf-8")
LATIN = WEATHER.replace("New York right now", "Z\xfcrich right now", 1)


def _validate_message(path: Path) -> str:
    out = CliRunner().invoke(cli, ["validate", str(path)]).output
    assert "error[input/encoding]" in out, out
    return out.split("error[input/encoding] ")[1].splitlines()[0]


def test_a_latin1_file_decoded_by_the_editor_gets_validates_encoding_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_module, "settle_memory", lambda: None)
    path = tmp_path / "latin1.yaml"
    path.write_bytes(LATIN.encode("latin-1"))
    message = _validate_message(path)
    assert message.startswith("not UTF-8 text (byte 0xfc at line 28, column 51)")
    uri = path.as_uri()

    async def go() -> None:
        h = Harness(server_module.build(debounce=0.0))
        await h.initialize()
        h.open(uri, LATIN)  # what Neovim sends: the text decoded, no replacement character
        [finding] = await h.diagnostics(uri, 1)
        assert (finding.code, finding.severity) == ("input/encoding", t.DiagnosticSeverity.Error)
        assert finding.message == f"the file on disk: {message}\nhint: {DECODED_OTHERWISE}"
        assert finding.range.start == t.Position(27, 50)
        h.change(uri, 2, t.TextDocumentContentChangeWholeDocument(text=LATIN + "# more\n"))
        assert [d.code for d in await h.diagnostics(uri, 2)] == ["input/encoding"]  # the file is still Latin-1
        path.write_text(LATIN + "# more\n", encoding="utf-8")
        h.save(uri)
        await h.idle(uri)
        assert h.published(uri)[-1][1] == []  # saved as UTF-8: clean
        path.write_bytes(LATIN.encode("latin-1"))
        h.save(uri)  # saved as Latin-1 again
        await h.idle(uri)
        assert [d.code for d in h.published(uri)[-1][1]] == ["input/encoding"]
        h.close(uri)
        assert uri not in h.server.on_disk

    asyncio.run(go())


def test_a_buffer_that_is_not_a_file_or_not_ours_is_not_read_from_disk(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_module, "settle_memory", lambda: None)
    path = tmp_path / "notes.txt"
    path.write_bytes(LATIN.encode("latin-1"))

    async def go() -> None:
        h = Harness(server_module.build(debounce=0.0))
        await h.initialize()
        h.open("untitled:1", LATIN)
        assert await h.diagnostics("untitled:1", 1) == []
        h.open(path.as_uri(), LATIN, language="plaintext")  # not a file we serve
        assert h.server.on_disk == {}
        utf8 = tmp_path / "clean.yaml"
        utf8.write_text(LATIN, encoding="utf-8")
        h.open(utf8.as_uri(), LATIN)
        assert await h.diagnostics(utf8.as_uri(), 1) == [] and h.server.on_disk == {}

    asyncio.run(go())
