"""CEL syntax celpy's grammar lacks, rewritten into calls it understands before parsing.

celpy 0.5 parses CEL as of 2021: no optional syntax (``self.?field``, ``list[?0]``, ``optional.of(x)``) and
no namespaced functions (``format.dns1123Label()``). Kubernetes enables both. The rewrite works on tokens
(string literals are never touched) and maps each construct to a function of :mod:`library`:

- ``x.?f``                 → ``x.optSelect("f")``
- ``x[?e]``                → ``x.optIndex(e)``
- ``optional.of(e)``       → ``optionalOf(e)`` (likewise ``none``, ``ofNonZeroValue``)
- ``format.named(e)``      → ``formatNamed(e)``; ``format.dns1123Label()`` → ``format_dns1123Label()``
- ``list.min()``           → ``list.listMin()`` (celpy's own ``min`` macro words its errors differently)
"""

from __future__ import annotations

import re

_STRING = re.compile(
    r"""[rR]?[bB]?(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\""""
    r"""|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")""")
_NAMESPACED = re.compile(r"(?<![\w.])(optional|format)\.([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_OPT_SELECT = re.compile(r"\.\?\s*([A-Za-z_][A-Za-z0-9_]*)")
_LIST_MIN = re.compile(r"\.min\(\s*\)")
_OPT_INDEX = re.compile(r"\[\?")
_INDEXABLE = re.compile(r"[\w)\]}\"']$")
"""What an indexed expression ends with: a name, a call, an index, a map or a string literal."""
_OPTIONAL_FUNCS = {"of": "optionalOf", "none": "optionalNone", "ofNonZeroValue": "optionalOfNonZeroValue"}


def rewrite(source: str) -> str:
    """``source`` with Kubernetes-era CEL constructs turned into celpy function calls."""
    if "?" not in source and "optional." not in source and "format." not in source and ".min(" not in source:
        return source
    out: list[str] = []
    pos = 0
    for m in _STRING.finditer(source):
        out.append(_rewrite_code(source[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_rewrite_code(source[pos:]))
    return _rewrite_opt_index("".join(out))


def _rewrite_code(code: str) -> str:
    def namespaced(m: re.Match[str]) -> str:
        space, name = m.group(1), m.group(2)
        if space == "optional":
            return _OPTIONAL_FUNCS.get(name, f"optional_{name}") + "("
        return "formatNamed(" if name == "named" else f"format_{name}("

    code = _NAMESPACED.sub(namespaced, code)
    code = _LIST_MIN.sub(".listMin()", code)  # celpy treats min() as its own macro, with another error
    return _OPT_SELECT.sub(r'.optSelect("\1")', code)


def _rewrite_opt_index(code: str) -> str:
    """``x[?e]`` → ``x.optIndex(e)``, matching brackets; string literals are skipped."""
    if "[?" not in code:
        return code
    spans = [(m.start(), m.end()) for m in _STRING.finditer(code)]

    def in_string(i: int) -> bool:
        return any(i in range(a, b) for a, b in spans)

    chars = list(code)
    for opening in _OPT_INDEX.finditer(code):
        i = opening.start()
        if in_string(i) or not _INDEXABLE.search(code[:i].rstrip()):
            continue  # a list literal's optional element ([?x]) is not supported by celpy
        depth, j = 0, i
        while j < len(code):
            if not in_string(j):
                if code[j] == "[":
                    depth += 1
                elif code[j] == "]":
                    depth -= 1
                    if depth == 0:
                        break
            j += 1
        if j >= len(code):
            break  # unclosed: left for the parser to report
        chars[i] = ".optIndex("
        chars[i + 1] = ""
        chars[j] = ")"
    return "".join(chars)
