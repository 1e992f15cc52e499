"""The cyclic garbage collector paused while many acyclic objects are built.

Apart from :mod:`renderer.k8s.yamlio` (which loads documents under it) so that the
builders of a render's params and warnings pause it without loading the YAML reader.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_GC_LOCK = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a document is built. Building creates
    objects that all stay alive, and the collector's repeated passes over them made
    loading superlinear (a values file of 400,000 keys); documents hold no cycles.
    Counted, so overlapping loads in threads restore the collector once, at the end.

    The same pause serves other builders of many acyclic objects (a values file's
    params, entries and warnings: 200,000 keys spent a fifth of their CPU time in the
    collector)."""
    global _gc_pauses, _gc_was_enabled
    with _GC_LOCK:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()
