"""Helpers for record tests: play short in-process matches and edit record files."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

from arena.match import LocalBot, MatchOutcome, MatchSpec, run_match
from arena.rules import make_config

NAMES = ("alice", "bob", "carol")
HOSTILE = ("Jürgen ♠", "<script>alert(1)</script>", "O'Brien, \"Bobby\"")


class RandomPolicy:
    """Uniform over the legal actions, seeded."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def decide(self, view) -> int:
        return self.rng.choice(view.legal_actions)


class FaultyPolicy(RandomPolicy):
    """Random, but answers ``bad`` (an illegal code) or raises on chosen decision numbers."""

    def __init__(self, seed: int, illegal_at=(), raise_at=()) -> None:
        super().__init__(seed)
        self.n = 0
        self.illegal_at, self.raise_at = set(illegal_at), set(raise_at)

    def decide(self, view) -> int:
        self.n += 1
        if self.n in self.raise_at:
            raise RuntimeError(f"boom <b>{self.n}</b>")
        if self.n in self.illegal_at:
            return 200 if 200 not in view.legal_actions else 201
        return super().decide(view)


def play(preset: str = "sergeant-major", seed: int | str | bytes = 1, *, hand_cap: int = 2,
         names=NAMES, policies=None, match_id: str = "m1", **spec) -> MatchOutcome:
    """Run one short match in-process with random (or given) policies."""
    cfg = make_config(preset, hand_cap=hand_cap)
    policies = policies or [RandomPolicy(i + 3 * len(preset)) for i in range(3)]
    bots = [LocalBot(p, n) for p, n in zip(policies, names, strict=True)]
    return asyncio.run(run_match(MatchSpec(match_id, cfg, seed=seed, **spec), bots))


def load_lines(path: Path) -> list[dict]:
    """A plain .jsonl record as a list of dicts."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def save_lines(path: Path, objs: list[dict]) -> None:
    """Write dicts back as JSON Lines (a tampered record)."""
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs),
                    encoding="utf-8")
