"""What BKE's own code does, modelled so calico-render renders what production renders.

:mod:`renderer.bke.context` builds each template file's render context by the rules of
the cluster-api provider's addon code (common parameters, per-file addon params, the
image prefix set last, the Typha policy).
"""
