"""The library's verbs, one module each; :mod:`renderer.api` hands out their names."""
