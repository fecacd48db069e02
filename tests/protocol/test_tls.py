"""TLS on the arena's port with throw-away certificates: the SDK and the JS bot over TLS, mutual
TLS refusing bots without (or with a foreign) client certificate, config and argument errors,
and a whole tournament whose started bots are handed the CA."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import grpc
import pytest

from arena.match.runner import MatchSpec, run_match
from arena.protocol.errors import ServerStartError
from arena.protocol.tls import TlsConfig, channel_credentials, is_loopback
from arena.rules import make_config
from arena.tournament.config import ConfigError, parse_config

from .certs import Certs, make_certs
from .helpers import (PATIENCE_S, BotProcesses, RawClient, js_bot_installed, run,
                      started_server)

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("certs"))


def _tls(certs: Certs, mutual: bool = False) -> TlsConfig:
    return TlsConfig(str(certs.server.cert), str(certs.server.key),
                     str(certs.client_ca.cert) if mutual else None)


def test_sdk_and_js_bots_play_over_tls_and_plaintext_clients_are_refused(
        certs: Certs, procs: BotProcesses) -> None:
    async def scenario():
        server, port = await started_server(tls=_tls(certs))
        try:
            names = ["py-a", "py-b", "js"]
            for i, name in enumerate(names):
                server.expect(f"t{i}", name)
            procs.python_bot(port, "t0", "py-a", "--tls-ca", str(certs.ca.cert))
            procs.python_bot(port, "t1", "py-b", "--tls-ca", str(certs.ca.cert),
                             "--tls-server-name", "localhost")
            if js_bot_installed():
                procs.js_bot(port, "t2", "js", "--tls-ca", str(certs.ca.cert))
            else:
                procs.python_bot(port, "t2", "js", "--tls-ca", str(certs.ca.cert))
            bots = [await server.wait_for_bot(f"t{i}", PATIENCE_S) for i in range(3)]
            result = await run_match(MatchSpec("tls", make_config("blato", hand_cap=2), seed=4),
                                     bots)
            assert result.state.finished and result.faults == (0, 0, 0)
            # a plaintext client cannot even open the stream on a TLS port
            plain = RawClient(port)
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await plain.register("t0")
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE
            await plain.close()
        finally:
            await server.stop()
        for proc in procs.procs:
            assert await procs.wait(proc) == 0, procs.output(proc)[1]
    run(scenario())


def test_mutual_tls_requires_a_client_certificate_from_the_client_ca(
        certs: Certs, procs: BotProcesses) -> None:
    async def scenario():
        server, port = await started_server(tls=_tls(certs, mutual=True))
        server.expect("tok", "alpha")
        try:
            for label, extra in (("no-cert", ()), ("stranger", (
                    "--tls-cert", str(certs.stranger.cert), "--tls-key",
                    str(certs.stranger.key)))):
                proc = procs.python_bot(port, "tok", label, "--tls-ca", str(certs.ca.cert),
                                        "--connect-timeout", "2", *extra)
                assert await procs.wait(proc) == 1, label       # cannot connect
                assert "tok" not in server.bots
            good = RawClient(port, channel_credentials(
                str(certs.ca.cert), str(certs.client.cert), str(certs.client.key)))
            assert (await good.register("tok")).accepted
            assert server.bots["tok"].alive
            await good.close()
            if js_bot_installed():
                server.expect("js", "js")
                procs.js_bot(port, "js", "js-mtls", "--tls-ca", str(certs.ca.cert),
                             "--tls-cert", str(certs.client.cert),
                             "--tls-key", str(certs.client.key))
                assert (await server.wait_for_bot("js", PATIENCE_S)).alive
        finally:
            await server.stop()
    run(scenario())


def test_unreadable_tls_files_are_a_clear_start_error(certs: Certs, tmp_path: Path) -> None:
    (tmp_path / "empty.pem").write_text("not a certificate\n")

    async def scenario(tls):
        server, _ = await started_server(tls=tls)
        await server.stop()
    with pytest.raises(ServerStartError, match=r"tls_key .*missing.key"):
        run(scenario(TlsConfig(str(certs.server.cert), str(tmp_path / "missing.key"))))
    with pytest.raises(ServerStartError, match=r"tls_cert .*empty.pem: not a PEM file"):
        run(scenario(TlsConfig(str(tmp_path / "empty.pem"), str(certs.server.key))))


def test_sdk_tls_argument_errors_exit_2(certs: Certs, procs: BotProcesses) -> None:
    async def scenario():
        cases = [(("--tls-ca", str(certs.ca.cert), "--tls-cert", str(certs.client.cert)),
                  "--tls-cert and --tls-key go together"),
                 (("--tls-ca", "/no/such/ca.pem"), "--tls-ca /no/such/ca.pem"),
                 (("--tls-server-name", "x"), "need --tls-ca")]
        for i, (extra, message) in enumerate(cases):
            proc = procs.python_bot(1, "tok", f"args{i}", *extra)
            assert await procs.wait(proc) == 2
            assert message in procs.output(proc)[1]
    run(scenario())


def test_is_loopback() -> None:
    assert is_loopback("127.0.0.1:0") and is_loopback("[::1]:5") and is_loopback("localhost:1")
    assert not is_loopback("0.0.0.0:0") and not is_loopback("[::]:0")
    assert not is_loopback("arena.example.org:50051")


def test_server_tls_config_errors(certs: Certs) -> None:
    base = '[[bots]]\nname = "a"\ncommand = ["x"]\n'
    cases = [(f'[server]\ntls_cert = "{certs.server.cert}"\n', "tls_cert and tls_key go together"),
             (f'[server]\nclient_ca = "{certs.client_ca.cert}"\n', "need tls_cert and tls_key"),
             (f'[server]\ntls_cert = "{certs.server.cert}"\ntls_key = "/no/such.key"\n',
              "tls_key: no such file: /no/such.key")]
    for text, message in cases:
        with pytest.raises(ConfigError, match=message):
            parse_config(text + base, "t.toml")


@pytest.mark.slow
def test_tournament_over_tls_hands_started_bots_the_ca(certs: Certs, tmp_path: Path) -> None:
    from ..tournament.helpers import config_text, new_tag, wait_no_processes
    from arena.tournament.runner import run_tournament
    tag = new_tag()
    text = config_text(None, tag=tag) + (
        f'[server]\ntls_cert = "{certs.server.cert}"\ntls_key = "{certs.server.key}"\n'
        f'tls_ca = "{certs.ca.cert}"\n')
    cfg = parse_config(text, "t.toml")
    assert cfg.server.bot_env() == {"ARENA_TLS_CA": str(certs.ca.cert.resolve())}
    outcome = asyncio.run(run_tournament(cfg, tmp_path / "out", progress=False))
    assert outcome.played_now == 6 and outcome.disqualifications == ()
    rows = json.loads((tmp_path / "out" / "standings.json").read_text())["standings"]
    assert [r["forfeits"] for r in rows] == [0, 0, 0]
    assert wait_no_processes(tag) == []
