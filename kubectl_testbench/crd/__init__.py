"""Generation of the Experiment CRD and its JSON Schema from the pydantic models."""
