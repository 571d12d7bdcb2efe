"""model/schema_meta: the marker that carries Kubernetes keywords from a model's field into the CRD.

The markers in the models are made when the models are imported; these tests make their own, so that the
marker's code runs where a test can see it."""

from __future__ import annotations

from kubectl_testbench.model.schema_meta import K8s


def test_a_marker_holds_the_keywords_it_was_given() -> None:
    marker = K8s(**{"x-kubernetes-map-type": "atomic", "x-kubernetes-list-type": "set"})
    assert marker.extra == {"x-kubernetes-map-type": "atomic", "x-kubernetes-list-type": "set"}
    assert K8s().extra == {}


def test_equal_markers_are_one_marker_whatever_the_order() -> None:
    one, same = K8s(a=1, b=2), K8s(b=2, a=1)
    assert one == same and hash(one) == hash(same) and len({one, same}) == 1
    assert K8s(a=1) != K8s(a=2)
