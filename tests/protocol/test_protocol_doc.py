"""docs/protocol.md covers the whole .proto; the .proto ships in the package (``arena proto``);
what section 11 promises about legal_actions order, half-closed streams and message size."""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import sys

import grpc
import pytest

from arena.cli import main as arena_main
from arena.match.bot import BotFault
from arena.protocol import gen
from arena.protocol._gen.threefiveeight.v1 import arena_pb2 as pb
from arena.protocol.convert import view_to_proto
from arena.protocol.source import PACKAGED_ROOT, PROTO_NAME, proto_path, proto_text
from arena.rules import MatchState, make_config
from arena.rules.config import PRESETS

from .helpers import PATIENCE_S, REPO_ROOT, run
from .test_server import _connected, _next, _request
from arena.rules.view import view_of

DOC = (REPO_ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")


def _mentioned(name: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", DOC) is not None


def test_every_message_enum_value_and_service_is_in_the_doc() -> None:
    fd = pb.DESCRIPTOR
    names = list(fd.message_types_by_name) + list(fd.services_by_name)
    names += [f"/{s.full_name}/{m.name}" for s in fd.services_by_name.values() for m in s.methods]
    for enum in fd.enum_types_by_name.values():
        names.append(enum.name)
        names += [v.name for v in enum.values]
    assert len(names) > 60
    missing = [n for n in names if not _mentioned(n)]
    assert missing == [], f"docs/protocol.md does not mention: {missing}"


def test_packaged_proto_is_the_repository_proto() -> None:
    assert gen.stale_proto_copies() == []
    assert proto_path() == PACKAGED_ROOT / PROTO_NAME
    assert proto_text() == (REPO_ROOT / "proto" / PROTO_NAME).read_text(encoding="utf-8")


def test_arena_proto_prints_text_path_and_include_dir(capsys) -> None:
    assert arena_main(["proto"]) == 0
    assert capsys.readouterr().out == proto_text()
    assert arena_main(["proto", "--path"]) == 0
    assert capsys.readouterr().out.strip() == str(proto_path())
    assert arena_main(["proto", "--include-dir"]) == 0
    root = capsys.readouterr().out.strip()
    assert (PACKAGED_ROOT / PROTO_NAME).samefile(f"{root}/{PROTO_NAME}")


def test_packaged_proto_compiles_with_its_include_dir(tmp_path) -> None:
    protoc = pytest.importorskip("grpc_tools.protoc")
    root = subprocess.run([sys.executable, "-m", "arena", "proto", "--include-dir"],
                          capture_output=True, text=True, check=True, cwd=tmp_path).stdout.strip()
    assert protoc.main(["protoc", f"-I{root}", f"--python_out={tmp_path}", PROTO_NAME]) == 0
    assert (tmp_path / "threefiveeight" / "v1" / "arena_pb2.py").is_file()


_SUIT = {s: i for i, s in enumerate("SHDC")}
_RANK = {r: i for i, r in enumerate(["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q",
                                      "K", "A"])}
_CONTRACTS = ["trump:S", "trump:H", "trump:D", "trump:C", "no-trump", "misere"]


def _doc_order_key(text: str) -> tuple:
    """The order docs/protocol.md 11.5 states, written from the doc (not the action codes)."""
    if text in _CONTRACTS:
        return (1, _CONTRACTS.index(text))
    if text == "stop":
        return (3, -1)
    if text.startswith("demand:"):
        _, seat, suit = text.split(":")
        return (2, int(seat), _SUIT[suit])
    if text.startswith("give:"):
        _, seat, card = text.split(":")
        return (3, int(seat), _SUIT[card[-1]], _RANK[card[:-1]])
    return (0, _SUIT[text[-1]], _RANK[text[:-1]])


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_legal_actions_are_in_the_documented_order(preset: str) -> None:
    rng = random.Random(preset)
    kinds = set()
    for seed in range(3):
        state = MatchState.new(make_config(preset, hand_cap=2), seed=seed)
        while not state.finished:
            msg = view_to_proto(view_of(state, state.current_seat))
            texts = list(msg.legal_actions)
            assert texts and texts == sorted(texts, key=_doc_order_key), texts
            kinds.add(msg.decision)
            state.apply(rng.choice(state.legal_actions()))
    assert pb.DECISION_KIND_PLAY in kinds and pb.DECISION_KIND_CONTRACT in kinds


def test_closing_only_the_send_side_is_a_disconnect() -> None:
    async def scenario():
        server, client, bot = await _connected()
        try:
            task = asyncio.create_task(bot.decide(_request(1)))
            await _next(client, "decision")
            await client.call.done_writing()
            with pytest.raises(BotFault) as err:
                await asyncio.wait_for(task, PATIENCE_S)
            assert err.value.kind == "disconnect" and not bot.alive
        finally:
            await client.close()
            await server.stop()
    run(scenario())


def test_a_message_over_4_mib_ends_the_stream_resource_exhausted() -> None:
    async def scenario():
        server, client, bot = await _connected()
        try:
            await client.send(pb.BotMessage(error=pb.ErrorReport(message="x" * (4 << 20))))
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await client.recv()
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            for _ in range(100):
                if not bot.alive:
                    break
                await asyncio.sleep(0.05)
            assert not bot.alive
        finally:
            await client.close()
            await server.stop()
    run(scenario())
