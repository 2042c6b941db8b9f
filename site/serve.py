"""Serves the built site (site/dist) on this machine, cross-origin isolated:
``python site/serve.py [--host H] [--port P] [--dir D]``.

Every response carries the COOP/COEP headers that SharedArrayBuffer needs (the same
headers as the browser runner's server, ``webarray.browser.server``, whose
``GuardedHandler`` also refuses malformed paths with 400 and, against DNS rebinding,
Host headers that name another machine with 403). Files are served
with ``Last-Modified`` and ``Cache-Control: no-cache``, so a reload revalidates (a 304)
instead of downloading Pyodide again, and the page's download progress warms the cache
that the Python worker then reads from. Port 0 picks a free port; a busy port moves on to
the next ones. The URL is printed on the first line of stdout.
"""

from __future__ import annotations

import argparse
import email.utils
import errno
import http.server
import sys
import threading
from pathlib import Path
from urllib.parse import unquote

from webarray.browser.server import CONTENT_TYPES, ISOLATION_HEADERS, GuardedHandler

HERE = Path(__file__).resolve().parent


def make_handler(root: Path, host: str = "127.0.0.1"):
    root = root.resolve()

    class Handler(GuardedHandler):
        served_host = host

        def _resolve(self) -> Path | None:
            path = unquote(self.path.split("?", 1)[0].split("#", 1)[0])
            candidate = (root / path.lstrip("/")).resolve()
            if not candidate.is_relative_to(root):
                return None
            try:
                if candidate.is_dir():
                    candidate = candidate / "index.html"
                return candidate if candidate.is_file() else None
            except OSError:  # a name past the file system's limits: not a file
                return None

        def _headers(self, status: int, file: Path | None, length: int | None) -> None:
            self.send_response(status)
            for k, v in ISOLATION_HEADERS.items():
                self.send_header(k, v)
            self.send_header("Cache-Control", "no-cache")
            if file is not None:
                self.send_header("Content-Type", CONTENT_TYPES.get(file.suffix, "application/octet-stream"))
                self.send_header("Last-Modified", email.utils.formatdate(file.stat().st_mtime, usegmt=True))
            if length is not None:
                self.send_header("Content-Length", str(length))
            self.end_headers()

        def _serve(self, body: bool) -> None:
            file = self._resolve()
            if file is None:
                self.send_error(404)
                return
            since = self.headers.get("If-Modified-Since")
            if since:
                try:
                    if int(file.stat().st_mtime) <= email.utils.parsedate_to_datetime(since).timestamp():
                        self._headers(304, None, None)
                        return
                except (TypeError, ValueError):
                    pass
            data = file.read_bytes()
            self._headers(200, file, len(data))
            if body:
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        def do_GET(self):  # noqa: N802 - the http.server API
            self._serve(True)

        def do_HEAD(self):  # noqa: N802
            self._serve(False)

        def log_message(self, *args):
            pass

    return Handler


class SiteServer:
    """The server as a context manager (the site test runs it on a free port)."""

    def __init__(self, root: Path, host: str = "127.0.0.1", port: int = 0, tries: int = 20):
        handler = make_handler(root, host)
        for attempt in range(tries if port else 1):
            try:
                self._httpd = http.server.ThreadingHTTPServer((host, port + attempt if port else 0), handler)
                break
            except OSError as e:
                if e.errno != errno.EADDRINUSE or attempt == tries - 1:
                    raise
        self._httpd.daemon_threads = True
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        self.url = f"http://{shown}:{self._httpd.server_address[1]}/"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> "SiteServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python site/serve.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000, or the next free one)")
    parser.add_argument("--dir", type=Path, default=HERE / "dist", help="the built site (default site/dist)")
    ns = parser.parse_args(argv)
    if not (ns.dir / "index.html").is_file():
        print(f"serve: {ns.dir} holds no built site; run 'npm run build' first", file=sys.stderr)
        return 1
    with SiteServer(ns.dir, ns.host, ns.port) as server:
        print(server.url, flush=True)
        print("serve: webarray's site (cross-origin isolated); Ctrl+C stops it", file=sys.stderr, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
