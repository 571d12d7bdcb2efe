"""Splitting streams like kubectl's YAMLReader, and decoding bytes."""

from __future__ import annotations

import pytest

from kubectl_testbench.load.decode import DecodeError, decode
from kubectl_testbench.load.split import split_documents


def test_split_on_separator_lines_with_line_offsets() -> None:
    chunks = list(split_documents("a: 1\n---\nb: 2\n--- # next\nc: 3\n"))
    assert [(c.text, c.start_line, c.bad_separator) for c in chunks] == [
        ("a: 1\n", 0, False), ("b: 2\n", 2, False), ("c: 3\n", 4, False)]


def test_content_after_separator_is_flagged_like_kubectl() -> None:
    chunks = list(split_documents("a: 1\n--- {b: 2}\n"))
    assert chunks[1].bad_separator and chunks[1].start_line == 1


def test_decode_utf8_bom_and_utf16() -> None:
    assert decode(b"\xef\xbb\xbfa: 1\n") == "a: 1\n"
    assert decode("a: ü\n".encode("utf-16")) == "a: ü\n"


def test_binary_and_invalid_utf8_are_rejected_with_position() -> None:
    with pytest.raises(DecodeError) as binary:
        decode(b"PK\x03\x04\x00\x00binary")
    assert binary.value.rule == "input/binary"
    with pytest.raises(DecodeError) as latin:
        decode("a: 1\nname: caf\xe9\n".encode("latin-1"))
    assert latin.value.rule == "input/encoding" and latin.value.mark == (2, 10)
