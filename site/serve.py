"""Serves the built site (site/dist) on this machine, cross-origin isolated:
``python site/serve.py [--host H] [--port P] [--dir D] [--https | --cert C --key K]``.

Every response carries the COOP/COEP headers that SharedArrayBuffer needs (the same
headers as the browser runner's server, ``webarray.browser.server``, whose
``GuardedHandler`` also refuses malformed paths with 400 and, against DNS rebinding,
Host headers that name another machine with 403). Files are served
with ``Last-Modified`` and ``Cache-Control: no-cache``, so a reload revalidates (a 304)
instead of downloading Pyodide again, and the page's download progress warms the cache
that the Python worker then reads from. Port 0 picks a free port; a busy port moves on to
the next ones. The URL is printed on the first line of stdout.

Phones. SharedArrayBuffer and WebGPU need a secure context: https, or localhost. A
phone that opens this machine's LAN address over plain http gets neither, so
``--https`` serves TLS, with ``--cert``/``--key`` given (e.g. made by mkcert, which a
phone can be told to trust) or a self-signed certificate for this machine's names and
addresses, made on request into ``build/https/`` (with the ``cryptography`` package, else
the ``openssl`` command) and reused while it covers them. The phone warns about a
self-signed certificate once; past that the page is a secure context.
"""

from __future__ import annotations

import argparse
import datetime
import email.utils
import errno
import http.server
import ipaddress
import json
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import unquote

from webarray.browser.server import CONTENT_TYPES, ISOLATION_HEADERS, GuardedHandler
from webarray.browser.tls import certificate_pem

HERE = Path(__file__).resolve().parent
CERT_DIR = HERE.parent / "build" / "https"
CERT_DAYS = 365


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
    """The server as a context manager (the site test runs it on a free port); with tls
    (an ``ssl.SSLContext``, see ``tls_context``) it speaks https."""

    def __init__(self, root: Path, host: str = "127.0.0.1", port: int = 0, tries: int = 20,
                 tls: ssl.SSLContext | None = None):
        handler = make_handler(root, host)
        for attempt in range(tries if port else 1):
            try:
                self._httpd = http.server.ThreadingHTTPServer((host, port + attempt if port else 0), handler)
                break
            except OSError as e:
                if e.errno != errno.EADDRINUSE or attempt == tries - 1:
                    raise
        self._httpd.daemon_threads = True
        if tls is not None:
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
        shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
        self.scheme = "https" if tls is not None else "http"
        self.port = self._httpd.server_address[1]
        self.url = f"{self.scheme}://{_url_host(shown)}:{self.port}/"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> "SiteServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def lan_addresses() -> list[str]:
    """This machine's addresses that other machines on its networks can reach (no packet
    is sent: connecting a UDP socket only picks the outgoing interface)."""
    found = set()
    for target in ("192.0.2.1", "10.255.255.255"):  # TEST-NET and a private address: routes only
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((target, 9))
                found.add(s.getsockname()[0])
        except OSError:
            pass
    try:
        found.update(a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET))
    except OSError:
        pass
    return sorted(a for a in found if not ipaddress.ip_address(a).is_loopback)


def certificate_names(host: str) -> list[str]:
    """What a certificate for this server must name: loopback, the host asked for, and,
    for a wildcard host, this machine's name and LAN addresses."""
    names = ["localhost", "127.0.0.1", "::1"]
    if host not in ("", "0.0.0.0", "::"):
        names.append(host)
    else:
        names += [socket.gethostname(), *lan_addresses()]
    return list(dict.fromkeys(names))


class CertificateError(RuntimeError):
    """No certificate could be made; the message says what to do instead."""


def self_signed(names: list[str], folder: Path = CERT_DIR) -> tuple[Path, Path]:
    """A certificate and key for names in folder: the one there when it covers them and
    has a month left, else a new self-signed one (``cryptography``, else ``openssl``)."""
    cert, key, meta = folder / "cert.pem", folder / "key.pem", folder / "names.json"
    try:
        old = json.loads(meta.read_text())
        if set(names) <= set(old["names"]) and datetime.date.fromisoformat(old["until"]) > (
                datetime.date.today() + datetime.timedelta(days=30)) and cert.is_file() and key.is_file():
            return cert, key
    except (OSError, ValueError, KeyError):
        pass
    folder.mkdir(parents=True, exist_ok=True)
    try:
        _with_cryptography(names, cert, key)
    except ImportError:
        _with_openssl(names, cert, key)
    until = datetime.date.today() + datetime.timedelta(days=CERT_DAYS)
    meta.write_text(json.dumps({"names": names, "until": until.isoformat()}))
    return cert, key


