"""The two static servers (the site's ``site/serve.py`` and the browser runner's
``webarray.browser.server``) under hostile requests, over real HTTP on a free loopback
port: a NUL or a 5,000-character path gets 400 (it raised inside the handler and dropped
the connection), a Host header naming another machine gets 403 (DNS rebinding: a page
on a name made to resolve to 127.0.0.1 must not read this server), and every response,
errors included, says ``X-Content-Type-Options: nosniff``.
"""

from __future__ import annotations

import http.client
import importlib.util
import socket
from pathlib import Path

import pytest

from webarray.browser.server import ISOLATION_HEADERS, StaticServer, host_allowed

ROOT = Path(__file__).resolve().parents[1]
PAGE = b"<!doctype html><title>t</title>"


def _serve_module():
    spec = importlib.util.spec_from_file_location("webarray_site_serve", ROOT / "site" / "serve.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=["site", "runner"], scope="module")
def server(request, tmp_path_factory):
    """(port, path of a served page) of a running server."""
    if request.param == "site":
        root = tmp_path_factory.mktemp("dist")
        (root / "index.html").write_bytes(PAGE)
        with _serve_module().SiteServer(root) as s:
            yield s.url.rstrip("/").rsplit(":", 1)[1], "/index.html"
    else:
        with StaticServer() as s:
            s.pages["/index.html"] = PAGE
            yield str(s.port), "/index.html"


def _get(port: str, path: str, host: str | None = None, method: str = "GET"):
    """(status, headers, body) of one request; host None sends no Host header."""
    conn = http.client.HTTPConnection("127.0.0.1", int(port), timeout=10)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            conn.putheader("Host", host)
        conn.endheaders()
        r = conn.getresponse()
        return r.status, r.headers, r.read()
    finally:
        conn.close()


def test_page_served_with_headers(server):
    port, page = server
    status, headers, body = _get(port, page, f"127.0.0.1:{port}")
    assert (status, body) == (200, PAGE)
    assert headers["X-Content-Type-Options"] == "nosniff"
    for k, v in ISOLATION_HEADERS.items():
        assert headers[k] == v


def test_not_found_says_nosniff(server):
    port, _ = server
    status, headers, _ = _get(port, "/no-such-file.js", f"127.0.0.1:{port}")
    assert status == 404
    assert headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("path", ["/%00", "/index.html%00.js", "/a%00/b", "/%0a", "/" + "a" * 5000,
                                  "/x/" + "b/" * 2500])
def test_bad_path_answers_400(server, path):
    port, page = server
    status, headers, body = _get(port, path, f"127.0.0.1:{port}")
    assert status == 400, body
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert len(body) < 1000
    assert _get(port, page, f"127.0.0.1:{port}")[0] == 200  # and the server goes on


def test_long_file_name_is_not_found(server):
    # one path component past the file system's name limit: the lookup raised OSError
    port, page = server
    status, _, _ = _get(port, "/" + "n" * 300 + ".js", f"127.0.0.1:{port}")
    assert status == 404
    assert _get(port, page, f"127.0.0.1:{port}")[0] == 200


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "[::1]:{port}", "localhost",
                                  "127.0.0.1", "LOCALHOST:{port}"])
def test_local_host_names_allowed(server, host):
    port, page = server
    assert _get(port, page, host.format(port=port))[0] == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "localhost.evil.example:{port}",
                                  "localhost@evil.example:{port}", "127.0.0.1.nip.io:{port}",
                                  "[::1", "", "192.168.1.7:{port}"])
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_foreign_host_refused(server, host, method):
    port, page = server
    status, headers, body = _get(port, page, host.format(port=port), method)
    assert status in (400, 403)
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert PAGE not in body
    if method == "GET":
        assert b"Host" in body and len(body) < 1000


def test_missing_host_refused(server):
    port, page = server
    with socket.create_connection(("127.0.0.1", int(port)), timeout=10) as s:
        s.sendall(f"GET {page} HTTP/1.0\r\n\r\n".encode())
        reply = b""
        while chunk := s.recv(65536):
            reply += chunk
    assert reply.startswith(b"HTTP/1.0 400"), reply[:100]
    assert PAGE not in reply


@pytest.mark.parametrize("header, served, ok", [
    ("127.0.0.1:8000", "127.0.0.1", True),
    ("[::1]:8000", "127.0.0.1", True),
    ("localhost", "127.0.0.1", True),
    ("evil.example:8000", "127.0.0.1", False),
    ("192.168.1.7:8000", "127.0.0.1", False),
    ("192.168.1.7:8000", "192.168.1.7", True),  # --host 192.168.1.7
    ("mybox.lan:8000", "mybox.lan", True),  # --host mybox.lan
    ("MyBox.LAN", "mybox.lan", True),
    ("evil.example", "mybox.lan", False),
    ("192.168.1.7:8000", "0.0.0.0", True),  # every interface: any address literal
    ("[fe80::1]:8000", "::", True),
    ("evil.example:8000", "0.0.0.0", False),  # but never a name
    ("[::1", "127.0.0.1", False),
    ("", "0.0.0.0", False),
])
def test_host_allowed(header, served, ok):
    assert host_allowed(header, served) is ok
