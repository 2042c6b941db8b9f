"""A static file server on 127.0.0.1 (a free port) for one browser run.

Every response carries the cross-origin isolation headers that SharedArrayBuffer needs
(``isolation=False`` leaves them out, to test that the page explains what is missing).
Routes are a fixed table of URL prefixes to folders and of URLs to single files, plus
pages generated in memory; nothing else on disk is reachable.
"""

from __future__ import annotations

import http.server
import threading
from pathlib import Path

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


class StaticServer:
    def __init__(self, *, isolation: bool = True):
        self.folders: dict[str, Path] = {}
        self.files: dict[str, Path] = {}
        self.pages: dict[str, bytes] = {}
        self.isolation = isolation
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
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

            def log_message(self, *args):
                pass

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def _lookup(self, path: str) -> tuple[bytes | None, str]:
        from urllib.parse import unquote

        path = unquote(path)
        ctype = CONTENT_TYPES.get(Path(path).suffix, "application/octet-stream")
        if path in self.pages:
            return self.pages[path], ctype
        file = self.files.get(path)
        if file is None:
            for prefix, folder in self.folders.items():
                if path.startswith(prefix):
                    candidate = (folder / path[len(prefix):]).resolve()
                    if candidate.is_relative_to(folder.resolve()) and candidate.is_file():
                        file = candidate
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
