"""A seccomp filter for sandboxed bots: the system calls a card-playing bot never needs and an
attacker would use, refused with ``EPERM``.

- **memory outside the bot's processes**, which no reading of its processes would see and no
  tmpfs size would bound: System V shared memory and message queues (``shmget``, ``msgget``;
  POSIX shared memory lives in the sandbox's sized ``/dev/shm`` and stays available) and
  anonymous memory files (``memfd_create``, ``memfd_secret``);
- **kernel attack surface** (as Docker's default profile and nsjail's judges refuse): the
  kernel keyrings (``add_key``, ``request_key``, ``keyctl``), ``bpf``, ``perf_event_open``,
  ``userfaultfd``, ``io_uring_*`` (runtimes such as libuv fall back to threads), and
  ``ptrace`` / ``process_vm_readv`` / ``process_vm_writev`` (only the bot's own processes are
  visible anyway).

System calls of another ABI than the machine's (32-bit code on x86-64, the x32 ABI) are all
refused: their numbers differ, so the list above would not hold for them. The program is
classic BPF (``linux/filter.h``, ``linux/seccomp.h``), written out by :func:`program` for
x86-64 and AArch64 and handed to bubblewrap (``--seccomp FD``), which installs it after
``no_new_privs`` and before the bot's command; on other machines there is none
(:func:`program` returns None and the sandbox says so).
"""

from __future__ import annotations

import errno
import platform
import struct

#: per machine: (AUDIT_ARCH value, system call numbers refused)
TABLES: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (0xC000003E, {
        "shmget": 29, "msgget": 68, "memfd_create": 319, "memfd_secret": 447,
        "add_key": 248, "request_key": 249, "keyctl": 250, "bpf": 321,
        "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425,
        "io_uring_enter": 426, "io_uring_register": 427, "ptrace": 101,
        "process_vm_readv": 310, "process_vm_writev": 311}),
    "aarch64": (0xC00000B7, {
        "shmget": 194, "msgget": 186, "memfd_create": 279, "memfd_secret": 447,
        "add_key": 217, "request_key": 218, "keyctl": 219, "bpf": 280,
        "perf_event_open": 241, "userfaultfd": 282, "io_uring_setup": 425,
        "io_uring_enter": 426, "io_uring_register": 427, "ptrace": 117,
        "process_vm_readv": 270, "process_vm_writev": 271}),
}
#: x86-64's x32 ABI marks its system call numbers with this bit
X32_BIT = 0x40000000

_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_OFFSET_NR, _OFFSET_ARCH = 0, 4           # struct seccomp_data
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (default: this one, ``platform.machine()``) as the bytes
    of a ``struct sock_filter`` array, or None where there is no table for it."""
    table = TABLES.get(machine or platform.machine())
    if table is None:
        return None
    arch, numbers = table
    deny = _RET_ERRNO | errno.EPERM
    checks: list[tuple[int, int]] = []          # (opcode, value): a match jumps to "deny"
    if arch == TABLES["x86_64"][0]:
        checks.append((_JGE_K, X32_BIT))
    checks += [(_JEQ_K, nr) for nr in sorted(numbers.values())]
    out = [_insn(_LD_W_ABS, _OFFSET_ARCH), _insn(_JEQ_K, arch, jt=1),
           _insn(_RET_K, deny), _insn(_LD_W_ABS, _OFFSET_NR)]
    for i, (code, value) in enumerate(checks):
        out.append(_insn(code, value, jt=len(checks) - i))   # to the deny after "allow"
    out += [_insn(_RET_K, _RET_ALLOW), _insn(_RET_K, deny)]
    return b"".join(out)


def refused(machine: str | None = None) -> list[str]:
    """The names of the refused system calls on ``machine`` (default: this one)."""
    table = TABLES.get(machine or platform.machine())
    return sorted(table[1]) if table is not None else []
