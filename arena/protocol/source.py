"""The protocol's ``.proto`` source as shipped inside the installed package.

``proto/threefiveeight/v1/arena.proto`` in the repository is the source; an identical copy is
package data at ``arena/protocol/proto/threefiveeight/v1/arena.proto`` (written by
``python -m arena.protocol.gen``, checked by its ``--check`` and by the tests), so a bot author
with only ``pip install arena358`` can generate code from it (``arena proto --path``).
"""

from __future__ import annotations

from pathlib import Path

#: the import path of the protocol file inside its ``-I`` root (what generated code sees)
PROTO_NAME = "threefiveeight/v1/arena.proto"
#: the ``-I`` root of the packaged copy (holds ``threefiveeight/v1/arena.proto``)
PACKAGED_ROOT = Path(__file__).resolve().parent / "proto"


def proto_path() -> Path:
    """Absolute path of the packaged ``arena.proto``.

    Raises:
        FileNotFoundError: the package was installed without its package data.
    """
    path = PACKAGED_ROOT / PROTO_NAME
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the protocol file is missing from this installation "
                                "(reinstall arena358)")
    return path


def proto_text() -> str:
    """The text of the packaged ``arena.proto`` (UTF-8).

    Raises:
        FileNotFoundError: as :func:`proto_path`.
    """
    return proto_path().read_text(encoding="utf-8")
