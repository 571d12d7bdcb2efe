"""Stand-in for a dataset web server: serves fixed bytes per path on 127.0.0.1 and records what was asked."""

from __future__ import annotations

from tests.phases.standin_http import QuietHandler, StandInServer


class StaticHandler(QuietHandler):
    def do_GET(self) -> None:
        server: StaticStandIn = self.server.standin  # type: ignore[attr-defined]
        server.requested.append(self.path)
        body = server.files.get(self.path.split("?", 1)[0])
        if body is None:
            self.reply(404, b"not found", "text/plain")
        else:
            self.reply(200, body)


class StaticStandIn(StandInServer):
    """Stand-in static HTTP server: ``files`` maps a URL path (``/a/experiment.json``) to its body."""

    def __init__(self, files: dict[str, bytes] | None = None) -> None:
        self.files: dict[str, bytes] = dict(files or {})
        self.requested: list[str] = []
        super().__init__(StaticHandler)
