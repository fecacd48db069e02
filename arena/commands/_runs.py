"""What ``arena run`` and ``arena gauntlet`` share: the ``--ray`` option, the output directory
with its log, the executor factory handed down to the tournament driver, and the summary of
the bots that never started."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..safetext import printable

if TYPE_CHECKING:
    from ..tournament.config import TournamentConfig
    from ..tournament.driver import ExecutorFactory


def with_ray(args: argparse.Namespace, cfg: TournamentConfig) -> TournamentConfig:
    """``cfg`` with ``[cluster] backend = "ray"`` (and the address) when ``--ray`` was given.

    Raises:
        ConfigError: Ray is not installed or the address is invalid.
    """
    if getattr(args, "ray", None) is None:
        return cfg
    from ..tournament.config import with_cluster
    fields = {"backend": "ray", **({"address": args.ray} if args.ray else {})}
    return with_cluster(cfg, args.config, **fields)


def add_ray_option(p: argparse.ArgumentParser) -> None:
    """``--ray [ADDRESS]`` (``arena run``, ``arena gauntlet``)."""
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help="play the matches on a Ray cluster ([cluster] backend = \"ray\"); "
                   "ADDRESS: auto (a cluster started here with `ray start`), local (a private "
                   "Ray instance), ray://HOST:PORT or HOST:PORT (default: [cluster] address)")


@contextmanager
def run_directory(args: argparse.Namespace, out: Path) -> Iterator[None]:
    """Create ``out`` and append the arena's log to ``OUT/arena.log`` for the duration.

    Raises:
        UserError: the directory or the log file cannot be created.
    """
    from . import _logging
    with ExitStack() as stack:
        try:
            out.mkdir(parents=True, exist_ok=True)
            stack.enter_context(_logging.log_file(out / "arena.log",
                                                  console=_logging.console_level(args)))
        except OSError as exc:
            raise UserError(f"cannot use output directory {out}: {exc.strerror or exc}") \
                from None
        yield


def executors_for(cfg: TournamentConfig) -> ExecutorFactory | None:
    """The executor factory of ``cfg``'s ``[cluster] backend``: the Ray cluster's
    (:func:`arena.cluster.executor.ray_executor`, imported only then), or None for this
    process's (the driver's default). The CLI picks it, so the tournament package never
    imports the cluster one."""
    if cfg.cluster.backend != "ray":
        return None
    from ..cluster.executor import ray_executor
    return ray_executor


#: exit status of ``arena run`` when a bot never started
EXIT_BOT_NEVER_STARTED = 3


def never_started_status(absent: tuple[tuple[str, str], ...],
                         kept_out_of: str = "the ratings") -> int:
    """Print the summary of the bots that never started; the exit status (0 or
    :data:`EXIT_BOT_NEVER_STARTED`)."""
    if not absent:
        return 0
    for name, reason in absent:
        print(f"arena: error: bot {printable(repr(name))} never started: {printable(reason)}",
              file=sys.stderr)
    names = printable(", ".join(repr(n) for n, _ in absent))
    print(f"arena: {len(absent)} bot{'s' if len(absent) > 1 else ''} never started ({names}): "
          f"their matches were forfeited and are kept out of {kept_out_of}", file=sys.stderr)
    return EXIT_BOT_NEVER_STARTED
