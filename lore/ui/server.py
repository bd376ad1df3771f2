"""The HTTP server of ``lore ui``: the standard library's ``ThreadingHTTPServer`` bound to
127.0.0.1 only, serving the front end from ``lore/ui/static`` and the JSON API of
``lore.ui.routes``.

Guards, every request: a Host header other than the address it serves is refused (so a
web page cannot reach it through DNS rebinding); a write (POST) needs the per-run token
the page was served with, a same-origin request and a JSON body, and is refused when
the server is read-only. Every reply forbids scripts, styles and frames from elsewhere.
"""

from __future__ import annotations

import hmac
import secrets
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson

from lore.errors import LoreError
from lore.store.core import Store
from lore.ui.routes import Reply, Routes

HOST = "127.0.0.1"  # the only address lore ui listens on
DEFAULT_PORT = 8473
MAX_BODY = 1 << 20
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}
STATUS = {
    "usage": 400,
    "forbidden": 403,
    "not_found": 404,
    "read_only": 403,
    "duplicate": 409,
    "invalid": 422,
    "data": 422,
    "secret": 422,
    "lock_timeout": 503,
}
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


class Refused(LoreError):
    """A request the server will not serve: a foreign Host, a write without the token."""

    code = "forbidden"


class ReadOnly(LoreError):
    code = "read_only"


def static_files() -> dict[str, bytes]:
    """Every file the page loads, by URL path: ``lore/ui/static`` and the graph view that
    ``lore graph export --format html`` inlines (one implementation for both)."""
    out: dict[str, bytes] = {}

    def walk(node: Any, prefix: str) -> None:
        for child in node.iterdir():
            if child.is_dir():
                walk(child, f"{prefix}{child.name}/")
            elif any(child.name.endswith(ext) for ext in TYPES):
                out[f"{prefix}{child.name}"] = child.read_bytes()

    walk(files("lore.ui") / "static", "/static/")
    graph = files("lore.graph")
    for name in ("view.js", "view.css"):
        out[f"/static/graph/{name}"] = (graph / name).read_bytes()
    return out


class UIServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, store: Store, *, port: int = DEFAULT_PORT, read_only: bool = False) -> None:
        self.routes = Routes(store, read_only=read_only)
        self.read_only = read_only
        self.token = secrets.token_urlsafe(32)
        self.files = static_files()
        super().__init__((HOST, port), Handler)
        self.port = int(self.server_address[1])
        self.origins = {f"http://{h}:{self.port}" for h in (HOST, "localhost")}
        self.hosts = {f"{h}:{self.port}" for h in (HOST, "localhost")}
        if self.port == 80:
            self.hosts |= {HOST, "localhost"}
        page = self.files["/static/index.html"].decode("utf-8")
        page = page.replace("{{TOKEN}}", self.token)
        page = page.replace("{{READ_ONLY}}", "1" if read_only else "0")
        self.files["/"] = page.encode("utf-8")

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/"

    def server_close(self) -> None:
        super().server_close()
        self.routes.close()


class Handler(BaseHTTPRequestHandler):
    server: UIServer
    protocol_version = "HTTP/1.1"  # keep-alive: the page loads a dozen small files
    disable_nagle_algorithm = True  # headers and body leave at once (no delayed-ACK wait)
    server_version = "lore-ui"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows only what ``lore ui`` says."""

    # --- the verbs ----------------------------------------------------------------------

    def do_GET(self) -> None:
        self._serve(self._get)

    def do_HEAD(self) -> None:
        self._serve(self._get, body=False)

    def do_POST(self) -> None:
        self._serve(self._post)

    def _refuse_method(self) -> None:
        self._serve(lambda: self._error(405, {"ok": False, "error": "method not allowed",
                                              "code": "usage"}))  # fmt: skip

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse_method

    # --- guards and dispatch --------------------------------------------------------------

    def _serve(self, handle: Any, *, body: bool = True) -> None:
        self._body = body
        try:
            host = self.headers.get("Host", "")
            if host not in self.server.hosts:
                raise Refused(
                    f"refused: Host {host!r} is not this server's address ({HOST}:"
                    f"{self.server.port}); open {self.server.url}"
                )
            handle()
        except LoreError as exc:
            doc = exc.to_dict()
            if exc.code == "secret":  # the page has no --allow-secret to offer
                from lore.secrets.gate import ALLOW_HINT

                hint = " (the web app never stores a credential)"
                doc["error"] = doc["error"].replace(ALLOW_HINT, hint)
            self._error(STATUS.get(exc.code, 500), doc)
        except Exception as exc:  # a bug must not take the server down; say what it was
            error = {"ok": False, "error": f"internal error: {type(exc).__name__}: {exc}"}
            self._error(500, {**error, "code": "internal"})

    def _get(self) -> None:
        parts = urlsplit(self.path)
        path = parts.path
        if path.startswith("/api/"):
            reply = self.server.routes.get(path, parse_qs(parts.query))
            self._json(200, reply)
            return
        data = self.server.files.get(path)
        if data is None or path == "/static/index.html":
            raise _not_found(path)
        ext = path[path.rfind(".") :] if path != "/" else ".html"
        self._send(200, data, TYPES[ext], {"Cache-Control": "no-cache"})

    def _post(self) -> None:
        origin = self.headers.get("Origin")
        if origin is not None and origin not in self.server.origins:
            raise Refused(f"refused: a write from another origin ({origin})")
        if self.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            raise Refused("refused: a write from another site")
        token = self.headers.get("X-Lore-Token", "")
        if not hmac.compare_digest(token.encode(), self.server.token.encode()):
            raise Refused("refused: a write needs this run's token (reload the page)")
        if self.server.read_only:
            raise ReadOnly("refused: lore ui runs --read-only; writes are off")
        kind = self.headers.get("Content-Type", "").split(";")[0].strip()
        if kind != "application/json":
            raise Refused("refused: a write's body must be JSON (Content-Type: application/json)")
        length = self.headers.get("Content-Length") or "0"
        size = int(length) if length.isdigit() else -1
        if not 0 <= size <= MAX_BODY:
            raise Refused(f"refused: a body of {length} bytes (0 to {MAX_BODY})")
        try:
            body = orjson.loads(self.rfile.read(size) or b"{}")
        except orjson.JSONDecodeError as exc:
            from lore.errors import UsageError

            raise UsageError(f"the body is not JSON: {exc}") from None
        if not isinstance(body, dict):
            from lore.errors import UsageError

            raise UsageError("the body must be a JSON object")
        self._json(200, self.server.routes.post(urlsplit(self.path).path, body))

    # --- replies ---------------------------------------------------------------------------

    def _json(self, status: int, reply: Reply) -> None:
        extra = {"Cache-Control": "no-store"}
        if reply.total is not None:
            extra["X-Total-Count"] = str(reply.total)
        self._send(status, orjson.dumps(reply.doc), "application/json", extra)

    def _error(self, status: int, doc: dict[str, Any]) -> None:
        if status >= 400 and self.command == "POST":
            self.close_connection = True  # an unread body must not be taken for a request
        self._send(status, orjson.dumps(doc), "application/json", {"Cache-Control": "no-store"})

    def _send(self, status: int, data: bytes, kind: str, extra: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in {**HEADERS, **extra}.items():
            self.send_header(name, value)
        self.end_headers()
        if getattr(self, "_body", True):
            self.wfile.write(data)


def _not_found(path: str) -> LoreError:
    from lore.errors import NotFoundError

    return NotFoundError(f"no such page: {path}", id=path)
