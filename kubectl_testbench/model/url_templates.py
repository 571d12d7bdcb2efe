"""URL templates of render settings: ``{name}``, ``{namespace}`` and ``{port}`` filled in, nothing else touched.

Below both ``validate`` (which checks the templates in annotations and defaults files) and ``render`` (which
fills them), so that neither has to import the other for it.
"""

from __future__ import annotations

import re
from typing import Any

PLACEHOLDERS = ("name", "namespace", "port")
"""What URL templates may contain; every other character, ``{{`` included, is kept as written."""
_SINGLE_BRACES = re.compile(r"(?<!\{)\{([^{}]*)\}(?!\})")
"""``{word}`` not part of ``{{ … }}`` (which is text, escaped later like any user string in a workflow)."""

PLACEHOLDER_HINT = "write the placeholder as listed, or the URL itself"
"""The hint of every semantic/url-placeholder finding (annotations and defaults files alike)."""


def template_problem(template: str) -> str | None:
    """Why ``template`` cannot be filled (an unknown placeholder such as ``{nme}``), naming the known ones;
    None when it can. A brace is not valid in a URL, so every ``{…}`` must be one of ours."""
    import difflib

    unknown = list(dict.fromkeys(m.group(1) for m in _SINGLE_BRACES.finditer(template)
                                 if m.group(1) not in PLACEHOLDERS))
    if not unknown:
        return None
    known = ", ".join("{" + p + "}" for p in PLACEHOLDERS)
    guesses = {u: difflib.get_close_matches(u.strip().lower(), PLACEHOLDERS, n=1, cutoff=0.5) for u in unknown}
    meant = [f"{{{c[0]}}}" + (f" for {{{u}}}" if len(unknown) > 1 else "") for u, c in guesses.items() if c]
    guess = f"; did you mean {', '.join(meant)}?" if meant else ""
    listed = ", ".join("{" + u + "}" for u in unknown)
    return f"unknown placeholder{'s' if len(unknown) > 1 else ''} {listed} (known: {known}){guess}"


def fill(template: str, **values: Any) -> str:
    """``template`` with ``{name}``, ``{namespace}`` and ``{port}`` replaced and every other character kept.

    Not ``str.format``: that turns ``{{`` into ``{`` and would silently rewrite user text; here ``{{`` stays
    ``{{`` and is escaped later like every other user string that lands in a TestWorkflow.
    """
    out = template
    for key in PLACEHOLDERS:
        if key in values:
            out = out.replace("{" + key + "}", str(values[key]))
    return out
