"""Calico knowledge: names, the Typha policy and contract, the release rules, scale
advice, phased plans, pre-pulled images, and deriving BKE templates from upstream
releases with fidelity to them."""
