"""Opens TCP connections to 127.0.0.1: the arena's TCP port (ARENA_TCP_PORT) and port 22."""
import os
import socket

from _attack import main


def attack() -> str:
    port = int(os.environ["ARENA_TCP_PORT"])
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass
    return f"connected to 127.0.0.1:{port}"


main(attack)
