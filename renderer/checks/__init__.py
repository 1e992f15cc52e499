"""The gate: what a stage is (:mod:`.stages`), the one ordered list of a version's stages
and its two views (:mod:`.pipeline`), the renders they share (:mod:`.renders`), coverage,
goldens, reviewed exceptions, the rule catalogue, the reports and the runner."""
