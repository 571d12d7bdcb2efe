"""render/rendered: one object's text in each format, and the one stream they make on stdout."""

from __future__ import annotations

import json

from kubectl_testbench.render.rendered import rendered, stream

OBJ = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "café", "namespace": "testkube"},
       "data": {"k": "ü"}}


def test_json_is_indented_by_four_keeps_non_ascii_and_ends_with_a_newline() -> None:
    obj = rendered(OBJ, "json", "a.yaml:1")
    assert obj.text == json.dumps(OBJ, indent=4, ensure_ascii=False) + "\n"
    assert '    "kind": "ConfigMap",' in obj.text and "café" in obj.text and obj.text.endswith("}\n")
    assert obj.data == OBJ and obj.filename == "configmap_testkube_café.json" and obj.origin == "a.yaml:1"


def test_yaml_keeps_its_data_only_when_asked() -> None:
    assert rendered(OBJ, "yaml", "a.yaml:1").data is None
    assert rendered(OBJ, "yaml", "a.yaml:1", keep_data=True).data == OBJ
    assert rendered(OBJ, "yaml", "a.yaml:1").text.startswith("apiVersion: v1\nkind: ConfigMap\n")


def test_a_manifest_passed_through_says_so() -> None:
    assert rendered(OBJ, "yaml", "r.yaml:3", manifest=True).manifest
    assert not rendered(OBJ, "yaml", "r.yaml:3").manifest


def test_the_stream_is_yaml_documents_or_one_v1_list() -> None:
    one, two = rendered(OBJ, "yaml", "a:1"), rendered({**OBJ, "kind": "Secret"}, "yaml", "a:1")
    assert stream([one, two], "yaml") == one.text + "---\n" + two.text
    listed = stream([rendered(OBJ, "json", "a:1")], "json")
    assert listed == json.dumps({"apiVersion": "v1", "kind": "List", "items": [OBJ]}, indent=4,
                                ensure_ascii=False) + "\n"
    assert json.loads(listed)["apiVersion"] == "v1" and "ü" in listed
