"""Bundled data (manifests, schemas, goldens) and the JSON Schemas of our formats."""
