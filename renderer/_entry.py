"""Console entry point: the SIGINT handler is installed before anything heavy is
imported, so Ctrl-C during start-up is one line and exit 130 like any other time."""

from __future__ import annotations

import os
import signal
from types import FrameType


def interrupted(signum: int, frame: FrameType | None) -> None:
    """Leave at once with one line: nothing is half-written while importing."""
    os.write(2, b"calico-render: interrupted\n")
    os._exit(130)


def main() -> None:
    signal.signal(signal.SIGINT, interrupted)
    from renderer.cli import main as run

    run()
