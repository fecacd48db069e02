"""Every attack a hostile bot author tried that needs no resources, one after the other at the
bot's start, each reported on its own line; then the bot plays as a random bot.

A line ``BLOCKED <name>: <what happened>`` means the attack failed; ``ATTACK SUCCEEDED:
<name>: <what it got>`` that it worked. Inputs (environment): TARGET_FILE (another bot's
file), OUT_DIR (the tournament's output directory), ARENA_TCP_PORT, OPERATOR_FILES (a JSON
list of the operator's files: its home's SSH key, the config file, another tournament's
store), SECRET (what those files hold), SKIP_ATTACKS (names not to try, comma-separated: the
unsandboxed control run must not write into the arena's code).
"""

from __future__ import annotations

import ctypes
import json
import os
import socket
import sys
from pathlib import Path

MS_REMOUNT, MS_BIND = 32, 4096
MNT_DETACH = 2
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
LIBC = ctypes.CDLL(None, use_errno=True)


def _err() -> str:
    return os.strerror(ctypes.get_errno())


def read_other() -> str | None:
    """Another bot's file."""
    return Path(os.environ["TARGET_FILE"]).read_text().strip()


def write_out() -> str | None:
    path = os.path.join(os.environ["OUT_DIR"], "pwned.txt")
    with open(path, "w") as f:
        f.write("pwned\n")
    return f"wrote {path}"


def write_root() -> str | None:
    """The sandbox's own root and /dev (tmpfs built by bubblewrap): read-only."""
    done = []
    for path in ("/pwned", "/dev/pwned", "/run/pwned"):
        try:
            with open(path, "w") as f:
                f.write("x")
            done.append(path)
        except OSError as exc:
            if exc.errno not in (30, 13, 2):    # EROFS, EACCES, ENOENT
                raise
    return f"wrote {', '.join(done)}" if done else None


def tcp_connect() -> str | None:
    port = int(os.environ["ARENA_TCP_PORT"])
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass
    return f"connected to 127.0.0.1:{port}"


def list_proc() -> str | None:
    mine = {os.getpid(), os.getppid(), 1}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in mine:
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if b"sample_bots" in cmd or b"arena" in cmd or b"pytest" in cmd:
                return f"sees process {entry}: {cmd.decode(errors='replace')[:60]}"
    return None


def env_tokens() -> str | None:
    if "ARENA_TEST_SECRET" in os.environ:
        return "the arena's ARENA_TEST_SECRET"
    own = os.environ.get("ARENA_TOKEN", "").encode()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                env = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if any(v.startswith(b"ARENA_TOKEN=") and v != b"ARENA_TOKEN=" + own for v in env):
                return f"pid {entry}'s token"
    return None


def capabilities() -> str | None:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("CapEff:") and int(line.split()[1], 16):
            return f"effective capabilities {line.split()[1]}"
    return None


def root_uid() -> str | None:
    return "uid 0 inside" if os.getuid() == 0 or os.getgid() == 0 else None


def remount_rw() -> str | None:
    """Make the read-only binds writable (its own directory, the Python prefix)."""
    for target in (os.getcwd(), sys.prefix, "/"):
        if LIBC.mount(None, target.encode(), None, MS_REMOUNT | MS_BIND, None) == 0:
            return f"remounted {target} read-write"
    return None


def umount_hiding() -> str | None:
    """Remove the tmpfs that covers a hidden directory (/etc/ssh) or the scratch."""
    for target in ("/etc/ssh", "/tmp", "/dev/shm", "/run/arena"):
        if os.path.exists(target) and LIBC.umount2(target.encode(), MNT_DETACH) == 0:
            return f"unmounted {target}"
    return None


def nested_userns() -> str | None:
    """A user namespace of its own (where it would hold every capability)."""
    pid = os.fork()
    if pid == 0:
        os._exit(0 if LIBC.unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 else 1)
    _, status = os.waitpid(pid, 0)
    return "created a user namespace" if os.waitstatus_to_exitcode(status) == 0 else None


