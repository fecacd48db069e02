"""Submitted bot archives: checked before anything is unpacked, stored by content.

A submission is one gzip-compressed tar archive of a bot's directory (``arena submit`` makes
it). Before a byte lands on disk, :func:`inspect` reads the whole archive as a stream and
refuses it, with the reason, when it

- is larger than ``max_bytes`` compressed or ``max_unpacked_bytes`` unpacked (a
  decompression bomb stops at the cap, not at the end), or holds more than ``max_files``
  entries;
- holds anything but regular files and directories (no symbolic or hard link, device, FIFO);
- names a path that is absolute, climbs with ``..``, holds a backslash, a NUL or a control
  character, is longer than 255 bytes, or appears twice;
- has no ``bot.toml`` at its top (:mod:`arena.league.manifest`).

An accepted archive is stored once, under the SHA-256 of its **content** (:func:`store`; the
files' paths, executable bits and bytes, in path order, whatever the archive's timestamps or
compression): the archive as ``archives/<digest>.tar.gz`` and its files unpacked read-only
into ``bots/<digest>/``, each written to a temporary name and renamed, so a killed server
leaves either nothing or the whole submission. The same files submitted twice are the same
submission.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import itertools
import os
import shutil
import stat
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..atomic import atomic_write_bytes
from ..errors import UserError

#: the manifest every archive holds at its top
MANIFEST = "bot.toml"
#: default caps: compressed size, unpacked size, entries (``[league]`` may lower them)
MAX_BYTES = 20 << 20
MAX_UNPACKED_BYTES = 100 << 20
MAX_FILES = 5000
_MAX_NAME = 255


class ArchiveError(UserError):
    """A submission archive refused before unpacking (the message says why)."""


@dataclass(frozen=True)
class Inspected:
    """An archive that passed :func:`inspect`: the ``sha256`` of its content (hex, see the
    module docstring), its ``files`` (relative POSIX paths, sorted), their
    ``unpacked_bytes`` in all, and the ``manifest`` text."""

    sha256: str
    files: tuple[str, ...]
    unpacked_bytes: int
    manifest: str


class _Capped(io.RawIOBase):
    """A readable stream that fails once more than ``cap`` bytes were read from ``inner``."""

    def __init__(self, inner: io.BufferedIOBase | gzip.GzipFile, cap: int) -> None:
        self.inner, self.cap, self.count = inner, cap, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:     # type: ignore[override]
        data = self.inner.read(min(len(buffer), self.cap + 1 - self.count))
        self.count += len(data)
        if self.count > self.cap:
            raise ArchiveError(f"the archive unpacks to more than {self.cap >> 20} MiB")
        buffer[:len(data)] = data
        return len(data)


def _check_name(name: str) -> str:
    """The member's clean relative path, or :class:`ArchiveError`."""
    if not name or "\\" in name or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise ArchiveError(f"archive entry {name!r}: a backslash or control character")
    if len(name.encode("utf-8", "surrogateescape")) > _MAX_NAME:
        raise ArchiveError(f"archive entry {name[:40]!r}...: a path over {_MAX_NAME} bytes")
    path = PurePosixPath(name)
    if path.is_absolute():
        raise ArchiveError(f"archive entry {name!r}: an absolute path")
    if ".." in path.parts:
        raise ArchiveError(f"archive entry {name!r}: climbs out with '..'")
    clean = str(PurePosixPath(*[p for p in path.parts if p != "."]))
    if clean in ("", "."):
        return ""
    return clean


def _kind(member: tarfile.TarInfo) -> str | None:
    """Why ``member`` is refused by its type, or None for a file or a directory."""
    if member.isfile() or member.isdir():
        return None
    kinds = {tarfile.SYMTYPE: "a symbolic link", tarfile.LNKTYPE: "a hard link",
             tarfile.CHRTYPE: "a device", tarfile.BLKTYPE: "a device",
             tarfile.FIFOTYPE: "a FIFO"}
    return kinds.get(member.type, "not a regular file or directory")


