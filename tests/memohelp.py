"""Start a test cold: empty named in-process memos, as a new process would find them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from renderer.store.memo import memos

PARSED_TEXTS = "k8s.parse.texts"
PARSED_DOCUMENTS = "k8s.parse.documents"


def cold(*names: str) -> None:
    """Empty the memos called ``names`` (see :func:`renderer.store.memo.memos`)."""
    found = memos()
    for name in names:
        found[name].clear()


@contextlib.contextmanager
def isolated(*names: str) -> Iterator[None]:
    """The memos called ``names`` empty during the block and after it: nothing a test
    puts there (say, a validator built while schemas were unreadable) outlives it."""
    cold(*names)
    try:
        yield
    finally:
        cold(*names)
