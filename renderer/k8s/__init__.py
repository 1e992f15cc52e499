"""Kubernetes objects: safe YAML reading, object access, strict schema validation."""
