"""A static file server on 127.0.0.1 (a free port) for one browser run.

Every response carries the cross-origin isolation headers that SharedArrayBuffer needs
(``isolation=False`` leaves them out, to test that the page explains what is missing).
Routes are a fixed table of URL prefixes to folders and of URLs to single files, plus
pages generated in memory; nothing else on disk is reachable. ``uploads`` names the files
the page may write (PUT, at most ``MAX_UPLOAD`` bytes, replaced whole) or delete: the
runner's memory snapshot.

``GuardedHandler`` holds what both this server and the site's (``site/serve.py``) refuse
before routing: a path no file can have (a control character such as ``%00``, or longer
than ``MAX_PATH``) gets 400 instead of an exception in the handler that dropped the
connection, and a Host header that names another machine gets 403. The Host check stops
DNS rebinding: a page on evil.example whose name the attacker makes resolve to 127.0.0.1
reaches the server as same-origin, but its requests say ``Host: evil.example``. Only the
host name is compared, not the port: a name is what rebinding forges, and a port
forwarded by an editor or container keeps working.
"""

from __future__ import annotations

import http.server
import ipaddress
import os
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
}

# the content type of a served file, by suffix (the site's server uses it too)
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".map": "application/json",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".py": "text/x-python; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}


MAX_PATH = 2048  # characters in a request path; the longest served path is far shorter
MAX_UPLOAD = 512 << 20  # bytes of one PUT: a Pyodide memory snapshot is about 30 MiB
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_HOSTS = frozenset({"", "0.0.0.0", "::"})


def host_allowed(header: str, served: str) -> bool:
    """Whether a request's Host header names this server, listening on ``served``:
    a loopback name, the served address or name itself, or, when the server listens on
    every interface, any address literal (only a name can be rebound)."""
    try:
        name = urlsplit("//" + header).hostname
    except ValueError:  # a malformed IPv6 literal
        return False
    if not name:
        return False
    served = served.strip("[]").lower()
    if name in LOOPBACK_NAMES or name == served:
        return True
    if served not in WILDCARD_HOSTS:
        return False
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class GuardedHandler(http.server.BaseHTTPRequestHandler):
    """A request handler that refuses bad paths and foreign Host headers before any
    routing (module doc) and marks every response, errors included, nosniff."""

    served_host = "127.0.0.1"  # the address the server listens on (subclasses set it)

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        refusal = self._refusal()
        if refusal is not None:
            code, why = refusal  # why goes in the body only, escaped: it quotes the request
            self.send_error(code, None, why)
            return False
        return True

    def _refusal(self) -> tuple[int, str] | None:
        host = self.headers.get("Host")
        if host is None:
            return 400, "the request has no Host header"
        if not host_allowed(host, self.served_host):
            return 403, f"Host {host[:100]!r} is not this server's address (DNS rebinding?)"
        if len(self.path) > MAX_PATH:
            return 400, f"the request path has {len(self.path)} characters; at most {MAX_PATH}"
        if any(c < " " or c == "\x7f" for c in unquote(self.path)):
            return 400, "the request path holds a control character"
        return None

    def end_headers(self) -> None:
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()


def _replace(target: Path, data: bytes) -> None:
    """Writes target whole: readers see the old file or the new one, never a part."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{threading.get_ident()}.part")
    partial.write_bytes(data)
    os.replace(partial, target)


class StaticServer:
    def __init__(self, *, isolation: bool = True):
        self.folders: dict[str, Path] = {}
        self.files: dict[str, Path] = {}
        self.pages: dict[str, bytes] = {}
        self.uploads: dict[str, Path] = {}
        self.isolation = isolation
        server = self

        class Handler(GuardedHandler):
            def do_GET(self):  # noqa: N802 - the http.server API
                body, ctype = server._lookup(self.path.split("?", 1)[0])
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                if server.isolation:
                    for k, v in ISOLATION_HEADERS.items():
                        self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_PUT(self):  # noqa: N802
                target = server.uploads.get(unquote(self.path.split("?", 1)[0]))
                length = int(self.headers.get("Content-Length") or -1)
                if target is None:
                    self.send_error(404)
                elif not 0 <= length <= MAX_UPLOAD:
                    self.send_error(413, None, f"an upload has at most {MAX_UPLOAD} bytes")
                else:
                    _replace(target, self.rfile.read(length))
                    self._empty(204)

            def do_DELETE(self):  # noqa: N802
                target = server.uploads.get(unquote(self.path.split("?", 1)[0]))
                if target is None:
                    self.send_error(404)
                    return
                target.unlink(missing_ok=True)
                self._empty(204)

            def _empty(self, status: int) -> None:
                self.send_response(status)
                if server.isolation:
                    for k, v in ISOLATION_HEADERS.items():
                        self.send_header(k, v)
                self.end_headers()

            def log_message(self, *args):
                pass

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def _lookup(self, path: str) -> tuple[bytes | None, str]:
        path = unquote(path)
        ctype = CONTENT_TYPES.get(Path(path).suffix, "application/octet-stream")
        if path in self.pages:
            return self.pages[path], ctype
        file = self.files.get(path)
        if file is None:
            for prefix, folder in self.folders.items():
                if path.startswith(prefix):
                    candidate = (folder / path[len(prefix):]).resolve()
                    try:
                        if candidate.is_relative_to(folder.resolve()) and candidate.is_file():
                            file = candidate
                    except OSError:  # a name past the file system's limits: not a file
                        pass
                    break
        if file is None:
            return None, ctype
        return file.read_bytes(), ctype

    def __enter__(self) -> "StaticServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
