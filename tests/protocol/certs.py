"""Throw-away certificates for TLS tests (the ``cryptography`` package): a CA, a server
certificate for 127.0.0.1 / localhost signed by it, and client certificates."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass
class Pair:
    """A certificate and its key, as PEM files."""

    cert: Path
    key: Path


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _write(directory: Path, stem: str, cert: x509.Certificate,
           key: ec.EllipticCurvePrivateKey) -> Pair:
    pair = Pair(directory / f"{stem}.pem", directory / f"{stem}.key")
    pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pair.key.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return pair


def make_ca(directory: Path, cn: str) -> tuple[Pair, x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(_name(cn)).issuer_name(_name(cn))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=True,
                crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .sign(key, hashes.SHA256()))
    return _write(directory, cn, cert, key), cert, key


def make_leaf(directory: Path, stem: str, ca_cert: x509.Certificate,
              ca_key: ec.EllipticCurvePrivateKey, *, server: bool) -> Pair:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
    builder = (x509.CertificateBuilder().subject_name(_name(stem))
               .issuer_name(ca_cert.subject).public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))
    if server:
        builder = builder.add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False)
    return _write(directory, stem, builder.sign(ca_key, hashes.SHA256()), key)


@dataclass
class Certs:
    """``ca`` signed ``server`` (127.0.0.1, localhost); ``client_ca`` signed ``client``;
    ``other_ca`` signed ``stranger`` (a client certificate the arena must refuse)."""

    ca: Pair
    server: Pair
    client_ca: Pair
    client: Pair
    other_ca: Pair
    stranger: Pair


def make_certs(directory: Path) -> Certs:
    directory.mkdir(parents=True, exist_ok=True)
    ca, ca_cert, ca_key = make_ca(directory, "arena-ca")
    client_ca, cc_cert, cc_key = make_ca(directory, "clients-ca")
    other_ca, oc_cert, oc_key = make_ca(directory, "other-ca")
    return Certs(ca, make_leaf(directory, "server", ca_cert, ca_key, server=True),
                 client_ca, make_leaf(directory, "client", cc_cert, cc_key, server=False),
                 other_ca, make_leaf(directory, "stranger", oc_cert, oc_key, server=False))
