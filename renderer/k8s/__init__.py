"""Kubernetes objects as every check sees them: parsed data with its origin.

- :mod:`~renderer.k8s.yamlio`: bounded, alias-safe YAML reading of untrusted input
  (size, UTF-8, expansion) and error locations.
- :mod:`~renderer.k8s.parse`: rendered text to :class:`~renderer.k8s.parse.K8sObject`
  (JSON data, file, line, template line), memoised by the text's digest, decoded by
  :mod:`~renderer.k8s.decode` as BKE's controller decodes it (YAML 1.1, apimachinery's
  document cutting and errors) in one pass over the events of ruamel's C parser
  (:mod:`~renderer.k8s.libyaml`); :mod:`~renderer.k8s.readings` warns of scalars the
  controller reads otherwise than YAML 1.2 (``yaml-1.1-reading``).
- :mod:`~renderer.k8s.objects`: structural access (pod specs, containers, env, label
  selectors), so rules judge objects, never text.
- :mod:`~renderer.k8s.schema`: strict validation with kubernetes-validate's schemas and
  verdicts, cached per object and Kubernetes version under the schema files' bytes; the
  compiled check of :mod:`renderer.data.fastschema` proves valid objects valid without
  jsonschema, and anything it is unsure of goes to jsonschema.
- :mod:`~renderer.k8s.diff`: the differences between two objects' data;
  :mod:`~renderer.k8s.quantity`: resource quantities as exact numbers.

Nothing here knows Calico or BKE: these modules serve any manifest the tool reads.
"""
