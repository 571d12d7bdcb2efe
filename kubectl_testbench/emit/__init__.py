"""Writing manifests: deterministic YAML/JSON, object ordering, directories, atomic writes."""
