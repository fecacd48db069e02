"""The live tournament page: ``arena run --web`` and ``arena serve``.

Needs the ``web`` extra (Starlette, uvicorn): ``python3 -m pip install 'arena358[web]'``;
:func:`require_web` turns its absence into a one-line error.
"""

from __future__ import annotations

from ..errors import UserError

INSTALL_HINT = ("python3 -m pip install 'arena358[web]' (or: python3 -m pip install "
                "starlette uvicorn)")


def require_web() -> None:
    """Raises UserError (one line, with the install hint) when Starlette or uvicorn is
    missing."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise UserError(f"the live page needs the web extra ({exc.name} is not installed): "
                        f"{INSTALL_HINT}") from None
