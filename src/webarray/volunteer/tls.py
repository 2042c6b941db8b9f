"""A self-signed certificate for serving the worker page over HTTPS.

A phone that reaches the server by its LAN address needs HTTPS: SharedArrayBuffer and
WebGPU exist only in a secure context, and plain http:// is one only on localhost. The
certificate names localhost, this host's name and its addresses; the browser warns once
(no authority signed it) and, once accepted, the page runs as a secure context.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
from pathlib import Path

from cryptography import x509

from webarray.browser.tls import certificate_pem, is_ip  # noqa: F401  (is_ip: __main__ uses it)

VALID_DAYS = 30


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses that another device could reach (and loopback)."""
    found = {"127.0.0.1"}
    try:
        found.update(socket.gethostbyname_ex(socket.gethostname())[2])
    except OSError:
        pass
    # the address of the default route: connecting a UDP socket sends nothing
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1, never routed anywhere
            found.add(s.getsockname()[0])
        except OSError:
            pass
    return sorted(found, key=lambda a: (a.startswith("127."), a))


def self_signed(folder: Path, hosts: list[str] | None = None) -> tuple[Path, Path]:
    """(certificate, key) as PEM files in folder, made for ``hosts`` (names or addresses;
    default: localhost, this host's name and addresses). Made again when missing, expired
    within a day, or not naming every host."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    hosts = hosts or ["localhost", socket.gethostname(), *local_addresses()]
    names = [x509.IPAddress(ipaddress.ip_address(h)) if is_ip(h) else x509.DNSName(h) for h in dict.fromkeys(hosts)]
    now = datetime.datetime.now(datetime.timezone.utc)
    if cert_path.is_file() and key_path.is_file():
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        have = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        if set(names) <= set(have) and cert.not_valid_after_utc > now + datetime.timedelta(days=1):
            return cert_path, key_path
    cert_pem, key_pem = certificate_pem(hosts, "webarray volunteer server", VALID_DAYS)
    key_path.touch(mode=0o600)
    key_path.write_bytes(key_pem)
    cert_path.write_bytes(cert_pem)
    return cert_path, key_path
