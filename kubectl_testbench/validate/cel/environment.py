"""Building the CEL parser and environment: the one place that constructs them.

Constructing celpy's Lark parser dominated a cold start (docs/validation.md, "On a cold start"). The parser now comes
from the LALR tables generated with the package (:mod:`parser_tables`); only when they do not fit the
installed Lark or celpy is it built from the grammar, with Lark's cache in our private directory.
"""

from __future__ import annotations

import os
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
    """celpy's Environment, its Lark parser loaded from the generated tables (or built, see :func:`parser`)."""
    import celpy
    from celpy.celparser import CELParser

    if CELParser.CEL_PARSER is None:
        CELParser.CEL_PARSER = parser()
    limit = sys.getrecursionlimit()
    env = celpy.Environment()
    sys.setrecursionlimit(limit)  # celpy raises it process-wide; our rules are shallow
    return env


def parser() -> Any:
    """celpy's Lark parser: from the generated tables when they match the installed Lark and grammar."""
    from kubectl_testbench.validate.cel import parser_tables

    loaded = parser_tables.load()
    return loaded if loaded is not None else built_parser()


def built_parser() -> Any:
    """celpy's Lark parser built from its grammar, with Lark's on-disk cache in a private per-user directory.

    The path for a Lark or celpy the package's tables were not generated for. Lark's own ``cache=True``
    writes a pickle to the shared temp dir, which another local user could replace; we only use a
    directory we own and nobody else can write.
    """
    import lark

    from kubectl_testbench.validate.cel import parser_tables

    options = {**parser_tables.BUILD_OPTIONS, **parser_tables.runtime_options()}
    directory = private_cache_dir()
    if directory is not None:
        options["cache"] = str(directory / f"cel-parser-lark{lark.__version__}.pickle")
    return lark.Lark(parser_tables.grammar_text(), **options)


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
