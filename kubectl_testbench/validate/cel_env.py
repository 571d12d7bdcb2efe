"""Building the CEL parser and environment: the one place that constructs them.

Kept apart on purpose: constructing celpy's Lark parser dominates a cold start (DESIGN.md section 10), and
precompiling the grammar ahead of time must only have to change this module.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from pathlib import Path
from typing import Any

_ENV: Any = None


def environment() -> Any:
    """The process-wide celpy ``Environment`` (built on first use)."""
    global _ENV
    if _ENV is None:
        _ENV = build_environment()
    return _ENV


def build_environment() -> Any:
    """celpy's Environment with its Lark parser built from our private on-disk cache."""
    import celpy
    from celpy.celparser import CELParser

    if CELParser.CEL_PARSER is None:
        CELParser.CEL_PARSER = _cached_parser()
    limit = sys.getrecursionlimit()
    env = celpy.Environment()
    sys.setrecursionlimit(limit)  # celpy raises it process-wide; our rules are shallow
    return env


def _cached_parser() -> Any:
    """celpy's Lark parser, built with Lark's on-disk cache in a private per-user directory (70 ms → 5 ms).

    Lark's own ``cache=True`` writes a pickle to the shared temp dir, which another local user could
    replace; we only use a directory we own and nobody else can write.
    """
    import celpy
    import lark
    from celpy.celparser import CELParser

    logging.getLogger("lark").setLevel(logging.CRITICAL)
    grammar = (Path(celpy.__file__).parent / "cel.lark").read_text()
    cache: str | bool = False
    directory = private_cache_dir()
    if directory is not None:
        cache = str(directory / f"cel-parser-lark{lark.__version__}.pickle")
    return lark.Lark(
        grammar,
        parser="lalr",
        start="expr",
        debug=True,
        g_regex_flags=re.M,
        lexer_callbacks={"IDENT": CELParser.ambiguous_literals},
        propagate_positions=True,
        maybe_placeholders=False,
        priority="invert",
        tree_class=lark.Tree,
        cache=cache,
    )


def private_cache_dir() -> Path | None:
    """``$XDG_CACHE_HOME/kubectl-testbench`` when we own it and nobody else can write it."""
    if os.environ.get("KUBECTL_TESTBENCH_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    directory = Path(base) / "kubectl-testbench"
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = directory.stat()
        if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
            return None
        if not os.access(directory, os.W_OK):
            return None
    except OSError:
        return None
    return directory
