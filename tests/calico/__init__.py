"""Tests of :mod:`renderer.calico`."""
