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
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

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
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "webarray volunteer server")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_path.touch(mode=0o600)
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