def inspect(data: bytes, *, max_bytes: int = MAX_BYTES,
            max_unpacked_bytes: int = MAX_UNPACKED_BYTES,
            max_files: int = MAX_FILES) -> Inspected:
    """Check a submission archive (gzip tar bytes) without writing anything (see the module
    docstring for the rules).

    Raises:
        ArchiveError: naming the first problem found.
    """
    if len(data) > max_bytes:
        raise ArchiveError(f"the archive is {len(data) >> 20} MiB; at most {max_bytes >> 20} "
                           "MiB are accepted")
    seen: set[str] = set()
    digests: dict[str, str] = {}           # file -> "x" or "-" (executable) + its SHA-256
    total = 0
    manifest = None
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as gz:
            stream = io.BufferedReader(_Capped(gz, max_unpacked_bytes + (1 << 20)))
            with tarfile.open(fileobj=stream, mode="r|") as tar:
                for member in tar:
                    name = _check_name(member.name)
                    why = _kind(member)
                    if why is not None:
                        raise ArchiveError(f"archive entry {member.name!r}: {why}")
                    if name in seen:
                        raise ArchiveError(f"archive entry {name!r} appears twice")
                    seen.add(name)
                    if len(seen) > max_files:
                        raise ArchiveError(f"the archive holds more than {max_files} entries")
                    if not member.isfile():
                        continue
                    total += member.size
                    if total > max_unpacked_bytes:
                        raise ArchiveError(f"the archive unpacks to more than "
                                           f"{max_unpacked_bytes >> 20} MiB")
                    f = tar.extractfile(member)
                    body = f.read() if f is not None else b""
                    digests[name] = ("x" if member.mode & 0o111 else "-") + \
                        hashlib.sha256(body).hexdigest()
                    if name == MANIFEST:
                        manifest = body.decode("utf-8", "replace")
    except ArchiveError:
        raise
    except (tarfile.TarError, OSError, EOFError, gzip.BadGzipFile) as exc:
        raise ArchiveError(f"not a gzip-compressed tar archive ({exc})") from None
    if manifest is None:
        raise ArchiveError(f"the archive has no {MANIFEST} at its top")
    files = tuple(sorted(digests))
    listing = "".join(f"{name}\0{digests[name]}\n" for name in files)
    return Inspected(hashlib.sha256(listing.encode("utf-8", "surrogateescape")).hexdigest(),
                     files, total, manifest)


def store(root: Path, data: bytes, checked: Inspected) -> Path:
    """Store a checked archive under ``root`` (content-addressed, see the module docstring);
    returns the bot's unpacked directory. Idempotent: an archive stored before is not
    written again.

    Raises:
        OSError: the disk refused the write (nothing half-written is left).
    """
    archive = root / "archives" / f"{checked.sha256}.tar.gz"
    unpacked = root / "bots" / checked.sha256
    if not archive.is_file():
        archive.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(archive, data)
    if unpacked.is_dir():
        return unpacked
    unpacked.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{checked.sha256[:12]}.", dir=unpacked.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tar.extractall(tmp, filter="data")    # the standard library's checks, again
        _read_only(tmp)
        os.rename(tmp, unpacked)
    except BaseException:
        _writable(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return unpacked


def sweep(root: Path) -> int:
    """Remove what a killed server left half-written under ``root``: the temporary files of
    ``archives/`` and the temporary directories of ``bots/`` (names starting with a dot;
    whole ones never do). Call it while holding the league directory's lock. Returns how
    many were removed."""
    removed = 0
    for sub in ("archives", "bots"):
        top = root / sub
        if not top.is_dir():
            continue
        for path in top.iterdir():
            if not path.name.startswith("."):
                continue
            if path.is_dir() and not path.is_symlink():
                _writable(path)
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
            removed += 1
    return removed


def _read_only(top: Path) -> None:
    """Files 0444 (0555 when executable), directories 0555: a version never changes."""
    for path in sorted(top.rglob("*"), key=lambda p: -len(p.parts)):
        mode = path.lstat().st_mode
        if stat.S_ISDIR(mode):
            path.chmod(0o555)
        else:
            path.chmod(0o555 if mode & 0o111 else 0o444)
    top.chmod(0o555)


def _writable(top: Path) -> None:
    """Undo :func:`_read_only` so a failed unpack can be removed."""
    for path in [top, *top.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)


def _npm_own(rel: Path) -> bool:
    """Whether ``rel`` lies in npm's ``.bin`` or ``.cache`` of a ``node_modules``."""
    return any(a == "node_modules" and b in (".bin", ".cache")
               for a, b in itertools.pairwise(rel.parts))


def pack(directory: Path) -> bytes:
    """A submission archive of ``directory`` (``arena submit``): its regular files and
    directories, relative to it, without ``__pycache__``, ``.git`` and npm's command links
    and cache (``node_modules/.bin``, ``node_modules/.cache``: a bot never runs them); other
    links are refused.

    Raises:
        ArchiveError: ``directory`` is not one, a symbolic link, or no ``bot.toml`` in it.
    """
    if not directory.is_dir():
        raise ArchiveError(f"{directory}: no such directory (give the bot's directory, the "
                           f"one holding its {MANIFEST})")
    if not (directory / MANIFEST).is_file():
        raise ArchiveError(f"{directory}: no {MANIFEST} here (a bot directory holds its "
                           "manifest)")
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(directory.rglob("*")):
            rel = path.relative_to(directory)
            if any(part in ("__pycache__", ".git") for part in rel.parts) or _npm_own(rel):
                continue
            if path.is_symlink():
                raise ArchiveError(f"{path}: a symbolic link (submissions hold regular files "
                                   "only)")
            info = tar.gettarinfo(str(path), arcname=rel.as_posix())
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            if path.is_file():
                with open(path, "rb") as f:
                    tar.addfile(info, f)
            elif path.is_dir():
                tar.addfile(info)
    return buf.getvalue()
