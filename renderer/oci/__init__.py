"""The OCI Distribution API as a client sees it: image references, platforms,
credentials, manifests and the HTTP exchange that resolves a tag to digests.

It knows nothing of Calico or Kubernetes; :mod:`renderer.checks.registry` turns what it
resolves into findings. Registries' answers are untrusted: every body is read to a
bound and parsed strictly, every request has a timeout and a bounded number of retries.
"""
