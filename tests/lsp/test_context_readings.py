"""Hover and completion keep what they read of a document (issue 33, item 8): a second request does not read
the lines above the cursor again, an edit makes only the lines below it be read again, and the cursor found
that way is the one a fresh reading finds, through 2,000 rapid edits."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kubectl_testbench.lsp import context
from kubectl_testbench.lsp.context import KEY, STEP, Readings, cursor_at
from kubectl_testbench.lsp.text import UTF16, Document, Position
from tests.conftest import EXAMPLES

WEATHER = (EXAMPLES / "experiments" / "weather-inline.yaml").read_text(encoding="utf-8")
STEP_TEXT = """            - input: what is the weather in Paris?
              metrics:
                - metricName: ToolCallAccuracy
                  threshold: 0.8
"""


def _long(steps: int) -> str:
    head, marker, tail = WEATHER.partition("          steps:\n")
    assert marker, "the example's first steps: key"
    return head + marker + STEP_TEXT * steps + tail


@pytest.fixture()
def fed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The probe: every line the block reader reads."""
    lines: list[int] = []
    real = context._BlockReader.feed

    def feed(self: Any, line: str, number: int) -> None:
        lines.append(number)
        real(self, line, number)

    monkeypatch.setattr(context._BlockReader, "feed", feed)
    return lines


def test_a_second_request_does_not_read_the_lines_above_the_cursor_again(fed: list[int]) -> None:
    doc = Document("file:///w/long.yaml", _long(5000), language_id="yaml")
    index = doc.index(UTF16)
    last = len(index.lines) - 1
    line = max(n for n in range(last) if "metricName:" in index.lines.content(n))
    offset = index.lines.starts[line] + index.lines.content(line).index("metricName") + 2
    assert line > 20_000
    cursor = cursor_at(doc.text, offset, index.lines, doc.readings)
    assert cursor is not None and (cursor.role, cursor.token) == (KEY, "metricName")
    assert len(fed) == line  # the first request reads every line above the cursor
    fed.clear()
    assert cursor_at(doc.text, offset, index.lines, doc.readings) == cursor
    assert len(fed) < STEP  # the second one: from the nearest kept state
    fed.clear()
    edit_line = line - 3 * STEP
    doc.apply(Position(edit_line, 0), Position(edit_line, 0), "# a comment\n", UTF16)
    index = doc.index(UTF16)
    moved = offset + len("# a comment\n")
    after = cursor_at(doc.text, moved, index.lines, doc.readings)
    assert 3 * STEP < len(fed) < 5 * STEP and min(fed) >= edit_line - STEP  # only from the edit down
    assert after == cursor_at(doc.text, moved, index.lines)
    assert after is not None and (after.path, after.token, after.start) == (cursor.path, cursor.token,
                                                                            cursor.start + len("# a comment\n"))


def test_without_kept_readings_every_line_above_is_read(fed: list[int]) -> None:
    text = _long(50)
    lines = Document("u", text).index(UTF16).lines
    offset = len(text) - 5
    cursor_at(text, offset, lines)
    cursor_at(text, offset, lines)
    assert len(fed) == 2 * lines.line_of(offset)


def test_readings_of_another_text_are_not_used() -> None:
    readings = Readings()
    text = _long(200)
    other = text.replace("            - input: what is the weather in Paris?\n", "", 1).replace("          steps:\n",
                                                                                            "          step:\n", 1)
    offset = len(other) - 40
    cursor_at(text, offset, None, readings)
    assert cursor_at(other, offset, None, readings) == cursor_at(other, offset)


def _random_edit(rng: random.Random, doc: Document) -> None:
    index = doc.index(UTF16)
    line = rng.randrange(len(index.lines))
    content = index.lines.content(line)
    start = Position(line, rng.randrange(len(content) + 1))
    end = start
    choice = rng.random()
    if choice < 0.3:
        end = Position(min(line + rng.randrange(3), len(index.lines) - 1), rng.randrange(10))
        new = ""
    elif choice < 0.5:
        new = "\n"
    elif choice < 0.6:
        new = "---\n"
    elif choice < 0.7:
        new = rng.choice(("key: |\n", "  - ", "x: 1\n", "\t", "  ", "# c\n", "a: {b: [1, ", "]}\n", "'q: "))
    else:
        new = rng.choice("abc: -\n \"'#|>[]{}")
    doc.apply(start, end, new, UTF16)


def test_two_thousand_rapid_edits_find_the_cursor_a_fresh_reading_finds() -> None:
    rng = random.Random(33)
    doc = Document("file:///w/a.yaml", _long(150), language_id="yaml")
    for n in range(2000):
        _random_edit(rng, doc)
        if n % 4:
            continue  # several edits between two requests, as when typing fast
        index = doc.index(UTF16)
        for offset in (rng.randrange(len(doc.text) + 1), len(doc.text) - rng.randrange(200)):
            offset = max(0, offset)
            assert cursor_at(doc.text, offset, index.lines, doc.readings) == cursor_at(doc.text, offset), (n, offset)


def test_the_server_keeps_the_readings_of_each_open_document(fed: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pygls", reason="the lsp extra is not installed: pip install '.[lsp]'")
    import asyncio

    from lsprotocol import types as t

    from kubectl_testbench.lsp import server as server_module
    from tests.lsp.inprocess import Harness

    monkeypatch.setattr(server_module, "settle_memory", lambda: None)
    text = _long(1000)
    lines = text.splitlines()
    line = max(n for n, content in enumerate(lines) if "metricName:" in content)
    at = t.Position(line, lines[line].index("metricName") + 2)
    uri = "file:///w/long.yaml"

    async def go() -> None:
        h = Harness(server_module.build(debounce=0.0))
        await h.initialize()
        h.open(uri, text)
        params = t.HoverParams(t.TextDocumentIdentifier(uri), at)
        first = await h.request(t.TEXT_DOCUMENT_HOVER, params)
        assert first is not None and "FIELD: metricName" in first.contents.value
        assert len(fed) == line
        fed.clear()
        assert await h.request(t.TEXT_DOCUMENT_HOVER, params) == first
        items = await h.request(t.TEXT_DOCUMENT_COMPLETION, t.CompletionParams(t.TextDocumentIdentifier(uri), at))
        assert items is not None and len(fed) < 2 * STEP

    asyncio.run(go())
