"""Before anything runs: can the agent and the judge be reached at all? (exit 3 when not)

Any HTTP answer counts, an error status included (the agent may answer GET with 405, a gateway 401): what is
checked is that something listens there, not that it is healthy. A refused connection, an unknown host or a
timeout is an unreachable endpoint, and so are a port that answers something other than HTTP and a URL that
cannot be requested at all; the phases themselves would only record ``ERROR: …`` turns (run) or skip every
metric (evaluate) and still exit 0, so this is checked first.
"""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from dataclasses import dataclass

TIMEOUT = 5.0


@dataclass(frozen=True)
class Unreachable:
    what: str
    url: str
    reason: str

    def __str__(self) -> str:
        return f"the {self.what} at {self.url} cannot be reached: {self.reason}"


def probe(url: str, timeout: float = TIMEOUT) -> str | None:
    """None when something answers HTTP at ``url``; else why not."""
    try:  # Request() itself refuses a URL without a scheme (ValueError)
        request = urllib.request.Request(url, headers={"User-Agent": "kubectl-testbench run --local"})  # a GET
        with urllib.request.urlopen(request, timeout=timeout):
            return None
    except urllib.error.HTTPError:
        return None
    except urllib.error.URLError as err:
        return str(err.reason)
    except http.client.HTTPException as err:  # something answers, but not HTTP (an SSH port, a raw TCP service)
        return f"no HTTP answer ({type(err).__name__})"
    except (OSError, ValueError) as err:
        return str(err) or type(err).__name__


def check(agent_url: str, judge_base_url: str | None, timeout: float = TIMEOUT) -> list[Unreachable]:
    """The endpoints that do not answer: the agent URL itself, the judge's ``{base}/models``."""
    found: list[Unreachable] = []
    reason = probe(agent_url, timeout)
    if reason is not None:
        found.append(Unreachable("agent", agent_url, reason))
    if judge_base_url:
        reason = probe(judge_base_url.rstrip("/") + "/models", timeout)
        if reason is not None:
            found.append(Unreachable("judge", judge_base_url, reason))
    return found
