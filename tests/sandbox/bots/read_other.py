"""Reads another bot's file (its path in TARGET_FILE)."""
import os
from pathlib import Path

from _attack import main

main(lambda: Path(os.environ["TARGET_FILE"]).read_text().strip())
