"""Submission archives: every hostile archive is refused with its reason before anything is
unpacked; a good one is stored once, by content, read-only."""

from __future__ import annotations

import gzip
import io
import os
import tarfile
from pathlib import Path

import pytest

from arena.league.archive import ArchiveError, inspect, pack, store, sweep
from arena.league.manifest import ManifestError, parse_manifest

MANIFEST = b'name = "mybot"\ncommand = ["{python}", "bot.py"]\n'


def tar_gz(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz, \
            tarfile.open(fileobj=gz, mode="w") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def entry(name: str, data: bytes = b"x", kind: bytes = tarfile.REGTYPE,
          link: str = "", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes | None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, mode
    if kind == tarfile.REGTYPE:
        info.size = len(data)
        return info, data
    return info, None


GOOD = [entry("bot.toml", MANIFEST), entry("bot.py", b"print('hi')\n", mode=0o755)]


@pytest.mark.parametrize("bad,reason", [
    ([entry("/etc/passwd")], "an absolute path"),
    ([entry("../outside.py")], "climbs out with '..'"),
    ([entry("lib/../../x")], "climbs out with '..'"),
    ([entry("link", kind=tarfile.SYMTYPE, link="/etc/shadow")], "a symbolic link"),
    ([entry("hard", kind=tarfile.LNKTYPE, link="bot.py")], "a hard link"),
    ([entry("dev", kind=tarfile.CHRTYPE)], "a device"),
    ([entry("fifo", kind=tarfile.FIFOTYPE)], "a FIFO"),
    ([entry("a\\b.py")], "a backslash or control character"),
    ([entry("bad\nname")], "a backslash or control character"),
    ([entry("bot.py", b"again")], "appears twice"),
])
def test_hostile_entries_are_refused_with_the_reason(bad, reason) -> None:
    with pytest.raises(ArchiveError, match=reason):
        inspect(tar_gz(*GOOD, *bad))


def test_sizes_and_counts_are_capped_before_unpacking() -> None:
    big = tar_gz(*GOOD, entry("data.bin", b"\0" * (3 << 20)))
    assert len(big) < 64 << 10                       # a small upload ...
    with pytest.raises(ArchiveError, match="unpacks to more than 2 MiB"):
        inspect(big, max_unpacked_bytes=2 << 20)     # ... that would unpack to 3 MiB
    with pytest.raises(ArchiveError, match="at most 0 MiB"):
        inspect(big, max_bytes=1000)
    many = tar_gz(*GOOD, *(entry(f"f{i}.txt") for i in range(20)))
    with pytest.raises(ArchiveError, match="more than 10 entries"):
        inspect(many, max_files=10)


def test_not_an_archive_and_no_manifest() -> None:
    with pytest.raises(ArchiveError, match="not a gzip-compressed tar archive"):
        inspect(b"PK\x03\x04 a zip file")
    with pytest.raises(ArchiveError, match=r"no bot\.toml at its top"):
        inspect(tar_gz(entry("sub/bot.toml", MANIFEST)))


def test_a_good_archive_is_stored_once_by_content_read_only(tmp_path) -> None:
    bot = tmp_path / "bot"
    (bot / "lib").mkdir(parents=True)
    (bot / "bot.toml").write_bytes(MANIFEST)
    (bot / "bot.py").write_text("print('hi')\n")
    (bot / "lib" / "util.py").write_text("X = 1\n")
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    (bot / "node_modules" / ".bin").mkdir(parents=True)       # npm's command links
    (bot / "node_modules" / ".bin" / "tool").symlink_to("../tool/cli.js")
    (bot / "node_modules" / "tool").mkdir()
    (bot / "node_modules" / "tool" / "cli.js").write_text("//\n")
    data = pack(bot)
    checked = inspect(data)
    assert checked.files == ("bot.py", "bot.toml", "lib/util.py",       # no caches, no links
                             "node_modules/tool/cli.js")
    assert parse_manifest(checked.manifest).command == ["{python}", "bot.py"]
    root = tmp_path / "league"
    unpacked = store(root, data, checked)
    assert unpacked == root / "bots" / checked.sha256
    assert (unpacked / "lib" / "util.py").read_text() == "X = 1\n"
    assert not os.access(unpacked / "bot.py", os.W_OK) or os.geteuid() == 0
    assert (unpacked / "bot.py").stat().st_mode & 0o777 == 0o444
    assert (unpacked / "lib").stat().st_mode & 0o777 == 0o555
    assert store(root, data, checked) == unpacked                      # idempotent
    # the same files packed again (other timestamps) are the same submission
    os.utime(bot / "bot.py", (1, 1))
    assert inspect(pack(bot)).sha256 == checked.sha256
    (bot / "bot.py").write_text("print('changed')\n")
    assert inspect(pack(bot)).sha256 != checked.sha256
    assert sorted(p.name for p in (root / "archives").iterdir()) == [f"{checked.sha256}.tar.gz"]


def test_pack_refuses_links_and_needs_a_manifest(tmp_path) -> None:
    with pytest.raises(ArchiveError, match=r"missing: no such directory \(give the bot's"):
        pack(tmp_path / "missing")
    with pytest.raises(ArchiveError, match=r"no bot\.toml here"):
        pack(tmp_path)
    (tmp_path / "bot.toml").write_bytes(MANIFEST)
    (tmp_path / "secret").symlink_to("/etc/hostname")
    with pytest.raises(ArchiveError, match="a symbolic link"):
        pack(tmp_path)


@pytest.mark.parametrize("text,error", [
    ('name = "a b"\ncommand = ["x"]\n', "bot.toml: name: 1-40 letters"),
    ('name = "a"\n', "bot.toml: needs a command"),
    ('name = "a"\nremote = true\ncommand = ["x"]\n', "a remote bot runs elsewhere"),
    ('name = "a"\ncommand = ["x"]\nenv = { ARENA_TOKEN = "t" }\n', "not an environment"),
    ('name = "a"\ncommand = ["x"]\ncwd = "/"\n', "bot.toml: cwd: unknown field"),
    ('nme = "a"\ncommand = ["x"]\n', "bot.toml: nme: unknown field (did you mean 'name'?)"),
    ('name = = 1', "not valid TOML"),
])
def test_bad_manifests_are_one_line(text, error) -> None:
    with pytest.raises(ManifestError) as err:
        parse_manifest(text)
    assert error in str(err.value) and "\n" not in str(err.value)


def test_sweep_removes_what_a_killed_server_half_wrote_only(tmp_path) -> None:
    """A server killed while storing leaves dot-named temporaries (atomic_write_bytes's file,
    store's unpacking directory, made read-only already); sweep removes those, never a whole
    archive or bot."""
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_bytes(MANIFEST)
    data = pack(bot)
    checked = inspect(data)
    root = tmp_path / "league"
    whole = store(root, data, checked)
    (root / "archives" / f".{checked.sha256}.tar.gz.x1.tmp").write_bytes(data[:10])
    half = root / "bots" / f".{checked.sha256[:12]}.x2"
    (half / "lib").mkdir(parents=True)
    (half / "lib" / "a.py").write_text("")
    half.chmod(0o555)
    (half / "lib").chmod(0o555)
    assert sweep(root) == 2
    assert sorted(p.name for p in (root / "archives").iterdir()) == [f"{checked.sha256}.tar.gz"]
    assert list((root / "bots").iterdir()) == [whole]
    assert sweep(root) == 0


def test_the_shipped_league_example_and_bot_directory_are_accepted() -> None:
    """examples/league.toml parses as a league's config and examples/league-bot/ packs into an
    archive the league accepts, its manifest naming the bot (what a newcomer starts from)."""
    from arena.league.config import load_league_config
    from arena.league.manifest import parse_manifest
    root = Path(__file__).resolve().parents[2] / "examples"
    cfg = load_league_config(root / "league.toml")
    assert cfg.league.first_blocks == 5 and cfg.sandbox.mode == "bwrap"
    checked = inspect(pack(root / "league-bot"))
    manifest = parse_manifest(checked.manifest)
    assert manifest.name == "mybot" and manifest.command == ["{python}", "bot.py"]
    assert not manifest.remote