def write_arena_code() -> str | None:
    """Write into the arena's own code: its process supervisor runs outside the sandbox."""
    import arena
    for path in (Path(arena.__file__).parent / "processes" / "supervisor.py",
                 Path(arena.__file__)):
        try:
            with open(path, "a") as f:
                f.write("\n# pwned\n")
            return f"appended to {path}"
        except OSError as exc:
            if exc.errno not in (30, 13, 2):
                raise
    return None


def read_operator() -> str | None:
    """The operator's files: the checkout's root (parent of the arena package), the working
    directory and ``sys.path[0]``, the config file, output directories."""
    import arena
    secret = os.environ["SECRET"]
    root = Path(arena.__file__).resolve().parents[1]
    if (root / "pyproject.toml").exists() or (root / "examples").exists():
        return f"the checkout's root {root}"
    for path in json.loads(os.environ["OPERATOR_FILES"]):
        try:
            if secret in Path(path).read_text(errors="replace"):
                return f"read {path}"
        except OSError:
            continue
    for entry in sys.path:
        if entry and os.path.isdir(entry) and any(
                (Path(entry) / n).exists() for n in (".ssh", "runs", "pyproject.toml")):
            return f"import path entry {entry} shows the operator's files"
    return None


IPC_PRIVATE, IPC_CREAT = 0, 0o1000
#: keyctl and add_key by machine (the kernel's numbers, not the arena's table)
KEY_CALLS = {"x86_64": (250, 248), "aarch64": (219, 217)}


def hidden_memory() -> str | None:
    """Memory no reading of its processes sees: a 64 MiB System V segment, a message queue,
    an anonymous memory file."""
    got = []
    seg = LIBC.shmget(IPC_PRIVATE, 64 << 20, IPC_CREAT | 0o600)
    if seg >= 0:
        got.append(f"shmget segment {seg}")
    if LIBC.msgget(IPC_PRIVATE, IPC_CREAT | 0o600) >= 0:
        got.append("msgget queue")
    try:
        fd = os.memfd_create("hoard")
        os.close(fd)
        got.append("memfd")
    except OSError:
        pass
    return ", ".join(got) or None


def kernel_surface() -> str | None:
    """System calls judges refuse: keyrings, io_uring, ptrace, bpf."""
    import platform
    got = []
    keyctl, add_key = KEY_CALLS.get(platform.machine(), (None, None))
    if keyctl is not None and LIBC.syscall(keyctl, 0, -3, 0) >= 0:     # KEYCTL_GET_KEYRING_ID
        got.append("keyctl")
    if add_key is not None and LIBC.syscall(add_key, b"user", b"x", b"y", 1, -2) >= 0:
        got.append("add_key")
    params = ctypes.create_string_buffer(120)
    if LIBC.syscall(425, 8, params) >= 0:                                 # io_uring_setup
        got.append("io_uring_setup")
    pid = os.fork()
    if pid == 0:
        os._exit(0 if LIBC.ptrace(0, 0, None, None) == 0 else 1)        # PTRACE_TRACEME
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 0:
        got.append("ptrace")
    return ", ".join(got) or None


ATTACKS = [read_other, write_out, write_root, tcp_connect, list_proc, env_tokens,
           capabilities, root_uid, remount_rw, umount_hiding, nested_userns,
           write_arena_code, read_operator, hidden_memory, kernel_surface]


def run_all() -> None:
    skip = set(os.environ.get("SKIP_ATTACKS", "").split(","))
    for attack in ATTACKS:
        name = attack.__name__
        if name in skip:
            continue
        try:
            got = attack()
        except Exception as exc:
            print(f"BLOCKED {name}: {type(exc).__name__}: {exc}", flush=True)
            continue
        if got:
            print(f"ATTACK SUCCEEDED: {name}: {got}", flush=True)
        else:
            why = _err() if name in ("remount_rw", "umount_hiding") else "nothing"
            print(f"BLOCKED {name}: {why}", flush=True)


if __name__ == "__main__":
    run_all()
    import random

    from arena.sdk import Player, run

    class Attacker(Player):
        name = "attacker"

        def decide(self, view):
            return random.choice(view.legal_actions)

    run(Attacker(), sys.argv[1:])
