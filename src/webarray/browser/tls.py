"""Self-signed certificates for serving pages over HTTPS to other machines (phones on the
LAN): SharedArrayBuffer and WebGPU exist only in a secure context. Used by the site's
``serve.py --https`` and the volunteer server. Needs the ``cryptography`` package, imported
when a certificate is made (ImportError without it: callers fall back or say so)."""

from __future__ import annotations

import datetime
import ipaddress


def certificate_pem(hosts: list[str], common_name: str, days: int) -> tuple[bytes, bytes]:
    """(certificate, private key) as PEM for ``hosts`` (DNS names or IP addresses), an
    ECDSA P-256 key, valid from five minutes ago for ``days`` days, for server auth."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    names = [x509.IPAddress(ipaddress.ip_address(h)) if is_ip(h) else x509.DNSName(h)
             for h in dict.fromkeys(hosts)]
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    return (cert.public_bytes(serialization.Encoding.PEM),
            key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()))


def is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
