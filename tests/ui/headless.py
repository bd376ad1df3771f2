"""A small driver for headless Chromium over the DevTools protocol, spoken on a pipe
(``--remote-debugging-pipe``: fd 3 in, fd 4 out, one JSON message per NUL), so the tests
need no Selenium, no Playwright and no WebSocket library: only the system's chromium.

Clicks and keys are real input events (``Input.dispatch*``), not ``element.click()``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


def executable() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _high(fd: int) -> int:
    """``fd`` moved to a number of 10 or more (close-on-exec), out of the way of 3 and 4."""
    import fcntl

    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class BrowserError(AssertionError):
    pass


class Browser:
    def __init__(self, profile: Path, *, width: int = 1280, height: int = 860) -> None:
        exe = executable()
        if exe is None:
            raise BrowserError("no chromium")
        cmd_read, cmd_write = (_high(fd) for fd in os.pipe())  # chromium reads fd 3
        out_read, out_write = (_high(fd) for fd in os.pipe())  # chromium writes fd 4

        def fds() -> None:  # sources are >= 10, so dup2 always clears close-on-exec
            os.dup2(cmd_read, 3)
            os.dup2(out_write, 4)

        # Its own HOME too: chromium writes ~/.cache and ~/.config (fonts, crash reports)
        # whatever --user-data-dir says.
        home = profile / "home"
        home.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
               "XDG_CACHE_HOME": str(home / ".cache")}  # fmt: skip
        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=fds,  # before any thread of ours runs
            close_fds=False,  # fds 3 and 4 (dup2 clears close-on-exec); ours are O_CLOEXEC
        )
        os.close(cmd_read)
        os.close(out_write)
        self._out = os.fdopen(cmd_write, "wb", buffering=0)
        self._in = os.fdopen(out_read, "rb", buffering=0)
        self._next = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        target = self.call("Target.createTarget", url="about:blank", session=False)
        attached = self.call(
            "Target.attachToTarget", targetId=target["targetId"], flatten=True, session=False
        )
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.viewport(width, height)

    # --- the protocol -----------------------------------------------------------------

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = self._in.read(65536)
            except OSError:
                chunk = b""
            if not chunk:
                with self._cond:
                    self._replies[-1] = {"error": {"message": "chromium went away"}}
                    self._cond.notify_all()
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                with self._cond:
                    if "id" in message:
                        self._replies[message["id"]] = message
                    else:
                        self.events.append(message)
                    self._cond.notify_all()

    def call(self, method: str, *, session: bool = True, timeout: float = 30, **params: Any) -> Any:
        with self._cond:
            self._next += 1
            ident = self._next
        message: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        self._out.write(json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._cond:
            while ident not in self._replies:
                if -1 in self._replies:
                    raise BrowserError(f"{method}: chromium went away")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BrowserError(f"{method}: no answer within {timeout} s")
                self._cond.wait(left)
            reply = self._replies.pop(ident)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    # --- the page --------------------------------------------------------------------------

    def viewport(self, width: int, height: int, *, mobile: bool = False) -> None:
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=mobile,
        )

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression (a promise is awaited)."""
        done = self.call(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in done:
            raise BrowserError(f"{expression}: {done['exceptionDetails']}")
        return done["result"].get("value")

    def wait(self, expression: str, timeout: float = 15) -> None:
        """Poll until ``expression`` is truthy (in JavaScript: an element counts)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.eval(f"Boolean({expression})")
            except BrowserError:  # the page is still loading (no body yet, say)
                value = None
            if value:
                return
            if time.monotonic() > deadline:
                raise BrowserError(f"waited {timeout} s for: {expression}")
            time.sleep(0.03)

    def goto(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def errors(self) -> list[str]:
        """Uncaught exceptions and console errors the page met so far."""
        out = []
        for event in list(self.events):
            if event.get("method") == "Runtime.exceptionThrown":
                out.append(str(event["params"]["exceptionDetails"]))
            elif event.get("method") == "Log.entryAdded":
                entry = event["params"]["entry"]
                if entry.get("level") == "error":
                    out.append(f"{entry.get('source')}: {entry.get('text')}")
            elif (
                event.get("method") == "Runtime.consoleAPICalled"
                and event["params"].get("type") == "error"
            ):
                out.append(str(event["params"].get("args")))
        return out

    def box(self, selector: str) -> dict[str, float]:
        found = self.eval(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
            " if (!el) return null; el.scrollIntoView({block: 'center', inline: 'center'});"
            " const r = el.getBoundingClientRect();"
            " return {x: r.x, y: r.y, w: r.width, h: r.height}; })()"
        )
        if not found:
            raise BrowserError(f"no element {selector}")
        return found  # type: ignore[no-any-return]

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element (scrolled into view first)."""
        self.wait(f"document.querySelector({json.dumps(selector)})")
        r = self.box(selector)
        x, y = r["x"] + r["w"] / 2, r["y"] + r["h"] / 2
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def type(self, selector: str, text: str) -> None:
        self.eval(f"document.querySelector({json.dumps(selector)}).focus()")
        self.call("Input.insertText", text=text)

    KEYS = {  # noqa: RUF012
        "Enter": (13, "\r"),
        "Tab": (9, ""),
        "ArrowRight": (39, ""),
        "ArrowLeft": (37, ""),
        "ArrowDown": (40, ""),
        "ArrowUp": (38, ""),
        " ": (32, " "),
    }

    def key(self, name: str) -> None:
        code, text = self.KEYS[name]
        common = {"key": name, "windowsVirtualKeyCode": code, "code": name}
        self.call("Input.dispatchKeyEvent", type="keyDown", text=text, **common)
        self.call("Input.dispatchKeyEvent", type="keyUp", **common)

    def screenshot(self, path: Path, *, full: bool = False) -> Path:
        shot = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=full)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def close(self) -> None:
        with contextlib.suppress(BrowserError):
            self.call("Browser.close", session=False, timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._out.close()
        self._in.close()
