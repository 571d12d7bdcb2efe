"""kubectl_testbench.gofmt judged by Go itself: ``strconv.Quote`` and ``fmt.Sprintf("%v", …)`` of the same values.

The API server words a field error's value with ``%q`` (strings) and ``%v`` (numbers, booleans), and Testkube's
expression engine converts numbers with ``%v``; our messages must read byte for byte as theirs. A small Go
program (standard library only, built once per session with the Go toolchain of this machine) answers for a
batch of values, and each answer must equal ours. Strings travel as raw bytes (base64), so an undecodable byte
reaches Go as the byte itself and us as the surrogate ``surrogateescape`` keeps it as.
"""

from __future__ import annotations

import base64
import json
import math
import random
import struct
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from kubectl_testbench.gofmt import format_v, quote, scalar_v, value_v
from tests.go_toolchain import NO_GO, build_stdlib_program, go_binary

PROGRAM = """package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
)

type item struct {
	Quote *string  `json:"quote"`
	Text  *string  `json:"text"`
	Float *float64 `json:"float"`
	Bits  *uint64  `json:"bits"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var it item
		if err := json.Unmarshal(in.Bytes(), &it); err != nil {
			panic(err)
		}
		switch {
		case it.Quote != nil:
			raw, err := base64.StdEncoding.DecodeString(*it.Quote)
			if err != nil {
				panic(err)
			}
			fmt.Fprintln(out, strconv.Quote(string(raw)))
		case it.Text != nil:
			fmt.Fprintln(out, strconv.Quote(*it.Text))
		case it.Bits != nil:
			fmt.Fprintf(out, "%v\\n", math.Float64frombits(*it.Bits))
		default:
			fmt.Fprintf(out, "%v\\n", *it.Float)
		}
	}
}
"""

STRINGS = ["", "plain", 'say "hi"', "back\\slash", "tab\there", "\a\b\f\n\r\t\v", "\x00\x01\x1f\x7f",
           "é ü ß 中文 😀", "\u00a0", "\u2028\u2029", "\u200b", "\ufeff", "\U0001f600\U000e0001", "\x85",
           "Europe/Berlim", "{{ config.x }}", "::error::x", "\x1b[31mred"]
BYTES = [b"\xff", b"a\xc3", b"\xed\xa0\x80", b"\x80\x81 text"]
FLOATS = [0.0, -0.0, 1.0, -1.5, 0.9, 90.0, 1e6, 1234567.0, 123456.0, 1e-5, 1e-4, 0.0001234, 1e21, 1e20,
          2.5e-308, 5e-324, 1.7976931348623157e308, 0.1 + 0.2, 100.0, 3.14159, -2e-7, 999999.0, 999999.5]


def _random_cases(rng: random.Random) -> tuple[list[bytes], list[float]]:
    alphabet = [chr(c) for c in (*range(0, 0x81), 0x85, 0x9f, 0xa0, 0xad, 0x300, 0x2028, 0x202e, 0xfeff, 0xfffd,
                                 0xffff, 0x10000, 0x10ffff, 0x1f600, 0xe0001, 0x4e2d)]
    strings = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))).encode() for _ in range(300)]
    strings += [bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))) for _ in range(100)]
    floats = [rng.uniform(-1e7, 1e7) for _ in range(100)] + [10.0 ** rng.randint(-12, 25) * rng.random()
                                                             for _ in range(200)]
    floats += [float(rng.randint(-10**7, 10**7)) for _ in range(50)]
    return strings, floats


@pytest.fixture(scope="module")
def go_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if go_binary() is None:
        pytest.skip(NO_GO)
    work = tmp_path_factory.mktemp("gofmt")
    (work / "main.go").write_text(PROGRAM)
    return build_stdlib_program(work, work, "gofmt")


def _go_answers(program: Path, strings: list[bytes], floats: list[float], texts: Sequence[str] = ()) -> list[str]:
    lines = [json.dumps({"quote": base64.b64encode(s).decode()}) for s in strings]
    lines += [json.dumps({"text": s}) for s in texts]  # ensure_ascii: surrogates travel as JSON escapes
    lines += [json.dumps({"bits": int.from_bytes(struct.pack(">d", f), "big")}) for f in floats]
    proc = subprocess.run([str(program)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=60, check=True)
    return proc.stdout.splitlines()


def test_a_json_string_reads_as_the_api_server_decodes_and_quotes_it(go_program: Path) -> None:
    """JSON input holds what bytes cannot: lone surrogates (``"\\ud800"``), which Go's decoder turns into U+FFFD,
    and pairs, which both decoders join. U+DC80..U+DCFF alone are left out: in our strings they are undecodable
    bytes (surrogateescape), which Go is given as the bytes themselves (the test above)."""
    sources = ['"\\ud800"', '"a\\udd00b"', '"\\udfff"', '"\\udc7f"', '"\\ud83d\\ude00"', '"\\u0080"', '"\\uffff"',
               '"\\ud800\\ud800"', '"\\u0378"', '"\\ue000"', '"\\udfff\\ue000"', '"\\u007f\\u0080\\u009f\\u00a0"',
               '"\\udb40\\udc01"']
    answers = _go_answers(go_program, [], [], [json.loads(s) for s in sources])
    assert answers == [quote(json.loads(s)) for s in sources]


def test_quote_and_v_read_as_go_writes_them(go_program: Path) -> None:
    strings, floats = _random_cases(random.Random(30))
    strings = [s.encode() for s in STRINGS] + BYTES + strings
    floats = [*FLOATS, math.nan, math.inf, -math.inf, *floats]
    answers = _go_answers(go_program, strings, floats)
    ours = [quote(s.decode("utf-8", "surrogateescape")) for s in strings] + [format_v(f) for f in floats]
    assert len(answers) == len(ours)
    wrong = [(case, go, mine) for case, go, mine in zip([*strings, *floats], answers, ours, strict=True)
             if go != mine]
    assert not wrong, wrong[:5]


@pytest.mark.parametrize(("text", "quoted"), [
    ("", '""'),
    ('a"b\\c', '"a\\"b\\\\c"'),
    ("\a\b\f\n\r\t\v", '"\\a\\b\\f\\n\\r\\t\\v"'),
    ("\x00\x1f\x7f", '"\\x00\\x1f\\x7f"'),
    ("é 中 😀", '"é 中 😀"'),
    ("\u00a0\u2028\ufeff", '"\\u00a0\\u2028\\ufeff"'),
    ("\U000e0001", '"\\U000e0001"'),
    (b"\xff\x80".decode("utf-8", "surrogateescape"), '"\\xff\\x80"'),
])
def test_quote_escapes_what_strconv_quote_escapes(text: str, quoted: str) -> None:
    assert quote(text) == quoted


@pytest.mark.parametrize(("value", "shown"), [
    (None, "null"), ("x", '"x"'), ('"', '"\\""'), (True, "true"), (False, "false"), (0, "0"), (-3, "-3"),
    (90.0, "90"), (0.9, "0.9"), (1e6, "1e+06"), (1e-5, "1e-05"), (-0.0, "-0"), ([1], None), ({"a": 1}, None),
])
def test_value_v_is_error_body_of_a_decoded_json_value(value: object, shown: str | None) -> None:
    assert value_v(value) == shown


def test_scalar_v_leaves_strings_and_containers_alone() -> None:
    others: list[object] = ["1", None, [], {}]
    assert [scalar_v(v) for v in others] == [None, None, None, None]
    assert format_v(sys.float_info.max) == "1.7976931348623157e+308"
