"""Judging Experiments as the API server would (schema, metadata, CEL), plus semantic checks."""
