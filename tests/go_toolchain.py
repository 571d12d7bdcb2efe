"""The one skip reason for a missing Go toolchain, shared by every test that builds Go code.

This project's machines have Go 1.26 in /usr/local/go/bin. Debian's ``golang-go`` is older and would shadow it,
so no reason ever tells anyone to install it.
"""

from __future__ import annotations

import shutil

NO_GO = ("the Go toolchain is not installed (`go` is not on PATH; install Go >= 1.26 from go.dev, "
         "not Debian's golang-go)")


def go_binary() -> str | None:
    """The ``go`` command on PATH, or None."""
    return shutil.which("go")
