"""Checks of a version: findings, the rule registry, the version pipeline, goldens."""
