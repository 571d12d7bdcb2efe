"""Where rendered objects go: a sorted stream on stdout, a directory on disk, or a drift check."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from kubectl_testbench.emit import directory, swap
from kubectl_testbench.render.rendered import Rendered, stream


class Sink:
    """Receives objects as files finish; :meth:`finish` runs only when everything was valid."""

    def __init__(self) -> None:
        self.names: dict[str, Rendered] = {}

    def add(self, obj: Rendered) -> Rendered | None:
        """Take one object; returns the earlier object with the same file name, if any (a collision)."""
        first = self.names.get(obj.filename)
        if first is not None:
            return first
        self.names[obj.filename] = obj
        self.take(obj)
        return None

    def take(self, obj: Rendered) -> None:
        raise NotImplementedError

    def abort(self) -> None:
        """Drop everything: an error was found, nothing may be written."""

    def ordered(self) -> list[Rendered]:
        return sorted(self.names.values(), key=lambda o: (o.key, o.filename))

    def earlier_files(self) -> list[str]:
        """Files an earlier render wrote into the target (kustomization.yaml aside): what an empty render removes."""
        return []

    @property
    def notices(self) -> list[str]:
        """Repairs made to the target before anything else (a swap an earlier run left half-done)."""
        return []


class StdoutSink(Sink):
    """Holds the objects (they must be sorted before printing) and prints one stream."""

    def __init__(self, fmt: str) -> None:
        super().__init__()
        self.fmt = fmt

    def take(self, obj: Rendered) -> None:
        pass

    def finish(self) -> str:
        return stream(self.ordered(), self.fmt)


class DirectorySink(Sink):
    """Writes each object into a staging directory as it arrives; swaps it in at the end."""

    def __init__(self, target: Path) -> None:
        super().__init__()
        self.staging = directory.Staging(target)

    def take(self, obj: Rendered) -> None:
        self.staging.add(obj.filename, directory.with_header(obj.text, name=obj.filename))
        obj.text = ""  # on disk now; keep only what ordering needs
        obj.data = None

    def abort(self) -> None:
        self.staging.abort()

    @property
    def notices(self) -> list[str]:
        return self.staging.notices

    def earlier_files(self) -> list[str]:
        return sorted(set(self.staging.owned) - {directory.KUSTOMIZATION})

    def finish(self) -> directory.Changes:
        return self.staging.commit(directory.kustomization([o.filename for o in self.ordered()]))


class CheckSink(Sink):
    """Compares each object with the committed directory; keeps only the differences."""

    def __init__(self, target: Path) -> None:
        super().__init__()
        self.target = target
        self._notices = swap.recover(Path(os.path.realpath(target)))
        self.found = directory.scan(target)
        self.owned = self.found.owned
        self.digests: dict[str, str] = {}
        self.diffs: list[str] = []
        self.shown = _diff_name(target)
        """The directory as the diff names it: as given (``deploy/rendered``), git-style, ``/`` separated."""

    def earlier_files(self) -> list[str]:
        return sorted(set(self.owned) - {directory.KUSTOMIZATION})

    @property
    def notices(self) -> list[str]:
        return self._notices

    def take(self, obj: Rendered) -> None:
        directory.refuse_overwrite(self.found, self.target, obj.filename)
        text = directory.with_header(obj.text, name=obj.filename)
        self._compare(obj.filename, text)
        checksum = directory.digest(obj.filename, text)
        if checksum is not None:
            self.digests[obj.filename] = checksum
        obj.text = ""
        obj.data = None

    def _compare(self, name: str, new: str) -> None:
        path = self.owned.get(name)
        old = path.read_text(encoding="utf-8") if path is not None else ""
        if old != new:
            self.diffs.append("".join(difflib.unified_diff(
                old.splitlines(keepends=True), new.splitlines(keepends=True),
                fromfile=f"a/{self.shown}/{name}" if path is not None else "/dev/null",
                tofile=f"b/{self.shown}/{name}")))

    def finish(self) -> str:
        directory.refuse_foreign_listing(self.found, self.target)
        self._compare(directory.KUSTOMIZATION, directory.with_record(
            directory.kustomization([o.filename for o in self.ordered()]), self.digests))
        for name in sorted(set(self.owned) - set(self.names) - {directory.KUSTOMIZATION}):
            old = self.owned[name].read_text(encoding="utf-8")
            self.diffs.append("".join(difflib.unified_diff(
                old.splitlines(keepends=True), [], fromfile=f"a/{self.shown}/{name}", tofile="/dev/null")))
        return "".join(d if d.endswith("\n") else d + "\n" for d in self.diffs)


def _diff_name(target: Path) -> str:
    """``target`` relative to the working directory when inside it (as git prints paths), else as given."""
    text = os.path.normpath(str(target))
    if os.path.isabs(text):
        rel = os.path.relpath(text)
        text = rel if not rel.startswith("..") else text.lstrip(os.sep)
    return text.replace(os.sep, "/")
