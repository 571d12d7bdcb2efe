"""The documents of a YAML stream as every command reads them, within the limits of one file.

kubectl splits a stream on ``---`` lines and drops blank documents unread; each document is then built on its
own (load/builder.py). What bounds a *file* lives here, once, for ``validate`` and for the readers of Argo CD's
plugin and the KRM function (integrations/documents.py): ``--max-nodes`` counts every document's nodes against
one budget, and each document costs at least ``Limits.nodes_per_document`` of it. Past either bound the last
result carries the ``yaml/too-many-nodes`` error and the rest of the file is not read.
"""

from __future__ import annotations

from collections.abc import Iterator

from kubectl_testbench.load.builder import BuildResult, Remark, build
from kubectl_testbench.load.limits import Limits
from kubectl_testbench.load.split import Chunk, split_documents
from kubectl_testbench.rules.yaml import YAML_TOO_MANY_NODES


def yaml_documents(text: str, limits: Limits) -> Iterator[tuple[int, Chunk, BuildResult | None]]:
    """``(index, chunk, built)`` for every document of ``text`` that is not blank; ``index`` counts every chunk
    (blank ones too), ``built`` is None for a chunk opened by an invalid ``---`` separator."""
    spent = 0  # nodes read so far: --max-nodes bounds the file, however many documents it holds
    read = 0
    for index, chunk in enumerate(split_documents(text)):
        if not chunk.bad_separator and (not chunk.text or chunk.text.isspace()):
            continue  # kubectl's reader drops it unread: it costs nothing
        read += 1
        if read > limits.max_documents:
            message = (f"more than {limits.max_documents} documents in one file; the rest is not read (each "
                       f"document counts as {limits.nodes_per_document} nodes: raise with --max-nodes)")
            yield index, chunk, BuildResult(error=Remark(YAML_TOO_MANY_NODES.id, message, (chunk.start_line + 1, 1),
                                                         ()))
            return
        if chunk.bad_separator:
            yield index, chunk, None
            continue
        built = build(chunk.text, chunk.start_line, limits, spent)
        spent += built.nodes
        yield index, chunk, built
        if built.error is not None and built.error.rule == YAML_TOO_MANY_NODES.id and spent > built.nodes:
            return  # the file's budget is spent (the error says so): every later document would say the same
