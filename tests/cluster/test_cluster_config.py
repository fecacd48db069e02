"""[cluster] config and `arena run --ray` without Ray: one-line errors, local unchanged."""

from __future__ import annotations

import importlib.util

import pytest

from arena.cli import main
from arena.tournament.config import ConfigError, parse_config

from ..tournament.helpers import config_text, new_tag


@pytest.fixture
def no_ray(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ray" else real(name, *a))


def test_local_is_the_default():
    cfg = parse_config(config_text(None, tag="x"))
    assert cfg.cluster.backend == "local" and cfg.cluster.address == "auto"


def test_ray_backend_fields():
    cfg = parse_config(config_text(None, tag="x") + '[cluster]\nbackend = "ray"\n'
                       'address = "ray://head:10001"\nslots = 8\ncpus_per_bot = 0.5\n'
                       'runtime_env = { env_vars = { A = "1" } }\n')
    c = cfg.cluster
    assert (c.backend, c.address, c.slots, c.cpus_per_bot) == ("ray", "ray://head:10001", 8, 0.5)
    assert c.runtime_env == {"env_vars": {"A": "1"}}


@pytest.mark.parametrize("line, problem", [
    ('backend = "k8s"', "cluster.backend: Input should be 'local' or 'ray' (got 'k8s')"),
    ('address = "head"', 'cluster.address: expected "auto", "local", "ray://HOST:PORT" or '
                         '"HOST:PORT", got \'head\''),
    ("cpus_per_bot = -1", "cluster.cpus_per_bot: Input should be greater than or equal to 0 "
                          "(got -1)"),
    ('runtime_env = { working_dir = "." }', "cluster: give working_dir as [cluster] "
                                            "working_dir, not in runtime_env"),
])
def test_bad_cluster_fields(line, problem):
    with pytest.raises(ConfigError) as exc:
        parse_config(config_text(None, tag="x") + f"[cluster]\n{line}\n", "t.toml")
    assert str(exc.value) == f"t.toml: {problem}"


def test_remote_bots_are_refused_on_ray():
    pytest.importorskip("ray", reason="ray is not installed (pip install 'arena358[ray]')")
    text = config_text(None, tag="x") + ('[cluster]\nbackend = "ray"\n[[bots]]\nname = "v"\n'
                                         'remote = true\ntoken = "0123456789abcdef0123"\n')
    with pytest.raises(ConfigError, match="remote bots cannot join a tournament on a Ray"):
        parse_config(text, "t.toml")


def test_ray_backend_without_ray_is_a_config_error(no_ray):
    with pytest.raises(ConfigError) as exc:
        parse_config(config_text(None, tag="x") + '[cluster]\nbackend = "ray"\n', "t.toml")
    assert str(exc.value) == ("t.toml: cluster.backend: backend \"ray\" needs Ray, which is not "
                              "installed; install it with: python3 -m pip install "
                              "'arena358[ray]'")


def test_run_dash_dash_ray_without_ray_is_one_line(no_ray, tmp_path, capsys):
    (tmp_path / "t.toml").write_text(config_text(None, tag=new_tag()))
    code = main(["run", str(tmp_path / "t.toml"), "--out", str(tmp_path / "o"), "--ray"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "cluster.backend: backend \"ray\" needs Ray" in err and "arena358[ray]" in err
    assert not (tmp_path / "o").exists()


def test_run_dash_dash_ray_bad_address_is_one_line(tmp_path, capsys):
    pytest.importorskip("ray", reason="ray is not installed (pip install 'arena358[ray]')")
    (tmp_path / "t.toml").write_text(config_text(None, tag=new_tag()))
    code = main(["run", str(tmp_path / "t.toml"), "--out", str(tmp_path / "o"), "--ray", "nohost"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "cluster.address: expected" in err


@pytest.mark.parametrize("args", [["--rounds", "0"], ["--hand-cap", "0"], ["--slots", "0"],
                                  ["--cpus-per-bot", "0"], ["--project-bots", "2"]])
def test_bench_cluster_bad_arguments_are_one_line(capsys, args):
    assert main(["bench", "cluster", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena: error: ") and err.count("\n") == 1


def test_bench_cluster_without_ray_names_the_extra(no_ray, monkeypatch, capsys):
    import builtins
    real_import = builtins.__import__

    def no_ray_import(name, *args, **kwargs):
        if name == "ray" or name.startswith("ray."):
            raise ImportError("No module named 'ray'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray_import)
    assert main(["bench", "cluster"]) == 2
    err = capsys.readouterr().err
    assert "arena358[ray]" in err and err.count("\n") == 1
