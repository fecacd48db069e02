"""The protocol edge: the bot protocol's generated code, conversions, and the arena's gRPC
server (the only package that imports grpc and the generated modules).

The package import is light: ``arena.protocol.convert`` and ``arena.protocol.server`` load the
generated code and grpc when imported.
"""

#: protocol versions this arena speaks (RegisterRequest.protocol_version)
PROTOCOL_VERSION = "1"
SUPPORTED_PROTOCOL_VERSIONS = ("1",)