def _alt_names(names: list[str]) -> list[tuple[str, str]]:
    """(kind, value) per name: an IP address or a DNS name."""
    out = []
    for n in names:
        try:
            out.append(("IP", str(ipaddress.ip_address(n))))
        except ValueError:
            out.append(("DNS", n))
    return out


def _with_cryptography(names: list[str], cert: Path, key: Path) -> None:
    cert_pem, key_pem = certificate_pem(names, f"webarray site on {socket.gethostname()}", CERT_DAYS)
    key.write_bytes(key_pem)
    key.chmod(0o600)
    cert.write_bytes(cert_pem)


def _with_openssl(names: list[str], cert: Path, key: Path) -> None:
    exe = shutil.which("openssl")
    if exe is None:
        raise CertificateError(
            "--https without --cert/--key makes a self-signed certificate, which needs the Python "
            "package cryptography (pip install cryptography) or the openssl command; neither is "
            "here. Give a certificate with --cert FILE --key FILE (e.g. from mkcert) instead")
    alt = ",".join(f"{k}:{v}" for k, v in _alt_names(names))
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(
            [exe, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-days", str(CERT_DAYS), "-subj", f"/CN=webarray site on {socket.gethostname()}",
             "-addext", f"subjectAltName={alt}", "-keyout", f"{tmp}/key.pem", "-out", f"{tmp}/cert.pem"],
            capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise CertificateError(f"openssl could not make a certificate: {r.stderr.strip()}")
        shutil.move(f"{tmp}/key.pem", key)
        shutil.move(f"{tmp}/cert.pem", cert)
    key.chmod(0o600)


def tls_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python site/serve.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0: every interface, for a phone)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000, or the next free one)")
    parser.add_argument("--dir", type=Path, default=HERE / "dist", help="the built site (default site/dist)")
    parser.add_argument("--https", action="store_true",
                        help="serve https (a phone needs it: SharedArrayBuffer and WebGPU want a secure "
                        "context); without --cert, with a self-signed certificate made into build/https/")
    parser.add_argument("--cert", type=Path, help="the certificate (PEM) to serve https with (implies --https)")
    parser.add_argument("--key", type=Path, help="its private key (PEM)")
    ns = parser.parse_args(argv)
    if not (ns.dir / "index.html").is_file():
        print(f"serve: {ns.dir} holds no built site; run 'npm run build' first", file=sys.stderr)
        return 1
    if (ns.cert is None) != (ns.key is None):
        parser.error("--cert and --key go together")
    tls = None
    if ns.https or ns.cert:
        try:
            cert, key = (ns.cert, ns.key) if ns.cert else self_signed(certificate_names(ns.host))
            tls = tls_context(cert, key)
        except (CertificateError, OSError, ssl.SSLError) as e:
            print(f"serve: {e}", file=sys.stderr)
            return 1
    with SiteServer(ns.dir, ns.host, ns.port, tls=tls) as server:
        print(server.url, flush=True)
        print("serve: webarray's site (cross-origin isolated); Ctrl+C stops it", file=sys.stderr, flush=True)
        if ns.host in ("", "0.0.0.0", "::"):
            for address in lan_addresses():
                print(f"serve: from another machine or a phone: {server.scheme}://{_url_host(address)}:{server.port}/",
                      file=sys.stderr, flush=True)
            if tls is None:
                print("serve: over plain http other machines get no secure context (no SharedArrayBuffer, "
                      "no WebGPU): add --https", file=sys.stderr, flush=True)
        if tls is not None and ns.cert is None:
            print(f"serve: self-signed certificate {cert}: the browser warns once (or install it on the "
                  "phone as trusted)", file=sys.stderr, flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
