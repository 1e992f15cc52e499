"""What BKE's own code does, modelled so calico-render renders what production renders.

- :mod:`~renderer.bke.cluster`: BKECluster/BKEConfig and BKENode input, read safely and
  checked against its schema (the addon params and node count BKE decides from).
- :mod:`~renderer.bke.context`: each template file's render context by the rules of the
  cluster-api provider's addon code (common parameters, per-file addon params, the Typha
  keys, the image prefix set last), with where every value came from.
- :mod:`~renderer.bke.values`: the context of a render without a config: the
  controller's defaults and bkeadm's params, then values the caller supplies, checked
  against the render-context schema.
- :mod:`~renderer.bke.unread`: params the caller gave that the templates never read or
  whose value no branch takes (no silent drops).

Pure where it can be: data in, data out; what is Calico's own (Typha policy, object
names) lives in :mod:`renderer.calico`, and no module here names a command-line flag
in its errors. This package and :mod:`renderer.calico` do not import each other (the
import contract in pyproject.toml); the check in :mod:`renderer.checks` joins them.
"""

#: The context keys the controller sets from the addon's Typha decision, whatever the
#: config says (:data:`renderer.calico.policy.TYPHA_KEYS` names the same keys; a test
#: keeps the two equal).
TYPHA_KEYS = ("allowTypha", "typhaReplicas")
