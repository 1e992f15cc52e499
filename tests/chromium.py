"""A small Chrome DevTools Protocol client over Chromium's ``--remote-debugging-pipe``.

The browser tests drive Debian's ``chromium`` directly: CDP messages are JSON objects
terminated by a NUL byte, written to the browser's fd 3 and read from its fd 4. That
needs nothing beyond the standard library (no websocket library, no chromedriver whose
version must match the browser, no Playwright download), opens no port, and talks to the
browser the way Puppeteer's pipe transport does. Only what the tests use is here:
open a page at a viewport size, evaluate JavaScript, collect console errors, screenshot.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

#: Where Debian installs the browser; PATH is searched as well.
CANDIDATES = ("chromium", "chromium-browser", "/usr/bin/chromium")
TIMEOUT = 60.0


def find_chromium() -> str | None:
    """The Chromium executable, or None where it is not installed."""
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


class CdpError(RuntimeError):
    """The browser answered a command with an error, closed, or did not answer in time."""


class Browser:
    """One headless Chromium, its pipe and one page session."""

    def __init__(self, executable: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="calico-render-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire() -> None:  # in the child: fds 3 and 4 are the protocol pipes
            # moved above 4 first, so placing one cannot close the other; only the two
            # placed (inheritable) descriptors survive exec, Python's own are close-on-exec
            high = [
                fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser_r, from_browser_w)
            ]
            for target, fd in zip((3, 4), high, strict=True):
                os.dup2(fd, target)

        self.process = subprocess.Popen(
            [
                executable,
                "--headless",
                "--remote-debugging-pipe",
                "--no-sandbox",  # CI runs tests as root, where the sandbox refuses to start
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--hide-scrollbars",
                "--force-color-profile=srgb",
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            close_fds=False,
            preexec_fn=wire,  # the pipes must be placed before exec
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.session = ""
        self.events: list[dict[str, Any]] = []

    # --- the protocol ---------------------------------------------------------------

    def send(self, method: str, params: dict[str, Any] | None = None, *, page: bool = True) -> Any:
        """Call ``method`` (on the page session unless ``page`` is False); its result."""
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if page and self.session:
            msg["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        reply = self._wait(lambda m: m.get("id") == self._next_id)
        if "error" in reply:
            raise CdpError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def _wait(self, done: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" not in msg:
                    self.events.append(msg)
                if done(msg):
                    return dict(msg)
            left = deadline - time.monotonic()
            if left <= 0:
                raise CdpError("the browser did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 16)
                if not chunk:
                    raise CdpError("the browser closed the pipe")
                self._buffer += chunk

    # --- what the tests do ------------------------------------------------------------

    def open(self, url: str, width: int, height: int = 900, *, mobile: bool = False) -> None:
        """A new page of ``width`` CSS pixels showing ``url``, loaded."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, page=False)
        attached = self.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, page=False
        )
        self.session = attached["sessionId"]
        self.events.clear()
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )
        self.send("Page.navigate", {"url": url})
        self._wait(lambda m: m.get("method") == "Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """``expression``'s value in the page (JSON-like values only)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise CdpError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def console_errors(self) -> list[str]:
        """Errors the page logged: exceptions, console.error, browser errors (CSP...)."""
        out = []
        for ev in self.events:
            method, params = ev.get("method"), ev.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append(str(params.get("exceptionDetails", {}).get("text")))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append(json.dumps(params.get("args")))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append(str(params["entry"].get("text")))
        return out

    def emulate_print(self, on: bool = True) -> None:
        """Lay the page out for paper (CSS ``@media print``), or back for the screen."""
        self.send("Emulation.setEmulatedMedia", {"media": "print" if on else ""})

    def pdf(self) -> bytes:
        """The page printed to PDF, as a reviewer printing it gets it (A4)."""
        shot = self.send(
            "Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69, "printBackground": True}
        )
        return base64.b64decode(shot["data"])

    def screenshot(self, path: Path) -> Path:
        """The whole page as a PNG at ``path``."""
        shot = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def close(self) -> None:
        try:
            if self.process.poll() is None:
                self.send("Browser.close", page=False)
                self.process.wait(timeout=10)
        except (CdpError, OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        finally:
            for fd in (self._to_browser, self._from_browser):
                with contextlib.suppress(OSError):
                    os.close(fd)
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
