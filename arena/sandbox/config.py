"""The ``[sandbox]`` section of a tournament config, and per-bot overrides.

::

    [sandbox]
    mode = "bwrap"          # "bwrap" (default): isolate every spawned bot; "none": trusted bots
    memory_mib = 1024       # resident memory of all the bot's processes together, MiB
    processes = 128         # processes and threads (a pids cgroup; RLIMIT_NPROC as well)
    open_files = 256        # open file descriptors per process (RLIMIT_NOFILE)
    file_size_mib = 64      # largest file a bot may write, MiB (RLIMIT_FSIZE)
    scratch_mib = 64        # size of the private writable /tmp (a tmpfs), MiB
    cpu_s_per_match = 600   # CPU seconds (all processes, user + system) per match
    ro_paths = []           # more paths bots may read (a runtime in /opt, a model file)

    [[bots]]
    name = "heavy"
    command = ["{python}", "heavy.py"]
    sandbox = { memory_mib = 2048 }      # any field above, for this bot only

The limits apply in ``mode = "bwrap"``; ``mode = "none"`` starts the bot as a plain process of
the arena's user (CPU time and memory are still measured).
"""

from __future__ import annotations

import shutil
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

from ..errors import UserError

SANDBOX_MODES = ("bwrap", "none")
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: "
                "dnf install bubblewrap) or set mode = \"none\" in [sandbox] to run bots "
                "unsandboxed (trusted bots only)")


class SandboxUnavailable(UserError):
    """``mode = "bwrap"`` was asked for but bubblewrap is not installed."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SandboxConfig(_Strict):
    """Sandbox mode and limits (see the module docstring for units and defaults)."""

    mode: Literal["bwrap", "none"] = "bwrap"
    memory_mib: StrictInt = Field(default=1024, ge=16, le=1_048_576)
    processes: StrictInt = Field(default=128, ge=8, le=100_000)
    open_files: StrictInt = Field(default=256, ge=16, le=1_048_576)
    file_size_mib: StrictInt = Field(default=64, ge=1, le=1_048_576)
    scratch_mib: StrictInt = Field(default=64, ge=1, le=1_048_576)
    cpu_s_per_match: StrictInt = Field(default=600, ge=1, le=1_000_000)
    ro_paths: list[StrictStr] = Field(default_factory=list)

    @field_validator("ro_paths")
    @classmethod
    def _absolute(cls, v: list[str]) -> list[str]:
        _absolute_paths(v)
        return v


def _absolute_paths(paths: list[str] | None) -> list[str] | None:
    for p in paths or []:
        if not p.startswith("/") or "\0" in p:
            raise ValueError(f"ro_paths holds absolute paths; got {p!r}")
    return paths


class BotSandbox(_Strict):
    """A bot's overrides of :class:`SandboxConfig` (every field optional)."""

    mode: Literal["bwrap", "none"] | None = None
    memory_mib: StrictInt | None = Field(default=None, ge=16, le=1_048_576)
    processes: StrictInt | None = Field(default=None, ge=8, le=100_000)
    open_files: StrictInt | None = Field(default=None, ge=16, le=1_048_576)
    file_size_mib: StrictInt | None = Field(default=None, ge=1, le=1_048_576)
    scratch_mib: StrictInt | None = Field(default=None, ge=1, le=1_048_576)
    cpu_s_per_match: StrictInt | None = Field(default=None, ge=1, le=1_000_000)
    ro_paths: list[StrictStr] | None = None

    @field_validator("ro_paths")
    @classmethod
    def _absolute(cls, v: list[str] | None) -> list[str] | None:
        return _absolute_paths(v)


def effective(base: SandboxConfig, override: BotSandbox | None) -> SandboxConfig:
    """``base`` with the fields ``override`` sets replaced."""
    if override is None:
        return base
    changes = {k: v for k, v in override.model_dump().items() if v is not None}
    return base.model_copy(update=changes)


def bwrap_path() -> str | None:
    """The ``bwrap`` executable on PATH, or None."""
    return shutil.which("bwrap")


def require_bwrap() -> str:
    """The ``bwrap`` executable.

    Raises:
        SandboxUnavailable: not installed (the message says how to install it).
    """
    path = bwrap_path()
    if path is None:
        raise SandboxUnavailable(f'[sandbox] mode = "bwrap" but bubblewrap (bwrap) is not '
                                 f"installed: {INSTALL_HINT}")
    return path


def mib_text(mib: int) -> str:
    """``1024`` -> ``"1 GiB"``, ``256`` -> ``"256 MiB"``."""
    return f"{mib // 1024} GiB" if mib % 1024 == 0 else f"{mib} MiB"


def describe(cfg: SandboxConfig) -> str:
    """One line for the start of a run, e.g. ``sandbox: bwrap (memory 1 GiB, ...)``."""
    if cfg.mode == "none":
        return "sandbox: none (bots run as the arena's user, unisolated: trusted bots only)"
    return (f"sandbox: bwrap (memory {mib_text(cfg.memory_mib)}, {cfg.processes} processes, "
            f"{cfg.open_files} open files, files up to {mib_text(cfg.file_size_mib)}, "
            f"scratch {mib_text(cfg.scratch_mib)}, CPU {cfg.cpu_s_per_match} s per match; "
            "no network)")
