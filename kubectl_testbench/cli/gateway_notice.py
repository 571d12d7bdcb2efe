"""The notice ``init`` and ``import`` print when they write an Experiment without an AI gateway.

Such a file is valid, but ``validate --strict`` and ``render --strict`` fail on it (``semantic/no-gateway``: the
judge would call api.openai.com without a key) until it names a gateway or a RenderDefaults file beside it names
a default one. Saying so when the file is written spares the user the surprise in CI.
"""

from __future__ import annotations

import os

from kubectl_testbench.rules.semantic import SEMANTIC_NO_GATEWAY


def gateway_known(output_file: str | None) -> bool:
    """Whether a testbench-defaults.yaml that render would use for ``output_file`` names a default AI gateway
    (False on stdout: where the text lands is unknown)."""
    if output_file is None:
        return False
    from kubectl_testbench.load.sources import Source
    from kubectl_testbench.pipeline.defaults import names_gateway

    return names_gateway(Source(output_file, root=os.path.dirname(os.path.abspath(output_file))))


def no_gateway_notice() -> str:
    """One stderr line: what fails, why, and the two ways out (the flag, the defaults file)."""
    return (f"notice: no --gateway: the Experiment has no spec.aiGatewayRef, so validate --strict and render --strict "
            f"fail on it ({SEMANTIC_NO_GATEWAY.id}) until it has one (--gateway NAME [--gateway-namespace NS]) or a "
            "testbench-defaults.yaml beside it names a default gateway (spec.aiGateway.name)")
