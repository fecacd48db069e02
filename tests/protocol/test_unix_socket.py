"""The arena also listens on a Unix domain socket (for local and sandboxed bots): the Python
SDK and the Node.js bot dial ``unix:PATH`` (``--arena`` or ``ARENA_ADDRESS``) and play."""

from __future__ import annotations

import os
import shutil
import stat
import sys

import pytest

from arena.match import MatchSpec, run_match
from arena.protocol.errors import ServerStartError
from arena.protocol.server import ArenaServer
from arena.rules import make_config
from arena.sandbox import SocketDir

from .helpers import JS_BOT, PATIENCE_S, BotProcesses, run

pytestmark = pytest.mark.e2e
HAVE_JS = shutil.which("node") is not None and (JS_BOT / "node_modules").is_dir()


async def _unix_server(sockdir: SocketDir) -> ArenaServer:
    server = ArenaServer("127.0.0.1:0", unix_socket=sockdir.socket)
    await server.start()
    return server


def test_socket_dir_is_private_and_removed() -> None:
    with SocketDir() as d:
        assert stat.S_IMODE(os.stat(d.path).st_mode) == 0o700
        assert d.socket.endswith("/arena.sock")
        path = d.path
    assert not path.exists()


@pytest.mark.parametrize("js", [False, pytest.param(True, marks=pytest.mark.skipif(
    not HAVE_JS, reason="Node.js bot not installed: needs `node` on PATH and "
                        "`npm ci --prefix sample_bots/js_bot`"))])
def test_bots_play_over_the_unix_socket(procs: BotProcesses, js: bool) -> None:
    async def scenario():
        with SocketDir() as d:
            server = await _unix_server(d)
            assert server.unix_address == f"unix:{d.socket}"
            try:
                bots = []
                for seat in range(3):
                    server.expect(f"t{seat}", f"bot{seat}")
                    if js and seat == 1:
                        procs.spawn([shutil.which("node"), str(JS_BOT / "bot.js"),
                                     "--arena", server.unix_address, "--token", f"t{seat}"],
                                    f"bot{seat}")
                    else:
                        procs.spawn([sys.executable, "-m", "sample_bots._testbots.bot",
                                     "--arena", server.unix_address, "--token", f"t{seat}",
                                     "--log-level", "WARNING"], f"bot{seat}")
                for seat in range(3):
                    bots.append(await server.wait_for_bot(f"t{seat}", PATIENCE_S))
                assert all(b.identity.peer.startswith("unix:") for b in bots)
                result = await run_match(MatchSpec("u", make_config("blato", hand_cap=3),
                                                   seed=4), bots)
                assert result.state.finished and result.faults == (0, 0, 0)
                assert sum(result.decisions_asked) > 20
            finally:
                await server.stop()
        for proc in procs.procs:
            assert await procs.wait(proc) == 0, procs.output(proc)
    run(scenario())


def test_unlistenable_unix_socket_is_a_start_error(tmp_path) -> None:
    async def scenario():
        server = ArenaServer("127.0.0.1:0", unix_socket=str(tmp_path / "missing" / "a.sock"))
        with pytest.raises(ServerStartError, match="unix:"):
            await server.start()
    run(scenario())


def test_a_killed_arenas_socket_directory_is_removed_by_the_next(tmp_path) -> None:
    """A SIGKILLed arena leaves ``arena-<pid>-*`` behind; the next SocketDir removes it when
    its process is gone and its socket answers nobody, and keeps a live arena's (its process
    alive, or its socket listening) and anything not named so."""
    import socket
    import subprocess

    from arena.sandbox.socketdir import SOCKET_NAME
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead = int(gone.stdout)
    stale = tmp_path / f"arena-{dead}-abc"
    stale.mkdir()
    (stale / SOCKET_NAME).touch()                     # no one listens
    mine = tmp_path / f"arena-{os.getpid()}-def"      # a live arena's (this process)
    mine.mkdir()
    listening = tmp_path / f"arena-{dead}-ghi"        # its pid reused elsewhere: it answers
    listening.mkdir()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(listening / SOCKET_NAME))
    server.listen(1)
    other = tmp_path / "arena-play-xyz"
    other.mkdir()
    try:
        with SocketDir(str(tmp_path)) as made:
            assert made.path.name.startswith(f"arena-{os.getpid()}-")
            left = {p.name for p in tmp_path.iterdir()}
            assert stale.name not in left
            assert {mine.name, listening.name, other.name, made.path.name} <= left
    finally:
        server.close()
