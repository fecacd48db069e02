"""Reads another bot's file (its path in TARGET_FILE)."""
import os

from _attack import main

main(lambda: open(os.environ["TARGET_FILE"]).read().strip())
