"""Suite-wide: tournaments run bots in the bubblewrap sandbox by default ([sandbox] mode =
"bwrap"), so where bubblewrap is missing (and could not be installed: `.ci/run` installs it)
the tests that run tournaments are skipped with the reason instead of failing on the config
error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

_NEEDS_BWRAP = ("tournament", "sandbox")


def pytest_collection_modifyitems(config, items) -> None:
    if shutil.which("bwrap") is not None:
        return
    skip = pytest.mark.skip(reason="bubblewrap (bwrap) is not installed and the default "
                                   "[sandbox] mode needs it: apt-get install bubblewrap")
    root = Path(__file__).parent
    for item in items:
        parts = Path(str(item.fspath)).relative_to(root).parts
        if parts and parts[0] in _NEEDS_BWRAP:
            item.add_marker(skip)
