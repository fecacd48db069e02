"""Transport security of the Play stream: TLS on the arena's port, optional client certificates.

Server side: :class:`TlsConfig` (``[server] tls_cert``, ``tls_key``, optional ``client_ca``)
gives :meth:`TlsConfig.server_credentials` for ``add_secure_port``. With ``client_ca`` set the
arena requires and verifies a client certificate signed by that CA (mutual TLS) before a bot
may register. Client side: :func:`channel_credentials` (the SDK's ``--tls-ca`` / ``--tls-cert``
/ ``--tls-key``). Without TLS every message, the token included, travels in clear:
:func:`is_loopback` tells whether a bind address stays on this machine (the server warns
otherwise).

Files are PEM. Errors name the file: an unreadable or empty file raises
:class:`~arena.protocol.errors.ServerStartError` (server) or ``ValueError`` (client).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

import grpc

from .errors import ServerStartError

_PEM = b"-----BEGIN "


def read_pem(path: str | Path, what: str) -> bytes:
    """The bytes of a PEM file.

    Raises:
        ValueError: the file cannot be read or holds no PEM block; the message names it.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"{what} {path}: {exc.strerror or exc}") from None
    if _PEM not in data:
        raise ValueError(f"{what} {path}: not a PEM file (no '-----BEGIN' line)")
    return data


@dataclass(frozen=True)
class TlsConfig:
    """TLS settings of the arena's server (paths of PEM files).

    Attributes:
        cert: the server's certificate chain. key: its private key.
        client_ca: when set, bots must present a certificate signed by this CA (mutual TLS).
    """

    cert: str
    key: str
    client_ca: str | None = None

    def server_credentials(self) -> grpc.ServerCredentials:
        """Credentials for ``server.add_secure_port``.

        Raises:
            ServerStartError: a file cannot be read or is not PEM.
        """
        try:
            chain = read_pem(self.cert, "tls_cert")
            key = read_pem(self.key, "tls_key")
            ca = read_pem(self.client_ca, "client_ca") if self.client_ca else None
        except ValueError as exc:
            raise ServerStartError(str(exc)) from None
        return grpc.ssl_server_credentials([(key, chain)], root_certificates=ca,
                                           require_client_auth=ca is not None)


def channel_credentials(ca: str | None, cert: str | None = None,
                        key: str | None = None) -> grpc.ChannelCredentials:
    """Client credentials: verify the arena with ``ca`` (None: the system's roots), present
    ``cert`` / ``key`` (both or neither) for mutual TLS.

    Raises:
        ValueError: only one of cert and key, or a file that cannot be read / is not PEM.
    """
    if (cert is None) != (key is None):
        raise ValueError("--tls-cert and --tls-key go together (mutual TLS needs both)")
    return grpc.ssl_channel_credentials(
        root_certificates=read_pem(ca, "--tls-ca") if ca else None,
        private_key=read_pem(key, "--tls-key") if key else None,
        certificate_chain=read_pem(cert, "--tls-cert") if cert else None)


def is_loopback(bind: str) -> bool:
    """Whether ``HOST:PORT`` listens only on this machine (127.0.0.0/8, ::1, localhost)."""
    host = bind.rpartition(":")[0].strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
