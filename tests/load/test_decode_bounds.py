"""Bytes to text as YAML allows (UTF-8, or UTF-16/32 with a BOM), each refusal with its exact message and place."""

from __future__ import annotations

import codecs

import pytest

from kubectl_testbench.load.decode import DecodeError, decode


@pytest.mark.parametrize("encoding", ["utf-32-le", "utf-32-be", "utf-16-le", "utf-16-be", "utf-8"])
def test_every_bom_selects_its_encoding(encoding: str) -> None:
    bom = {"utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE, "utf-16-le": codecs.BOM_UTF16_LE,
           "utf-16-be": codecs.BOM_UTF16_BE, "utf-8": codecs.BOM_UTF8}[encoding]
    assert decode(bom + "name: café 😀\n".encode(encoding)) == "name: café 😀\n"


@pytest.mark.parametrize(("data", "message"), [
    (codecs.BOM_UTF16_LE + b"a\x00b", "invalid UTF-16-LE text: truncated data"),
    (codecs.BOM_UTF16_BE + b"\xdc\x00", "invalid UTF-16-BE text: illegal encoding"),
    (codecs.BOM_UTF32_BE + b"\x00\x11\x00\x00", "invalid UTF-32-BE text: code point not in range(0x110000)"),
    (codecs.BOM_UTF8 + b"a: \xff\n", "invalid UTF-8 text: invalid start byte"),
])
def test_invalid_text_after_a_bom_is_an_encoding_error(data: bytes, message: str) -> None:
    with pytest.raises(DecodeError) as info:
        decode(data)
    assert (info.value.rule, info.value.message, str(info.value), info.value.mark) == (
        "input/encoding", message, message, (1, 1))


def test_a_nul_byte_in_the_first_8_kib_is_a_binary_file() -> None:
    with pytest.raises(DecodeError) as info:
        decode(b"a" * 8191 + b"\x00")
    assert (info.value.rule, info.value.message, info.value.mark) == (
        "input/binary", "binary file (NUL byte at offset 8191), not YAML or JSON", (1, 1))
    with pytest.raises(DecodeError) as first:
        decode(b"\x00a: 1\n\x00")
    assert first.value.message == "binary file (NUL byte at offset 0), not YAML or JSON"


def test_a_nul_byte_after_8_kib_is_left_to_the_yaml_reader() -> None:
    assert decode(b"a" * 8192 + b"\x00") == "a" * 8192 + "\x00"


@pytest.mark.parametrize(("data", "message", "mark"), [
    (b"caf\xe9", "not UTF-8 text (byte 0xe9 at line 1, column 4); save the file as UTF-8", (1, 4)),
    (b"\xe9", "not UTF-8 text (byte 0xe9 at line 1, column 1); save the file as UTF-8", (1, 1)),
    (b"a: 1\n\nb: \x80\n", "not UTF-8 text (byte 0x80 at line 3, column 4); save the file as UTF-8", (3, 4)),
    (b"a: 1\n\xc3", "not UTF-8 text (byte 0xc3 at line 2, column 1); save the file as UTF-8", (2, 1)),
    (b"\n\xff", "not UTF-8 text (byte 0xff at line 2, column 1); save the file as UTF-8", (2, 1)),
    (b"\nab\xff\n\xfe", "not UTF-8 text (byte 0xff at line 2, column 3); save the file as UTF-8", (2, 3)),
])
def test_text_that_is_not_utf8_names_the_byte_and_its_place(data: bytes, message: str, mark: tuple[int, int]) -> None:
    with pytest.raises(DecodeError) as info:
        decode(data)
    assert (info.value.rule, info.value.message, info.value.mark) == ("input/encoding", message, mark)


def test_crlf_is_kept() -> None:
    assert decode(b"a: 1\r\nb: 2\r\n") == "a: 1\r\nb: 2\r\n"
