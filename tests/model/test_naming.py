"""model/naming: the operator's object names and labels, and the selector of what we generated."""

from __future__ import annotations

import hashlib

from kubectl_testbench.model.naming import MAX_NAME, resource_name, selector


def test_a_name_of_exactly_253_characters_is_kept_and_one_more_is_cut_with_a_hash() -> None:
    namespace = "ns"
    fits = "a" * (MAX_NAME - len("-ns-workflow"))
    assert resource_name(fits, namespace, "workflow") == f"{fits}-ns-workflow"
    assert len(resource_name(fits, namespace, "workflow")) == MAX_NAME
    longer = fits + "b"
    cut = resource_name(longer, namespace, "workflow")
    digest = hashlib.sha256(f"{longer}-ns".encode()).hexdigest()[:8]
    assert len(cut) == MAX_NAME and cut.endswith(f"-{digest}-workflow") and cut.startswith(longer[:200])


def test_a_suffix_too_long_for_any_base_keeps_none_of_it() -> None:
    suffix = "s" * MAX_NAME
    digest = hashlib.sha256(b"name-ns").hexdigest()[:8]
    assert resource_name("name", "ns", suffix) == f"-{digest}-{suffix}"


def test_the_selector_of_what_we_generated_optionally_for_one_experiment() -> None:
    ours = "app.kubernetes.io/managed-by=kubectl-testbench"
    assert selector() == ours
    assert selector("weather") == f"{ours},testbench.agentic-layer.ai/experiment-name=weather"
    assert selector(namespace="team") == f"{ours},testbench.agentic-layer.ai/experiment-namespace=team"
    assert selector("w", "t") == (f"{ours},testbench.agentic-layer.ai/experiment-name=w,"
                                  "testbench.agentic-layer.ai/experiment-namespace=t")
