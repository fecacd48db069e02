"""Errors shared across the arena's layers above the rules engine."""

from __future__ import annotations


class UserError(Exception):
    """A mistake in the user's input (bad config file, bad option, missing file).

    The CLI prints it as one ``arena: error: ...`` line and exits with status 2.
    """
