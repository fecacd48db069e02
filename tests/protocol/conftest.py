"""Fixtures of the protocol tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import BotProcesses


@pytest.fixture
def procs(tmp_path: Path) -> Iterator[BotProcesses]:
    """Bot process spawner; every process group still running is killed at teardown."""
    bp = BotProcesses(tmp_path)
    try:
        yield bp
    finally:
        bp.kill_all()
