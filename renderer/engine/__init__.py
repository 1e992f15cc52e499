"""Template engines: stages 2 and 3 of the pipeline, compile then render.

Stage 2, compile, turns a template file into something renderable, once per content:
:mod:`.compile` picks the engine for the file's dialect and keeps the compile cache.
Stage 3, render, runs it with a context: :mod:`.render` renders a version's files in
name order, as BKE's controller does, each with its source map.

- :mod:`.compile`: dialect dispatch (``go`` or ``jinja2``), the compile cache keyed by
  content digest, and the digests of unchanged template files.
- :mod:`.gotemplate`: Go ``text/template`` as BKE's controller runs it: lexer, parser
  and tree (Go's shapes and errors), static analysis (the root keys a template reads),
  and the tree interpreter with Go's value semantics and printf, held to Go's bytes by
  the parity tests.
- :mod:`.jinja`: the Jinja2 dialect in a sandbox whose allocations are bounded.
- :mod:`.limits`: what a render of an untrusted template may spend (time, loop
  iterations, actions, output), shared by both dialects.
- :mod:`.sourcemap`: which template line produced each rendered line.
- :mod:`.render`: a version directory and a context to rendered files.
"""
