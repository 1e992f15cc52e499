"""calico-render: render and gate BKE's Calico manifests."""

__version__ = "0.1.0"
