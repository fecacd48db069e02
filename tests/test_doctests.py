"""The worked examples written as doctests in the engine's and the scheduler's docstrings run
with the test suite (README's ``python -m pytest -n 2``): a docstring example that no longer holds
fails here."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import arena.league.schedule
import arena.rules.actions
import arena.rules.scoring
import arena.tournament.schedule

MODULES = (arena.rules.actions, arena.rules.scoring, arena.tournament.schedule,
           arena.league.schedule)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples_hold(module: ModuleType) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert result.attempted >= 3, f"{module.__name__} lost its doctests"
    assert result.failed == 0, f"{result.failed} doctest example(s) of {module.__name__} failed"
