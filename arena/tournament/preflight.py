"""Pre-flight check of the bot commands, before the first match: every spawned bot's program
exists and is executable, its working directory exists, the script it names for a Python
or Node.js interpreter exists, and the module of ``python -m pkg.mod`` exists when ``pkg`` is a
package in the bot's working directory (checked on the file system: no bot code runs).

What it cannot see (a script that fails at start, a missing installed module for
``python -m``) is found when the bot starts: see ``never started`` in
:mod:`arena.processes.pool`.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from .config import BotEntry

_PYTHON = re.compile(r"^python(\d+(\.\d+)*)?$")
#: interpreter options that take a value (the script follows the value)
_PY_VALUE_OPTS = {"-W", "-X", "--check-hash-based-pycs"}
#: files ``python -m`` can run a module from (source, bytecode, extension modules)
_MODULE_SUFFIXES = {".py", ".pyc", ".so", ".pyd"}
_NODE_VALUE_OPTS = {"-r", "--require", "--import", "--loader", "--experimental-loader",
                    "--conditions", "-C", "--env-file", "--input-type", "--title"}


def _script(argv: Sequence[str]) -> str | None:
    """The script an interpreter command runs (``python x.py``, ``node bot.js``), or None
    (``python -m pkg``, ``python -c ...``, ``node -e ...``, another program)."""
    prog = Path(argv[0]).name
    if _PYTHON.match(prog):
        stops, value_opts = {"-m", "-c", "-"}, _PY_VALUE_OPTS
    elif prog in ("node", "nodejs"):
        stops, value_opts = {"-e", "--eval", "-p", "--print", "-"}, _NODE_VALUE_OPTS
    else:
        return None
    args = iter(argv[1:])
    for arg in args:
        if arg in stops or (arg.startswith("-m") and prog != "node" and len(arg) > 2):
            return None
        if arg in value_opts:
            next(args, None)
        elif not arg.startswith("-"):
            return arg
    return None


def check_command(argv: Sequence[str], cwd: str | None, env: dict[str, str]) -> str | None:
    """Why ``argv`` (placeholders already substituted) cannot start in ``cwd``, or None."""
    if not argv:
        return "the command is empty"
    base = Path(cwd) if cwd else Path.cwd()
    if cwd and not base.is_dir():
        return (f"its working directory {cwd} does not exist (a relative cwd is read from the "
                "config file's directory)")
    why = _program_problem(argv[0], base, env)
    if why is not None:
        return why
    script = _script(argv)
    if script is not None and not (base / script).is_file():
        return f"its script {script} does not exist (looked in {base})"
    module = _module(argv)
    if module is not None:
        return _local_module_problem(module, base)
    return None


def _module(argv: Sequence[str]) -> str | None:
    """The module of ``python [options] -m MODULE ...`` (``-mMODULE`` too), or None."""
    if not _PYTHON.match(Path(argv[0]).name):
        return None
    args = iter(argv[1:])
    for arg in args:
        if arg == "-m":
            return next(args, None)
        if arg.startswith("-m"):
            return arg[2:]
        if arg in _PY_VALUE_OPTS:
            next(args, None)
        elif not arg.startswith("-") or arg in ("-c", "-"):
            return None
    return None


def _local_module_problem(module: str, base: Path) -> str | None:
    """Why ``python -m module`` cannot find ``module`` when its top-level package is a
    directory in ``base`` (the first entry of ``sys.path`` for ``-m``), or None (found, or
    not a local package: an installed one is looked up at the bot's start)."""
    parts = module.split(".")
    where = base / parts[0]
    if len(parts) < 2 or not where.is_dir():
        return None
    for part in parts[1:-1]:
        where = where / part
        if not where.is_dir():
            return f"its module {module} does not exist (no package {where})"
    last = where / parts[-1]
    if (last / "__main__.py").is_file() or any(
            f.suffix in _MODULE_SUFFIXES and f.is_file() for f in where.glob(parts[-1] + ".*")):
        return None
    return f"its module {module} does not exist (no {last}.py or {last / '__main__.py'})"


def _program_problem(prog: str, base: Path, env: dict[str, str]) -> str | None:
    """Why the program ``prog`` (a path relative to ``base``, or a name looked up on the
    ``PATH`` of ``env``) cannot be executed, or None."""
    if "/" in prog:
        path = base / prog
        if not path.is_file():
            return f"{prog} does not exist (looked in {base})"
        if not os.access(path, os.X_OK):
            return f"{prog} is not executable (chmod +x it, or run it with its interpreter)"
        return None
    search = env.get("PATH", os.environ.get("PATH", os.defpath))
    if shutil.which(prog, path=search) is None:
        return f"{prog!r} is not a program on the PATH"
    return None


def preflight(entries: Sequence[BotEntry]) -> list[str]:
    """One line per spawned bot whose command cannot start (see the module docstring)."""
    problems = []
    for e in entries:
        if e.remote:
            continue
        argv = [a.replace("{python}", sys.executable) for a in e.command or []]
        why = check_command(argv, e.cwd, e.env)
        if why:
            problems.append(f"bot {e.name!r}: {why}")
    return problems
