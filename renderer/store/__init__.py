"""What outlives a single computation, in one place.

- :mod:`~renderer.store.files`: atomic file output (write beside, sync, rename), so
  readers see an old file or a new one, never half of one.
- :mod:`~renderer.store.cache`: the persistent cache of pure results (parses, schema
  and capability verdicts), keyed by content digests and the tool's fingerprint, so a
  hit can only save time.
- :mod:`~renderer.store.memo`: named, bounded in-process memos in one registry; every
  module-level cache is a :class:`~renderer.store.memo.Memo`, so a long-lived caller
  can list and clear them and none grows without bound.
"""
