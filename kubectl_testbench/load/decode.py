"""Turn file bytes into text, rejecting what the API server could never read."""

from __future__ import annotations

import codecs

from kubectl_testbench.load.positions import Mark
from kubectl_testbench.rules.input import INPUT_BINARY, INPUT_ENCODING


class DecodeError(Exception):
    """Bytes that are not a text file: binary content or an invalid encoding."""

    def __init__(self, rule: str, message: str, mark: Mark = (1, 1)) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.mark = mark


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode(data: bytes) -> str:
    """UTF-8 (with or without BOM), or UTF-16/32 with a BOM, as YAML allows; CRLF kept for libyaml."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(encoding)
            except UnicodeDecodeError as err:
                raise DecodeError(INPUT_ENCODING.id, f"invalid {encoding.upper()} text: {err.reason}") from None
    nul = data[:8192].find(b"\0")
    if nul >= 0:
        raise DecodeError(INPUT_BINARY.id, f"binary file (NUL byte at offset {nul}), not YAML or JSON")
    try:
        return data.decode()
    except UnicodeDecodeError as err:
        before = data[:err.start]
        line = before.count(b"\n") + 1
        col = err.start - before.rfind(b"\n")
        raise DecodeError(INPUT_ENCODING.id, f"not UTF-8 text (byte 0x{data[err.start]:02x} at line {line}, "
                          f"column {col}); save the file as UTF-8", (line, col)) from None
