"""The committed generated code matches a fresh generation with the pinned grpcio-tools, and
imports cleanly with the installed protobuf / grpcio."""

from __future__ import annotations

import importlib
import re

import pytest

from arena.protocol import gen


def test_committed_code_is_up_to_date() -> None:
    try:
        diffs = gen.stale_files()
    except gen.GenerationError as exc:  # grpcio-tools missing or not the pinned version
        pytest.skip(str(exc))
    assert diffs == [], "generated code is stale, run: python -m arena.protocol.gen\n" + \
        "\n".join(diffs)


def test_generated_modules_import_with_installed_runtime() -> None:
    pb2 = importlib.import_module("arena.protocol._gen.threefiveeight.v1.arena_pb2")
    grpc_mod = importlib.import_module("arena.protocol._gen.threefiveeight.v1.arena_pb2_grpc")
    assert pb2.DESCRIPTOR.name == "threefiveeight/v1/arena.proto"
    assert pb2.DESCRIPTOR.package == "threefiveeight.v1"
    assert hasattr(grpc_mod, "ArenaServiceStub")


def test_runtime_versions_satisfy_the_generated_code() -> None:
    import google.protobuf
    import grpc

    text = (gen.GEN_DIR / "threefiveeight/v1/arena_pb2.py").read_text()
    m = re.search(r"Protobuf Python Version: (\d+)\.(\d+)\.(\d+)", text)
    assert m, "no protobuf version header in the generated code"
    need = tuple(int(x) for x in m.groups())
    have = tuple(int(x) for x in google.protobuf.__version__.split(".")[:3])
    assert have >= need, f"protobuf {have} is older than the gencode's {need}"
    grpc_text = (gen.GEN_DIR / "threefiveeight/v1/arena_pb2_grpc.py").read_text()
    m = re.search(r"GRPC_GENERATED_VERSION = '([\d.]+)'", grpc_text)
    assert m and m.group(1) == gen.GRPCIO_TOOLS_VERSION
    have_grpc = tuple(int(x) for x in grpc.__version__.split(".")[:3])
    assert have_grpc >= tuple(int(x) for x in m.group(1).split("."))
