"""Results of CEL rules remembered across runs, so a warm single-file validation never imports celpy.

A rule's outcome depends only on the rule text and on the *projection* of ``self`` the rule can observe
(see :mod:`kubectl_testbench.validate.cel.evaluate`). Both, with the outcome and each rule's access paths, are kept
in a small JSON file in the private per-user cache directory. The file is keyed by our version and by
celpy's installed files, and ignored when either changes, when it is unreadable, or when
``KUBECTL_TESTBENCH_NO_CACHE`` is set. It is JSON, never pickle: a tampered file cannot run code.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import os
from pathlib import Path
from typing import Any

from kubectl_testbench import __version__

MAX_OUTCOMES = 2000
MAX_KEY = 4096
FILE_NAME = "cel-outcomes.json"


def _celpy_stamp() -> str:
    spec = importlib.util.find_spec("celpy")
    if spec is None or spec.origin is None:
        return "missing"
    st = os.stat(spec.origin)
    return f"{spec.origin}:{st.st_size}:{int(st.st_mtime)}"


class Store:
    """Analyses and outcomes, loaded once per process and written back at exit when they grew."""

    def __init__(self, directory: Path | None) -> None:
        self.path = directory / FILE_NAME if directory is not None else None
        self.stamp = f"{__version__}|{_celpy_stamp()}"
        self.analyses: dict[str, Any] = {}
        self.outcomes: dict[str, list[Any]] = {}
        self.dirty = False
        self.owner = os.getpid()
        self._load()
        if self.path is not None:
            atexit.register(self.save)

    def _load(self) -> None:
        if self.path is None:
            return
        try:
            data = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("stamp") != self.stamp:
            return
        analyses, outcomes = data.get("analyses"), data.get("outcomes")
        if isinstance(analyses, dict) and isinstance(outcomes, dict):
            self.analyses, self.outcomes = analyses, outcomes

    def put_analysis(self, rule: str, analysis: Any) -> None:
        self.analyses[rule] = analysis
        self.dirty = True

    def put_outcome(self, key: str, outcome: list[Any]) -> None:
        if len(key) > MAX_KEY:
            return
        self.outcomes[key] = outcome
        self.dirty = True

    def save(self) -> None:
        """Write back (atomically) from the process that loaded it; workers never write."""
        if not self.dirty or self.path is None or os.getpid() != self.owner:
            return
        outcomes = dict(list(self.outcomes.items())[-MAX_OUTCOMES:])
        payload = json.dumps({"stamp": self.stamp, "analyses": self.analyses, "outcomes": outcomes})
        tmp = self.path.with_name(f".{FILE_NAME}.{os.getpid()}.tmp")
        try:
            tmp.write_bytes(payload.encode())  # JSON with ensure_ascii: plain ASCII
            os.replace(tmp, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()
        self.dirty = False


_STORE: Store | None = None


def store() -> Store:
    global _STORE
    if _STORE is None:
        from kubectl_testbench.validate.cel.environment import private_cache_dir

        _STORE = Store(private_cache_dir())
    return _STORE
