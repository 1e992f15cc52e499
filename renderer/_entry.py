"""Console entry point: the Ctrl-C handler is installed before anything heavy is
imported, so Ctrl-C during start-up is one line and exit 130 like any other time."""

from __future__ import annotations

import signal

from renderer.errors import interrupted


def main() -> None:
    signal.signal(signal.SIGINT, interrupted)
    from renderer.cli import main as run  # after the handler: see the module

    run()
