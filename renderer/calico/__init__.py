"""Calico knowledge: deriving BKE templates from upstream releases, and fidelity to them."""
