"""The example bot in docs/protocol.md is short and plays a match as written."""

from __future__ import annotations

import re
import sys

import pytest

from arena.match import MatchSpec, run_match
from arena.rules import make_config

from .helpers import PATIENCE_S, REPO_ROOT, BotProcesses, run, started_server

pytestmark = pytest.mark.e2e


def _example() -> str:
    text = (REPO_ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- example-bot[^>]*-->\s*```python\n(.*?)```", text, re.S)
    assert m, "docs/protocol.md lost its example-bot block"
    return m.group(1)


def test_example_bot_is_at_most_15_lines_of_code() -> None:
    code = [line for line in _example().splitlines() if line.strip()]
    assert len(code) <= 15, f"{len(code)} non-blank lines"


def test_example_bot_plays_a_match(procs: BotProcesses, tmp_path) -> None:
    script = tmp_path / "my_bot.py"
    script.write_text(_example(), encoding="utf-8")

    async def scenario():
        server, port = await started_server()
        try:
            for seat in range(3):
                server.expect(f"t{seat}", f"example{seat}")
                procs.spawn([sys.executable, str(script), "--arena", f"127.0.0.1:{port}",
                             "--token", f"t{seat}", "--log-level", "WARNING"], f"ex{seat}")
            bots = [await server.wait_for_bot(f"t{s}", PATIENCE_S) for s in range(3)]
            assert bots[0].identity.reported_name == "my-bot"
            result = await run_match(MatchSpec("doc", make_config("nine-five-two"), seed=5), bots)
            assert result.state.finished and result.faults == (0, 0, 0)
        finally:
            await server.stop()
        for proc in procs.procs:
            assert await procs.wait(proc) == 0, procs.output(proc)[1]
    run(scenario())
