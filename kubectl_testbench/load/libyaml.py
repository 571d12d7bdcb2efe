"""The one place that picks PyYAML's parser for a text, so every PyYAML >= 6.0.1 reads the same.

We read with libyaml (PyYAML's C binding) for speed. The libyaml that PyYAML 6.0.4 bundles stops at 1,000
levels of nesting *inside its scanner* ("exceeded maximum nesting depth"); 6.0.1 to 6.0.3 have no such stop.
The scanner looks up to 1,024 characters ahead of the events we count, so on a one-line ``[[[[…`` that
limit fires before our own ``--max-depth`` check has seen a single level, and the user would get a syntax
error pointing at a bracket that is closed. Where libyaml refuses nesting for that reason alone, the same
text is read again with PyYAML's pure-Python parser: the same events and marks, no nesting limit of its
own, so our limits (depth, nodes, aliases) decide exactly as they do with any other PyYAML. Only texts
nested past 1,000 levels pay for the slower parser, and the depth check stops those after ``--max-depth``
levels unless the user raised it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import yaml

try:  # libyaml binding; the pure-Python parser is a slower but identical fallback
    from yaml import CSafeLoader as FastLoader
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as FastLoader  # type: ignore[assignment]

PureLoader: type[Any] = yaml.SafeLoader

T = TypeVar("T")

_NESTING = "exceeded maximum nesting depth"
"""libyaml's own wording (scanner.c, ``yaml_parser_increase_flow_level`` and ``yaml_parser_roll_indent``)."""


def tokens(text: str) -> Iterator[Any]:
    """The scanner's tokens of ``text``, libyaml's where it is built in; a scanner error is raised where it occurs
    (for the syntax hints, which look at the tokens before an error)."""
    return yaml.scan(text, Loader=FastLoader)


def refused_nesting(err: BaseException) -> bool:
    """Whether libyaml stopped only because of its built-in nesting limit, not because the text is invalid."""
    return isinstance(err, yaml.MarkedYAMLError) and _NESTING in (err.problem or "")


def read_with(text: str, read: Callable[[Any], T]) -> T:
    """``read(loader)`` on a libyaml loader for ``text``; again on the pure-Python loader where libyaml
    refused the nesting depth. Any other error propagates from the first reading."""
    loader: Any = FastLoader(text)
    try:
        return read(loader)
    except yaml.MarkedYAMLError as err:
        if FastLoader is PureLoader or not refused_nesting(err):
            raise
    finally:
        loader.dispose()
    loader = PureLoader(text)
    try:
        return read(loader)
    finally:
        loader.dispose()


def consume_events(loader: Any) -> None:
    """Read every event of the stream (a parse that only checks the text is valid YAML)."""
    while loader.check_event():
        loader.get_event()

