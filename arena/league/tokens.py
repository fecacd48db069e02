"""Participants' API tokens and remote bots' connection tokens: made at random, shown once,
stored as their SHA-256.

A token is 32 random bytes in URL-safe base64 (43 characters, :func:`new_token`); the store
keeps only :func:`digest` of it, so a stolen store gives no token. Lookups go by the digest
(its timing tells nothing about stored tokens); a presented token is never logged.
"""

from __future__ import annotations

import hashlib
import secrets

#: random bytes in a token
TOKEN_BYTES = 32


def new_token() -> str:
    """A fresh token (43 URL-safe characters), never starting with ``-`` (a command line's
    ``--token T`` would take it for an option)."""
    while True:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        if not token.startswith("-"):
            return token


def digest(token: str) -> str:
    """The stored form of ``token``: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, or None."""
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None
