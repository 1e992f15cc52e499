"""The manifests tree: version directories and their template files."""
