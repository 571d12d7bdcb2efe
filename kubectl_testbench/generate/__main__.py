"""``python -m kubectl_testbench.generate --write|--check [TARGET...]``: regenerate, or check, the committed
artefacts (targets: :data:`~kubectl_testbench.generate.committed.TARGETS`; default all but ``metrics`` and
``dataset-schema``).

Exit status: 0 current (or written), 1 stale files (``--check``), 2 usage, 3 no phase environment for
``metrics`` or ``dataset-schema``.
"""

from __future__ import annotations

import argparse
import sys

from kubectl_testbench.generate.committed import DEFAULT_TARGETS, TARGETS, expected_files, stale_files

COMMAND = "python -m kubectl_testbench.generate"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description="Regenerate or check the committed artefacts.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite every stale file")
    mode.add_argument("--check", action="store_true", help="list stale files; exit 1 if there are any")
    parser.add_argument("targets", nargs="*", metavar="TARGET",
                        help=f"some of {', '.join(TARGETS)} (default: {' '.join(DEFAULT_TARGETS)})")
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
        unknown = [t for t in args.targets if t not in TARGETS]
        if unknown:
            parser.error(f"unknown target {unknown[0]!r} (one of {', '.join(TARGETS)})")
    except SystemExit as exit_:  # argparse's usage errors (2) and --help (0), as a status to return
        return int(exit_.code or 0)
    targets = tuple(dict.fromkeys(args.targets)) or DEFAULT_TARGETS
    from kubectl_testbench.phases.env import PhaseEnvError

    try:
        expected = expected_files(targets)
    except PhaseEnvError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    stale = stale_files(expected)
    if args.write:
        from kubectl_testbench.emit.files import write_atomic

        for path in stale:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, expected[path])
            print(f"wrote {path}", file=sys.stderr)
        return 0
    for path in stale:
        print(f"stale: {path} (run: {' '.join([COMMAND, '--write', *args.targets])})", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
