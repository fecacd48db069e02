"""RayExecutor's driver-side bookkeeping without Ray: crashes counted over all workers, logs
appended to the driver's output directory, worker log paths shown as the driver's."""

from __future__ import annotations

import asyncio

from arena.cluster.executor import RayExecutor
from arena.cluster.worker import WorkerReply

from ..tournament.helpers import make_config


def reply(crashes=None, logs=None, events=()):
    return WorkerReply(played=None, logs=logs or {}, events=list(events),
                       crashes=crashes or {}, log_dir="/tmp/arena-worker-logs-x", node="n1")


def test_crashes_add_up_across_workers_then_disqualify(tmp_path):
    (tmp_path / "logs").mkdir()
    events = []
    ex = RayExecutor(make_config(None, tag="x", max_crashes=3), tmp_path, events.append)
    ex._absorb(reply({"random-1": 1}))
    ex._absorb(reply({"random-1": 1, "random-0": 1}))     # another worker
    assert ex.disqualified == {} and ex.disqualifications == []
    ex._absorb(reply({"random-1": 1}))                    # the 3rd: as BotPool counts
    assert ex.disqualified == {"random-1": "disqualified after 3 crashes"}
    assert ex.disqualifications == [f"'random-1' was disqualified after 3 crashes (on the "
                                    f"cluster); see {tmp_path / 'logs'}"]
    assert events[-1] == ("bot 'random-1' is disqualified after 3 crashes; its remaining "
                          "matches are forfeited")
    ex._absorb(reply({"random-1": 1}))                    # told once
    assert len(ex.disqualifications) == 1 and ex.crashes["random-1"] == 4


def test_logs_and_events_come_back_under_the_driver_paths(tmp_path):
    (tmp_path / "logs").mkdir()
    events = []
    ex = RayExecutor(make_config(None, tag="x"), tmp_path, events.append)
    ex._absorb(reply(logs={"random-0.log": b"one\n"}, events=[
        "bot 'random-0' disconnected or crashed (log: /tmp/arena-worker-logs-x/random-0.log)"]))
    ex._absorb(reply(logs={"random-0.log": b"two\n", "../escape.log": b"x"}))
    assert (tmp_path / "logs" / "random-0.log").read_bytes() == b"one\ntwo\n"
    assert (tmp_path / "logs" / "escape.log").read_bytes() == b"x"   # never outside logs/
    assert events == [f"bot 'random-0' disconnected or crashed (log: "
                      f"{tmp_path / 'logs' / 'random-0.log'})"]


def test_slots_default_to_the_tournament_concurrency(tmp_path):
    assert RayExecutor(make_config(None, tag="x", concurrency=3), tmp_path, print).slots == 3
    cfg = make_config(None, tag="x", concurrency=3, extra="[cluster]\nslots = 7\n")
    assert RayExecutor(cfg, tmp_path, print).slots == 7


class _FakeRay:
    """What RayExecutor._connect needs of the ray module: ``init``'s arguments recorded."""

    def __init__(self) -> None:
        self.calls: list[dict] = []

    def init(self, **kwargs) -> None:
        self.calls.append(kwargs)


def test_a_private_instance_is_sized_for_the_workers(tmp_path, monkeypatch):
    """`address = "local"` with the default cpus_per_bot = 1 on a 2-core machine: the
    private instance gets the 3 x slots CPUs the workers need (said once), not 2."""
    import arena.cluster.executor as ex_module
    monkeypatch.setattr(ex_module.os, "cpu_count", lambda: 2)
    events: list[str] = []
    cfg = make_config(None, tag="x", concurrency=2, extra='[cluster]\naddress = "local"\n')
    ray = _FakeRay()
    asyncio.run(RayExecutor(cfg, tmp_path, events.append)._connect(ray, {}))  # type: ignore[arg-type]
    assert ray.calls[0]["num_cpus"] == 6 and ray.calls[0]["include_dashboard"] is False
    # a new instance, also where a Ray cluster runs on this machine (which ray.init() with
    # no address would join, refusing num_cpus)
    assert ray.calls[0]["address"] == "local"
    assert events == ["private Ray instance: 6 logical CPUs, for 2 workers x 3 bots x "
                      "cpus_per_bot 1 (this machine has 2: the bots share its cores)"]
    roomy = make_config(None, tag="x", extra='[cluster]\naddress = "local"\ncpus_per_bot = '
                                             '0.25\n')
    ray, events = _FakeRay(), []
    asyncio.run(RayExecutor(roomy, tmp_path, events.append)._connect(ray, {}))  # type: ignore[arg-type]
    assert ray.calls[0]["num_cpus"] == 2 and events == []    # the machine's own count


def test_start_ray_retries_a_startup_timeout_and_ends_what_it_left():
    """The Ray fixtures' start: Ray's node start timing out (its fixed 30 s on a busy
    machine) is tried again after ending what the failed start left; other errors are not."""
    import subprocess

    import pytest
    pytest.importorskip("ray", reason="ray is not installed")
    from .raytools import start_ray
    left: list[subprocess.Popen] = []

    def flaky():
        if not left:
            left.append(subprocess.Popen(["sleep", "60"]))     # a half-started node
            raise Exception("The current node timed out during startup. This could happen "
                            "because some of the raylet failed to startup or the GCS has "
                            "become overloaded.")
        return "started"
    assert start_ray(flaky) == "started"
    assert left[0].wait(10) == -9                  # ended before the second try
    with pytest.raises(ValueError, match="other"):
        start_ray(lambda: (_ for _ in ()).throw(ValueError("other")))
