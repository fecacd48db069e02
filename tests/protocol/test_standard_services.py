"""The arena server's standard gRPC services (reflection, health) seen by generic clients, and
the gRPC status that ends a rejected registration; the plaintext warning."""

from __future__ import annotations

import asyncio
import json
import logging

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena.protocol.server import SERVICE_NAME, ArenaServer

from .helpers import BUF, PATIENCE_S, run, started_server


async def _reflect(port: int, *requests: reflection_pb2.ServerReflectionRequest):
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
            iter(requests))
        return [r async for r in call]


def test_reflection_lists_the_services_and_serves_the_protocol_file() -> None:
    async def scenario():
        server, port = await started_server()
        try:
            listed, by_symbol = await _reflect(
                port, reflection_pb2.ServerReflectionRequest(list_services=""),
                reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_NAME))
        finally:
            await server.stop()
        names = {s.name for s in listed.list_services_response.service}
        assert names == {SERVICE_NAME, "grpc.health.v1.Health",
                         "grpc.reflection.v1alpha.ServerReflection"}
        files = [descriptor_pb2.FileDescriptorProto.FromString(raw)
                 for raw in by_symbol.file_descriptor_response.file_descriptor_proto]
        arena = next(f for f in files if f.name == "threefiveeight/v1/arena.proto")
        assert arena.package == "threefiveeight.v1"
        play = arena.service[0].method[0]
        assert (play.name, play.client_streaming, play.server_streaming) == ("Play", True, True)
        assert play.input_type == ".threefiveeight.v1.BotMessage"
        assert {"DecisionRequest", "View", "RulesConfig"} <= {m.name for m in arena.message_type}
    run(scenario())


def test_health_is_serving_for_the_server_and_the_arena_service() -> None:
    async def scenario():
        server, port = await started_server()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = health_pb2_grpc.HealthStub(channel)
                for name in ("", SERVICE_NAME):
                    reply = await stub.Check(health_pb2.HealthCheckRequest(service=name))
                    assert reply.status == health_pb2.HealthCheckResponse.SERVING
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"))
                assert err.value.code() == grpc.StatusCode.NOT_FOUND
        finally:
            await server.stop()
    run(scenario())


async def _buf_curl(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        str(BUF), "curl", "--protocol", "grpc", "--http2-prior-knowledge", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), PATIENCE_S)
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.skipif(not BUF.exists(), reason="buf not installed: npm ci --prefix tools "
                    "(the npm package @bufbuild/buf)")
def test_buf_curl_uses_reflection_health_and_sees_a_rejected_registration() -> None:
    async def scenario():
        server, port = await started_server()
        server.expect("tok", "alpha")
        url = f"http://127.0.0.1:{port}"
        try:
            code, out, err = await _buf_curl("--list-services", url)
            assert code == 0, err
            assert SERVICE_NAME in out.split() and "grpc.health.v1.Health" in out.split()
            code, out, err = await _buf_curl("-d", "{}", f"{url}/grpc.health.v1.Health/Check")
            assert code == 0 and json.loads(out) == {"status": "SERVING"}, err
            # a generic client learns the message types by reflection and sees the failure
            code, out, err = await _buf_curl(
                "-d", '{"register": {"token": "wrong", "protocolVersion": "1"}}',
                f"{url}/{SERVICE_NAME}/Play")
            assert json.loads(out)["register"]["reason"] == "REGISTER_REJECT_REASON_BAD_TOKEN"
            assert code != 0 and json.loads(err)["code"] == "unauthenticated"
            code, out, err = await _buf_curl(
                "-d", '{"register": {"token": "tok", "protocolVersion": "7"}}',
                f"{url}/{SERVICE_NAME}/Play")
            assert code != 0 and json.loads(err)["code"] == "failed_precondition"
        finally:
            await server.stop()
    run(scenario())


@pytest.mark.parametrize("bind,warned", [("0.0.0.0:0", True), ("127.0.0.1:0", False),
                                         ("localhost:0", False)])
def test_a_non_loopback_bind_without_tls_is_warned_about(bind, warned, caplog) -> None:
    async def scenario():
        server = ArenaServer(bind)
        await server.start()
        await server.stop()
    with caplog.at_level(logging.WARNING, logger="arena.protocol"):
        run(scenario())
    hits = [r for r in caplog.records if "without TLS" in r.getMessage()]
    assert bool(hits) == warned
    if warned:
        assert "token" in hits[0].getMessage() and hits[0].levelno == logging.WARNING
