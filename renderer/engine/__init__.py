"""Template engines: compile Go text/template or Jinja2 source, render it bounded."""
